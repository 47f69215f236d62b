import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/benchmarking/csv.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { ExitCode } from '../../src/cli/index.js';
import { parseLoadList, parseWindow } from '../../src/cli/load-option-parsers.js';
import { readRequestLines } from '../../src/serving/client/request-rows.js';
import { servingMetrics } from '../../src/serving/client/serving-metrics.js';
import { type MockServer, startMockServer } from '../serving/mock-openai-server.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-cli-'));
let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ ttftMs: 5, perTokenMs: 1, tokensPerChunk: 4 });
});
afterAll(async () => {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
});

const load = (args: string[]): Promise<CliRun> => runCliInProcess(['load', ...args], cwd);

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
    expect(run.stderr).toContain('concurrency=4,rate=50');
    expect(run.stderr).toContain('concurrency=4,rate=inf');
    expect(run.stderr).toContain('ok 12/12');
    expect(run.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'r1/results.csv',
        'r1/results.json',
        'r1/results.jsonl',
        'r1/requests.csv',
        'r1/requests.jsonl',
      ]),
    );
    expect(run.code).toBe(ExitCode.ok);
    // One record a request of the two points, and the points' metrics recomputed from them agree.
    const requests = readRequestLines(join(cwd, 'r1', 'requests.jsonl'));
    // 12 measured requests a point, after a warm-up of 4 (the concurrency).
    expect(requests.map((r) => [r.point, r.measured])).toEqual([
      ...Array(4).fill(['concurrency=4,rate=50', false]),
      ...Array(12).fill(['concurrency=4,rate=50', true]),
      ...Array(4).fill(['concurrency=4,rate=inf', false]),
      ...Array(12).fill(['concurrency=4,rate=inf', true]),
    ]);
    const cells = RunDirectory.load(join(cwd, 'r1')).results[0]?.cells ?? [];
    for (const cell of cells) {
      const again = servingMetrics(
        requests.filter((r) => r.point === cell.cell),
        { slo: { ttftMs: 2000, tpotMs: 1000 } },
      );
      expect(again.metrics['output_tps']).toBe(cell.metrics['output_tps']);
      expect(again.metrics['e2e_p99_ms']).toBe(cell.metrics['e2e_p99_ms']);
      expect(again.metrics['goodput_rps']).toBe(cell.metrics['goodput_rps']);
    }
    const csv = readFileSync(join(cwd, 'r1', 'requests.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(csv).toHaveLength(1 + 32);
    const compare = await runCliInProcess(['compare', 'r1', 'r1', '--noise-floor', '50%'], cwd);
    expect(compare.code).toBe(ExitCode.ok);
    // results.csv: one row per sweep point, its metrics as columns, read back as the points of the serving row.
    const table = parseCsv(readFileSync(join(cwd, 'r1', 'results.csv'), 'utf8'));
    expect(table.header.slice(0, 6)).toEqual(['run_id', 'task', 'cell', 'status', 'concurrency', 'rate']);
    expect(table.rows.map((r) => r[2])).toEqual(cells.map((c) => c.cell));
    const column = (name: string): (string | undefined)[] =>
      table.rows.map((r) => r[table.header.indexOf(name)]);
    expect(column('output_tps')).toEqual(cells.map((c) => String(c.metrics['output_tps'])));
    expect(column('rate')).toEqual(['50', '0']);
    expect(SuiteReport.load(join(cwd, 'r1', 'results.csv')).results[0]?.cells?.map((c) => c.metrics)).toEqual(
      cells.map((c) => Object.fromEntries(Object.entries(c.metrics).filter(([, v]) => !Number.isNaN(v)))),
    );
    // compare and history take the CSV: point by point.
    const csvCompare = await runCliInProcess(
      ['compare', 'r1/results.csv', 'r1/results.csv', '--noise-floor', '50%'],
      cwd,
    );
    expect(csvCompare.code).toBe(ExitCode.ok);
    expect(csvCompare.stdout).toContain('concurrency=4,rate=50');
    const added = await runCliInProcess(['history', 'add', 'r1/results.csv', '--history', 'csv.duckdb'], cwd);
    expect(added.code, added.stderr).toBe(ExitCode.ok);
    const args = [
      'history',
      'trend',
      'output_tps',
      '--cell',
      'concurrency=4,rate=inf',
      '--history',
      'csv.duckdb',
    ];
    const trend = await runCliInProcess(args, cwd);
    expect(trend.code).toBe(ExitCode.ok);
    expect(trend.stdout).toContain(String(Number(cells[1]?.metrics['output_tps']?.toPrecision(4))));
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
    expect(trace.stderr).toContain('ok 2/2');
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
    expect(prompts.stderr).toContain('ok 4/4');
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
    expect(noSlo.stderr).toContain('pass them with --slo');
  }, 60_000);

  it('a server without usage whose tokens the client counts otherwise: ≈ and one warning naming --tokenizer, in the summary, report.html and compare', async () => {
    const other = await startMockServer({ ttftMs: 2, perTokenMs: 1, tokenText: () => ' tok', usage: false });
    try {
      const args = ['--requests', '3', '--input-tokens', '4', '--output-tokens', '6', '--model', 'm'];
      const run = await load([other.url, ...args, '--out', 'approx']);
      expect(run.code).toBe(ExitCode.ok);
      const pointLine = run.stderr.split('\n').find((l) => l.startsWith('concurrency=1,rate=inf')) ?? '';
      expect(pointLine).toMatch(/itl p50 ≈/);
      expect(pointLine).toMatch(/≈[\d.,]+ tok\/s/);
      const warning = run.stderr.split('\n').filter((l) => l.includes('approximate'));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toContain('--tokenizer');
      const cell = RunDirectory.load(join(cwd, 'approx')).results[0]?.cells?.[0];
      expect(cell?.metrics['tokens_exact']).toBe(0);
      expect(cell?.metrics['output_tokens']).toBe(3 * 12); // six ` tok`, two GPT-2 tokens each
      expect(readFileSync(join(cwd, 'approx', 'report.html'), 'utf8')).toContain(
        'so output tokens, tok/s, TPOT and ITL are approximate',
      );
      const compared = await runCliInProcess(['compare', 'approx', 'approx', '--noise-floor', '50%'], cwd);
      expect(compared.stdout + compared.stderr).toContain('are approximate');
    } finally {
      await other.close();
    }
    // The same server with usage: exact counts, no ≈, and the disagreement said once.
    const counted = await startMockServer({ ttftMs: 2, perTokenMs: 1, tokenText: () => ' tok' });
    try {
      const run = await load([
        counted.url,
        '--requests',
        '2',
        '--output-tokens',
        '6',
        '--out',
        'exact',
        '--no-charts',
      ]);
      expect(run.stderr).not.toContain('≈');
      const counts = run.stderr
        .split('\n')
        .filter((l) => l.includes('counted 24 output tokens where the server reported 12'));
      expect(counts).toHaveLength(1);
      expect(counts[0]).toContain('--tokenizer');
    } finally {
      await counted.close();
    }
  });

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
      expect(run.stderr).toContain('http_500 3');
      expect(run.code).toBe(ExitCode.taskFailed);
    } finally {
      await failing.close();
    }
    const noEnd = await load([server.url]);
    expect(noEnd.code).toBe(ExitCode.usage);
    expect(noEnd.stderr).toContain('--requests N or --duration');
    const badUrl = await load(['localhost:8080', '--requests', '1', '--out', 'r5']);
    expect(badUrl.code).toBe(ExitCode.usage);
    expect(badUrl.stderr).toContain('is not an http:// or https:// URL');
    const badSlo = await load([server.url, '--requests', '1', '--slo', 'ttft=fast']);
    expect(badSlo.code).toBe(ExitCode.usage);
    expect(badSlo.stderr).toContain('--slo');
  });
});
