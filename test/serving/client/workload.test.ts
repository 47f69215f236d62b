import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import { jsonlWorkload, parseTrace, tokenWorkload } from '../../../src/serving/client/workload.js';

const tokenizer = new Gpt2Tokenizer();
const dir = mkdtempSync(join(tmpdir(), 'dantinox-workload-'));

describe('workloads', () => {
  for (const source of ['synthetic', 'brown'] as const) {
    it(`${source} prompts have exactly the asked token count, and differ`, () => {
      for (const n of [1, 7, 256]) {
        const w = tokenWorkload({
          source,
          inputTokens: n,
          outputTokens: 3,
          tokenizer,
          rng: new Rng(n),
          distinct: 4,
        });
        for (let i = 0; i < 4; i++) {
          expect(tokenizer.encode(w.item(i).prompt)).toHaveLength(n);
          expect(w.item(i).outputTokens).toBe(3);
        }
        if (n > 1) expect(new Set([0, 1, 2, 3].map((i) => w.item(i).prompt)).size).toBeGreaterThan(1);
      }
    });
  }

  it('reads JSONL prompts through their schema and names a bad line', () => {
    const good = join(dir, 'good.jsonl');
    writeFileSync(
      good,
      '{"prompt":"Hello world","output_tokens":5}\n\n{"prompt":"Hi","max_tokens":2}\n{"prompt":"x"}\n',
    );
    const w = jsonlWorkload(good, 9, tokenizer);
    expect(
      [0, 1, 2, 3].map((i) => [w.item(i).prompt, w.item(i).inputTokens, w.item(i).outputTokens]),
    ).toEqual([
      ['Hello world', 2, 5],
      ['Hi', 1, 2],
      ['x', 1, 9],
      ['Hello world', 2, 5],
    ]);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"prompt":"ok"}\n{"text":"no prompt"}\n');
    expect(() => jsonlWorkload(bad, 9, tokenizer)).toThrow(/--prompts .*bad\.jsonl, line 2/);
  });

  it('parses the Azure trace format to seconds from the first row', () => {
    const rows = parseTrace(
      'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n2023-11-16 18:16:00.0000000,1,1\n',
      't.csv',
    );
    expect(rows.map((r) => [Number(r.atS.toFixed(6)), r.inputTokens, r.outputTokens])).toEqual([
      [0, 374, 44],
      [4.314579, 396, 109],
      [13.31941, 1, 1],
    ]);
    expect(() => parseTrace('TIMESTAMP,ContextTokens\n1,2\n', 't.csv')).toThrow(/no GeneratedTokens column/);
    expect(() => parseTrace('TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,1\n', 't.csv')).toThrow(
      /row 2/,
    );
  });
});
