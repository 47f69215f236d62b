/**
 * `dantinox load --shard i/n` and `dantinox merge` of its shards, against the loopback mock server: the sweep
 * points are a matrix axis, dealt out like bench variants and merged into the run one unsharded load writes.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runState } from '../../src/benchmarking/matrix/matrix-report.js';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { ExitCode } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { runLoad } from '../../src/runs/run-load.js';
import { type MockServer, startMockServer } from '../serving/mock-openai-server.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-shard-'));
let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ ttftMs: 2, perTokenMs: 1, tokensPerChunk: 2 });
});
afterAll(async () => {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
});

const cli = (args: string[]): Promise<CliRun> => runCliInProcess(args, cwd);

/** A 4-point closed-loop sweep of 4 requests per point, with the extra flags. */
const sweep = (...extra: string[]): string[] => [
  'load',
  server.url,
  '--concurrency',
  '1,2,3,4',
  '--requests',
  '4',
  '--input-tokens',
  '8',
  '--output-tokens',
  '4',
  '--model',
  'mock',
  ...extra,
];

const POINTS = ['1', '2', '3', '4'].map((c) => `concurrency=${c},rate=inf`);
const header = (dir: string): string =>
  readFileSync(join(cwd, dir, 'results.csv'), 'utf8').split('\n')[0] ?? '';
const cellsOf = (dir: string): string[] =>
  RunDirectory.load(join(cwd, dir)).results[0]?.cells?.map((c) => c.cell) ?? [];

describe('dantinox load --shard and merge', () => {
  it('two shards of a 4-point sweep merge into the run an unsharded load writes', async () => {
    const whole = await cli(sweep('--out', 'whole'));
    expect(whole.code).toBe(ExitCode.ok);
    const first = await cli(sweep('--out', 'sharded', '--shard', '0/2', '--no-charts'));
    const second = await cli(sweep('--out', 'sharded', '--shard', '1/2', '--no-charts'));
    expect([first.code, second.code]).toEqual([ExitCode.ok, ExitCode.ok]);
    expect(first.stderr.split('\n')[0]).toBe('Shard 0/2 (from --shard): 2 of 4 sweep point(s).');
    expect(first.stderr).toContain('concurrency=3,rate=inf');
    expect(first.stderr).not.toContain('concurrency=2,rate=inf');
    // Round-robin, as bench deals variants: shard 0 has points 0 and 2, shard 1 points 1 and 3.
    expect(first.stdout).toContain('sharded/shard-0-of-2/concurrency=1,rate=inf/');
    expect(first.stdout).toContain('sharded/shard-0-of-2/concurrency=3,rate=inf/');
    expect(readdirSync(join(cwd, 'sharded/shard-1-of-2')).sort()).toEqual(
      [
        'concurrency=2,rate=inf',
        'concurrency=4,rate=inf',
        'matrix.json',
        'results.csv',
        'results.json',
      ].sort(),
    );
    const merge = await cli(['merge', 'sharded', '--out', 'merged']);
    expect(merge.stderr).toBe('');
    expect(merge.code).toBe(ExitCode.ok);
    expect(merge.stdout).toContain('Merged 4 of 4 sweep point(s) from 2 folder(s) into merged');
    expect(cellsOf('merged')).toEqual(POINTS);
    expect(cellsOf('whole')).toEqual(POINTS);
    expect(header('merged')).toBe(header('whole'));
    expect(header('merged')).not.toContain('variant');
    const files = (dir: string): string[] =>
      readdirSync(join(cwd, dir), { recursive: true }).map(String).sort();
    expect(files('merged')).toEqual(files('whole'));
    expect(existsSync(join(cwd, 'merged/matrix.json'))).toBe(false);
    const row = RunDirectory.load(join(cwd, 'merged')).results[0];
    expect(row?.status).toBe('completed');
    expect(row?.cells?.every((c) => c.metrics['succeeded'] === 4)).toBe(true);
    expect(row?.metrics['peak_output_tps']).toBe(
      Math.max(...(row?.cells ?? []).map((c) => c.metrics['output_tps'] ?? 0)),
    );
    // The merged run reads like any load run.
    const compare = await cli(['compare', 'whole', 'merged', '--noise-floor', '500%']);
    expect([ExitCode.ok, ExitCode.taskFailed]).toContain(compare.code);
    expect(compare.stdout).toContain('concurrency=4,rate=inf');
    const report = await cli(['report', 'merged', '--out', 'merged-report.html']);
    expect(report.code).toBe(ExitCode.ok);
    const html = readFileSync(join(cwd, 'merged-report.html'), 'utf8');
    for (const point of POINTS) expect(html).toContain(point);
    const history = await cli(['history', 'add', 'merged', '--history', 'h.duckdb']);
    expect(history.stderr).toBe('');
    expect(history.code).toBe(ExitCode.ok);
  }, 30_000);

  it('more shards than points: an empty shard still writes its folder; merge keeps sweep order', async () => {
    const shards = [0, 1, 2, 3, 4].map((index) => `many/shard-${index}-of-5`);
    for (const [index, dir] of shards.entries()) {
      const shard = await runLoad({
        baseUrl: server.url,
        dir,
        cwd,
        concurrency: [1, 2, 3, 4],
        requests: 2,
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
        shard: { index, count: 5, source: '--shard' },
      });
      expect(shard.status).toBe('completed');
      expect(shard.report.results[0]?.cells?.map((c) => c.cell)).toEqual(index < 4 ? [POINTS[index]] : []);
    }
    expect(readdirSync(join(cwd, 'many/shard-4-of-5'))).toContain('matrix.json');
    // Shard folders listed in reverse: the points still come in sweep order.
    const merge = await cli(['merge', ...shards.reverse(), '--out', 'many-merged', '--no-charts']);
    expect(merge.code).toBe(ExitCode.ok);
    expect(cellsOf('many-merged')).toEqual(POINTS);
  });

  it('refuses shards of loads with different settings, naming the flag', async () => {
    await cli(sweep('--out', 'differ', '--shard', '0/2', '--no-charts'));
    await cli(sweep('--out', 'differ', '--shard', '1/2', '--no-charts', '--seed', '7'));
    const merge = await cli(['merge', 'differ', '--out', 'differ-merged']);
    expect(merge.code).toBe(ExitCode.usage);
    expect(merge.stderr).toBe(
      `error: ${messages.loadShardsDiffer(join(cwd, 'differ/shard-0-of-2'), join(cwd, 'differ/shard-1-of-2'), '--seed', '0', '7')}\n`,
    );
    expect(existsSync(join(cwd, 'differ-merged/results.json'))).toBe(false);
  });

  it('refuses a bad shard and --find-max-goodput with a shard: one line, exit 2, naming the flag', async () => {
    const outOfRange = await cli(sweep('--out', 'bad', '--shard', '2/2'));
    expect(outOfRange.code).toBe(ExitCode.usage);
    expect(outOfRange.stderr).toBe(`error: ${messages.badShard('2/2')}\n`);
    expect(outOfRange.stderr).toContain('--shard 0/4');
    const search = await cli([
      'load',
      server.url,
      '--find-max-goodput',
      '--slo',
      'ttft=1s',
      '--requests',
      '4',
      '--shard',
      '0/2',
      '--out',
      'bad',
    ]);
    expect(search.code).toBe(ExitCode.usage);
    expect(search.stderr).toBe(`error: ${messages.loadShardedSearch('--shard')}\n`);
    expect(search.stderr).toContain('--find-max-goodput cannot be sharded');
    const resume = await cli(sweep('--out', 'bad', '--resume'));
    expect(resume.code).toBe(ExitCode.usage);
    expect(resume.stderr).toBe(`error: ${messages.loadResumeWithoutShard()}\n`);
    const before = process.env['JOB_COMPLETION_INDEX'];
    process.env['JOB_COMPLETION_INDEX'] = '1';
    try {
      const env = await cli(sweep('--find-max-goodput', '--slo', 'ttft=1s', '--shards', '2', '--out', 'bad'));
      expect(env.code).toBe(ExitCode.usage);
      expect(env.stderr).toBe(`error: ${messages.loadShardedSearch('JOB_COMPLETION_INDEX')}\n`);
    } finally {
      if (before === undefined) delete process.env['JOB_COMPLETION_INDEX'];
      else process.env['JOB_COMPLETION_INDEX'] = before;
    }
    expect(existsSync(join(cwd, 'bad'))).toBe(false);
  });

  it('a shard cut short is refused by merge unless --allow-partial, and --resume completes it', async () => {
    // The client is stopped while the server holds request 5 (the second point of shard 0 — points 0 and 2 —
    // sends requests 4 to 7), as Ctrl-C would stop it.
    const stop = new AbortController();
    const stopping = await startMockServer({
      ttftMs: 2,
      perTokenMs: 1,
      fault: (n) => {
        if (n === 5) stop.abort();
        return undefined;
      },
    });
    const settings = {
      baseUrl: stopping.url,
      cwd,
      model: 'mock',
      concurrency: [1, 2, 3, 4],
      requests: 4,
      // No warm-up, so that the server's request 5 (after the continuous-usage probe, 0) is in the second point.
      warmup: { requests: 0 },
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
      charts: false,
    } as const;
    try {
      const shard0 = await runLoad({
        ...settings,
        dir: 'partial/shard-0-of-2',
        shard: { index: 0, count: 2, source: '--shard' },
        signal: stop.signal,
      });
      expect(shard0.status).toBe('aborted');
      const shard1 = await runLoad({
        ...settings,
        dir: 'partial/shard-1-of-2',
        shard: { index: 1, count: 2, source: '--shard' },
      });
      expect(shard1.status).toBe('completed');
      expect(runState(join(cwd, 'partial/shard-0-of-2', POINTS[0] as string))).toBe('completed');
      expect(runState(join(cwd, 'partial/shard-0-of-2', POINTS[2] as string))).toBe('unfinished');
      const refused = await cli(['merge', 'partial', '--out', 'partial-merged']);
      expect(refused.code).toBe(ExitCode.usage);
      expect(refused.stderr.split('\n')).toHaveLength(2);
      expect(refused.stderr).toContain('sweep point concurrency=3,rate=inf: unfinished in');
      expect(refused.stderr).toContain('--allow-partial');
      const partial = await cli([
        'merge',
        'partial',
        '--out',
        'partial-merged',
        '--allow-partial',
        '--no-charts',
      ]);
      expect(partial.code).toBe(ExitCode.ok);
      expect(partial.stderr).toContain('missing (--allow-partial): sweep point concurrency=3,rate=inf');
      expect(cellsOf('partial-merged')).toEqual(POINTS);
      expect(runState(join(cwd, 'partial-merged'))).toBe('unfinished');
      // --resume keeps the completed point (its folder untouched) and measures the cut one again.
      const kept = readFileSync(
        join(cwd, 'partial/shard-0-of-2', POINTS[0] as string, 'results.json'),
        'utf8',
      );
      const resumed = await runLoad({
        ...settings,
        dir: 'partial/shard-0-of-2',
        shard: { index: 0, count: 2, source: '--shard' },
        resume: true,
      });
      expect(resumed.status).toBe('completed');
      expect(resumed.report.results[0]?.cells?.map((c) => c.cell)).toEqual([POINTS[0], POINTS[2]]);
      expect(
        readFileSync(join(cwd, 'partial/shard-0-of-2', POINTS[0] as string, 'results.json'), 'utf8'),
      ).toBe(kept);
      const merged = await cli(['merge', 'partial', '--out', 'resumed-merged', '--no-charts']);
      expect(merged.code).toBe(ExitCode.ok);
      expect(runState(join(cwd, 'resumed-merged'))).toBe('completed');
      // A resume with other settings is refused.
      await expect(
        runLoad({
          ...settings,
          requests: 5,
          dir: 'partial/shard-0-of-2',
          shard: { index: 0, count: 2, source: '--shard' },
          resume: true,
        }),
      ).rejects.toThrow(messages.resumeMismatch('partial/shard-0-of-2'));
    } finally {
      await stopping.close();
    }
  }, 20_000);
});
