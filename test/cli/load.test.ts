import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { parseLoadList, parseWindow } from '../../src/cli/commands/load.js';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { type MockServer, startMockServer } from '../serving/mock-openai-server.js';
import { captureIo } from './capture-io.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-cli-'));
let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ ttftMs: 5, perTokenMs: 1, tokensPerChunk: 4 });
});
afterAll(async () => {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
});

async function load(args: string[]) {
  const io = captureIo(cwd);
  const code = await runCli(['load', ...args], io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

describe('dantinox load', () => {
  it('parses sweep lists and windows', () => {
    expect(parseLoadList('1,2,inf', false)).toEqual([1, 2, Number.POSITIVE_INFINITY]);
    expect(parseLoadList('0.5', false)).toEqual([0.5]);
    expect(() => parseLoadList('1.5', true)).toThrow(/positive integers or inf/);
    expect(() => parseLoadList('0,1', false)).toThrow(/positive numbers or inf/);
    expect(parseWindow('20')).toEqual({ requests: 20 });
    expect(parseWindow('10s')).toEqual({ ms: 10_000 });
    expect(() => parseWindow('soon')).toThrow(/number of requests/);
  });

  it('loads a server at two rates and writes a run folder', async () => {
    const run = await load([
      server.url,
      '--rate',
      '50,inf',
      '--concurrency',
      '4',
      '--requests',
      '12',
      '--input-tokens',
      '8',
      '--output-tokens',
      '6',
      '--slo',
      'ttft=2s,tpot=1s',
      '--out',
      'r1',
      '--no-charts',
      '--model',
      'mock',
    ]);
    expect(run.err).toContain('concurrency=4,rate=50');
    expect(run.err).toContain('concurrency=4,rate=inf');
    expect(run.err).toContain('ok 12/12');
    expect(run.out.split('\n')).toEqual(
      expect.arrayContaining(['r1/results.csv', 'r1/results.json', 'r1/results.jsonl']),
    );
    expect(run.code).toBe(ExitCode.ok);
    const compare = await runCli(['compare', 'r1', 'r1', '--noise-floor', '50%'], captureIo(cwd));
    expect(compare).toBe(ExitCode.ok);
  });

  it('replays a trace and reads JSONL prompts', async () => {
    writeFileSync(
      join(cwd, 'trace.csv'),
      'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,12,3\n2023-11-16 18:15:46.7005900,20,5\n',
    );
    const trace = await load([
      server.url,
      '--trace',
      'trace.csv',
      '--concurrency',
      '2',
      '--out',
      'r2',
      '--no-charts',
    ]);
    expect(trace.err).toContain('ok 2/2');
    expect(trace.code).toBe(ExitCode.ok);
    writeFileSync(join(cwd, 'p.jsonl'), '{"prompt":"Hello there","output_tokens":3}\n\n{"prompt":"Why?"}\n');
    const prompts = await load([
      server.url,
      '--prompts',
      'p.jsonl',
      '--requests',
      '4',
      '--endpoint',
      'chat',
      '--out',
      'r3',
      '--no-charts',
    ]);
    expect(prompts.err).toContain('ok 4/4');
    expect(prompts.code).toBe(ExitCode.ok);
  });

  it('--find-max-goodput finds the capacity of a batching server and records it in the row', async () => {
    const batching = await startMockServer({ ttftMs: 5, perTokenMs: 40, batchCapacity: 2 });
    try {
      const run = await load([
        batching.url,
        '--find-max-goodput',
        '--slo',
        'tpot=50ms',
        '--requests',
        '10',
        '--warmup',
        '2',
        '--input-tokens',
        '8',
        '--output-tokens',
        '6',
        '--out',
        'r6',
        '--no-charts',
      ]);
      expect(run.code).toBe(ExitCode.ok);
      const row = RunDirectory.load(join(cwd, 'r6')).results[0];
      expect(row?.metrics['max_goodput_at']).toBe(2);
      expect(row?.cells?.map((c) => c.cell)).toEqual([
        'concurrency=1,rate=inf',
        'concurrency=2,rate=inf',
        'concurrency=4,rate=inf',
        'concurrency=3,rate=inf',
      ]);
    } finally {
      await batching.close();
    }
    const noSlo = await load([server.url, '--find-max-goodput', '--requests', '3']);
    expect(noSlo.code).toBe(ExitCode.usage);
    expect(noSlo.err).toContain('pass them with --slo');
  }, 60_000);

  it('exits 1 when no request succeeds and 2 on bad input, naming the flag', async () => {
    const failing = await startMockServer({ fault: () => ({ kind: 'http', status: 500 }) });
    try {
      const run = await load([
        failing.url,
        '--requests',
        '3',
        '--input-tokens',
        '4',
        '--output-tokens',
        '2',
        '--out',
        'r4',
        '--no-charts',
      ]);
      expect(run.err).toContain('http_500 3');
      expect(run.code).toBe(ExitCode.taskFailed);
    } finally {
      await failing.close();
    }
    const noEnd = await load([server.url]);
    expect(noEnd.code).toBe(ExitCode.usage);
    expect(noEnd.err).toContain('--requests N or --duration');
    const badUrl = await load(['localhost:8080', '--requests', '1', '--out', 'r5']);
    expect(badUrl.code).toBe(ExitCode.usage);
    expect(badUrl.err).toContain('is not an http:// or https:// URL');
    const badSlo = await load([server.url, '--requests', '1', '--slo', 'ttft=fast']);
    expect(badSlo.code).toBe(ExitCode.usage);
    expect(badSlo.err).toContain('--slo');
  });
});
