import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import {
  conversationWorkload,
  jsonlWorkload,
  parseMooncakeTrace,
  parseTrace,
  TRACE_BLOCK_TOKENS,
  tokenWorkload,
  traceWorkload,
} from '../../../src/serving/client/workload.js';

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

  it('shared prefix: every prompt of a group starts with the same prefix of exactly that many tokens, the rest differs', () => {
    const w = tokenWorkload({
      source: 'synthetic',
      inputTokens: 64,
      outputTokens: 2,
      tokenizer,
      rng: new Rng(3),
      distinct: 6,
      prefixTokens: 48,
      prefixGroups: 2,
    });
    expect(w.name).toContain('shared prefix 48 × 2 group(s)');
    const ids = Array.from({ length: 6 }, (_, i) => tokenizer.encode(w.item(i).prompt));
    for (const p of ids) expect(p).toHaveLength(64);
    const head = (i: number) => JSON.stringify(ids[i]?.slice(0, 48));
    expect([head(0), head(2), head(4)]).toEqual([head(0), head(0), head(0)]);
    expect([head(1), head(3), head(5)]).toEqual([head(1), head(1), head(1)]);
    expect(head(0)).not.toBe(head(1));
    expect(new Set(ids.map((p) => JSON.stringify(p))).size).toBe(6);
    expect(() =>
      tokenWorkload({
        source: 'synthetic',
        inputTokens: 8,
        outputTokens: 2,
        tokenizer,
        rng: new Rng(1),
        prefixTokens: 8,
      }),
    ).toThrow(/--shared-prefix 8 must be shorter than --input-tokens 8/);
  });

  it('turns: a conversation of N messages, each of --input-tokens tokens', () => {
    const w = tokenWorkload({
      source: 'brown',
      inputTokens: 12,
      outputTokens: 5,
      tokenizer,
      rng: new Rng(4),
      turns: 3,
    });
    const item = w.item(0);
    expect(item.followUps).toHaveLength(2);
    for (const t of [item, ...(item.followUps ?? [])]) {
      expect(tokenizer.encode(t.prompt)).toHaveLength(12);
      expect(t.outputTokens).toBe(5);
    }
  });

  it('reads ShareGPT and chat-API conversations: user messages are turns, the answers after them their lengths', () => {
    const path = join(dir, 'conv.jsonl');
    writeFileSync(
      path,
      [
        JSON.stringify({
          conversations: [
            { from: 'system', value: 'be brief' },
            { from: 'human', value: 'Hello there' },
            { from: 'gpt', value: ' the the the' },
            { from: 'human', value: 'And then?' },
          ],
        }),
        '',
        JSON.stringify({
          messages: [
            { role: 'assistant', content: 'hi' },
            { role: 'user', content: 'Why?' },
          ],
        }),
      ].join('\n'),
    );
    const w = conversationWorkload(path, 7, tokenizer);
    expect(w.size).toBe(2);
    expect(w.item(0)).toEqual({
      prompt: 'Hello there',
      inputTokens: 2,
      outputTokens: 3,
      followUps: [{ prompt: 'And then?', inputTokens: 3, outputTokens: 7 }],
    });
    expect(w.item(1)).toEqual({ prompt: 'Why?', inputTokens: 2, outputTokens: 7 });
    writeFileSync(path, `${JSON.stringify({ conversations: [{ from: 'gpt', value: 'only me' }] })}\n`);
    expect(() => conversationWorkload(path, 7, tokenizer)).toThrow(
      /--conversations .*conv\.jsonl, line 1: not a conversation with a message from the user/,
    );
  });

  it('reads a Mooncake trace and names the row and field of a bad one', () => {
    const rows = parseMooncakeTrace(
      '{"timestamp": 1000, "input_length": 600, "output_length": 4, "hash_ids": [7]}\n{"timestamp": 1500, "input_length": 20, "output_length": 2}\n',
      'mc.jsonl',
    );
    expect(rows).toEqual([
      { atS: 0, inputTokens: 600, outputTokens: 4, blocks: [7] },
      { atS: 0.5, inputTokens: 20, outputTokens: 2 },
    ]);
    expect(() => parseMooncakeTrace('{"timestamp": 1, "input_length": 5}\n', 'mc.jsonl')).toThrow(
      /--trace mc\.jsonl, row 1: field output_length/,
    );
    expect(() => parseMooncakeTrace('not json\n', 'mc.jsonl')).toThrow(/row 1: not JSON/);
  });

  it('a Mooncake trace: rows sharing a block id share that block of their prompts, at their times', () => {
    const path = join(dir, 'trace.jsonl');
    const n = TRACE_BLOCK_TOKENS;
    writeFileSync(
      path,
      [
        { timestamp: 0, input_length: n + 40, output_length: 3, hash_ids: [11, 12] },
        { timestamp: 250, input_length: n + 60, output_length: 3, hash_ids: [11, 13] },
        { timestamp: 400, input_length: 50, output_length: 3, hash_ids: [14] },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const w = traceWorkload(path, tokenizer, new Rng(1));
    expect([w.timed, w.size]).toEqual([true, 3]);
    const ids = [0, 1, 2].map((i) => tokenizer.encode(w.item(i).prompt));
    expect(ids.map((p) => p.length)).toEqual([n + 40, n + 60, 50]);
    // The shared block and the line break after it.
    expect(ids[1]?.slice(0, n + 1)).toEqual(ids[0]?.slice(0, n + 1));
    expect(ids[1]?.slice(n + 1, n + 20)).not.toEqual(ids[0]?.slice(n + 1, n + 20));
    expect([0, 1, 2].map((i) => w.item(i).atMs)).toEqual([0, 250, 400]);
  });
});
