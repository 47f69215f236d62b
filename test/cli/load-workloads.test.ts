import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { ExitCode } from '../../src/cli/index.js';
import { Gpt2Tokenizer } from '../../src/models/tokenizers/gpt2-tokenizer.js';
import { readRequestLines } from '../../src/serving/client/request-rows.js';
import { type MockOptions, startMockServer } from '../serving/mock-openai-server.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-workloads-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const gpt2 = new Gpt2Tokenizer();

/** Runs `dantinox load` against a fresh mock server with `mock`'s options. */
async function load(mock: MockOptions, args: string[]): Promise<CliRun> {
  const server = await startMockServer(mock);
  try {
    return await runCliInProcess(['load', server.url, '--no-charts', '--model', 'm', ...args], cwd);
  } finally {
    await server.close();
  }
}

const cell = (dir: string) => RunDirectory.load(join(cwd, dir)).results[0]?.cells?.[0];

describe('dantinox load: the workloads people run', () => {
  it('multi-turn: --turns sends conversations, each turn after its answer; TTFT by turn', async () => {
    const run = await load({ ttftMs: 2, perTokenMs: 1 }, [
      '--endpoint',
      'chat',
      '--turns',
      '3',
      '--requests',
      '4',
      '--warmup',
      '0',
      '--input-tokens',
      '8',
      '--output-tokens',
      '4',
      '--out',
      'turns',
    ]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const requests = readRequestLines(join(cwd, 'turns', 'requests.jsonl'));
    expect(requests.map((r) => [r.index, r.turn])).toEqual(
      [0, 1, 2, 3].flatMap((i) => [0, 1, 2].map((t) => [i, t])),
    );
    const m = cell('turns')?.metrics ?? {};
    expect(m['requests']).toBe(12);
    expect(m['turns_per_conversation']).toBe(3);
    for (const t of [1, 2, 3]) expect(m[`ttft_turn_${t}_p50_ms`]).toBeGreaterThan(0);
  });

  it('--conversations replays a ShareGPT file turn by turn', async () => {
    writeFileSync(
      join(cwd, 'sharegpt.jsonl'),
      `${JSON.stringify({
        conversations: [
          { from: 'human', value: 'Hi' },
          { from: 'gpt', value: ' the the' },
          { from: 'human', value: 'More?' },
        ],
      })}\n`,
    );
    const run = await load({ ttftMs: 2, perTokenMs: 1 }, [
      '--endpoint',
      'chat',
      '--conversations',
      'sharegpt.jsonl',
      '--requests',
      '2',
      '--warmup',
      '0',
      '--out',
      'sharegpt',
    ]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const requests = readRequestLines(join(cwd, 'sharegpt', 'requests.jsonl'));
    // The answer after "Hi" in the file is two tokens: the first turn asks for two; "More?" has none: --output-tokens.
    expect(requests.map((r) => [r.turn, r.status === 'ok' ? r.outputTokens : 0])).toEqual([
      [0, 2],
      [1, 128],
      [0, 2],
      [1, 128],
    ]);
  });

  it('--shared-prefix: the server reports its prefix-cache hits as cached_tokens, the point a hit rate near the share', async () => {
    const run = await load(
      { ttftMs: 2, perTokenMs: 1, promptTokens: (t) => gpt2.encode(t).length, prefixCache: true },
      [
        '--shared-prefix',
        '48',
        '--input-tokens',
        '64',
        '--output-tokens',
        '2',
        '--requests',
        '16',
        '--warmup',
        '1',
        '--out',
        'prefix',
      ],
    );
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const m = cell('prefix')?.metrics ?? {};
    // After the warm-up every prompt's first 48 of 64 tokens are cached (the word cut at the prefix's end may cost one).
    expect(m['cache_hit_rate']).toBeGreaterThan(46 / 64);
    expect(m['cache_hit_rate']).toBeLessThanOrEqual(48 / 64);
    expect(m['prompt_tokens']).toBe(16 * 64);
  });

  it('--trace of a Mooncake JSONL replays its rows at their times with their lengths', async () => {
    writeFileSync(
      join(cwd, 'mooncake.jsonl'),
      [
        { timestamp: 0, input_length: 600, output_length: 3, hash_ids: [1, 2] },
        { timestamp: 40, input_length: 540, output_length: 2, hash_ids: [1, 3] },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const run = await load({ ttftMs: 2, perTokenMs: 1, promptTokens: (t) => gpt2.encode(t).length }, [
      '--trace',
      'mooncake.jsonl',
      '--concurrency',
      '2',
      '--out',
      'mooncake',
    ]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const requests = readRequestLines(join(cwd, 'mooncake', 'requests.jsonl'));
    expect(requests.map((r) => r.plannedMs)).toEqual([0, 40]);
    expect(requests.map((r) => (r.status === 'ok' ? [r.serverPromptTokens, r.outputTokens] : []))).toEqual([
      [600, 3],
      [540, 2],
    ]);
    const bad = await load({}, ['--trace', 'missing-field.jsonl', '--out', 'bad']);
    expect(bad.code).toBe(ExitCode.usage);
    writeFileSync(join(cwd, 'missing-field.jsonl'), '{"timestamp": 0, "input_length": 5}\n');
    const missing = await load({}, ['--trace', 'missing-field.jsonl', '--out', 'bad2']);
    expect(missing.code).toBe(ExitCode.usage);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('missing-field.jsonl, row 1: field output_length');
  });

  it('a reasoning model: thinking and answer counted apart, TTFT at the first thinking token', async () => {
    const run = await load({ ttftMs: 2, perTokenMs: 1, reasoningTokens: 6 }, [
      '--endpoint',
      'chat',
      '--requests',
      '3',
      '--output-tokens',
      '10',
      '--out',
      'reasoning',
    ]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const m = cell('reasoning')?.metrics ?? {};
    expect([m['output_tokens'], m['reasoning_tokens']]).toEqual([30, 18]);
    expect(m['ttfa_p50_ms']).toBeGreaterThan(m['ttft_p50_ms'] ?? Number.POSITIVE_INFINITY);
  });

  it('workload flags that exclude each other are refused in one line naming both', async () => {
    for (const [args, a, b] of [
      [['--conversations', 'x.jsonl', '--turns', '2'], '--conversations', '--turns'],
      [['--trace', 'x.csv', '--shared-prefix', '4'], '--trace', '--shared-prefix'],
      [['--prompts', 'p.jsonl', '--turns', '2'], '--prompts p.jsonl', '--turns'],
    ] as const) {
      const run = await load({}, [...args, '--requests', '1']);
      expect(run.code).toBe(ExitCode.usage);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(`${a} and ${b} cannot be used together`);
    }
  });
});
