/**
 * `ResultsHistory` by known answers on small hand-built runs: what the `runs` table holds (read with DuckDB itself),
 * a stored run rebuilt field for field (a failed task and a failed cell with their errors, a value that is not
 * finite, empty samples, descriptors), the same run found again when one start time is unknown, earlier runs taken
 * by start time when run ids and the order of adding sort otherwise, and a trend's points and filters.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../../src/benchmarking/environment.js';
import { ResultsHistory } from '../../../src/benchmarking/history/results-history.js';
import { SuiteReport } from '../../../src/benchmarking/report.js';
import type { BenchmarkResult, MetaValue, MetricDescriptor } from '../../../src/benchmarking/task.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-history-tables-'));

/** 16 GiB and a fraction that is not a half: stored rounded to the nearest byte. */
const ENV = {
  cpuModel: 'Test CPU',
  logicalCpus: 4,
  totalMemoryBytes: 16 * 2 ** 30 + 0.6,
  engine: 'env-engine',
  threads: 3,
} as unknown as Environment;
const MACHINE = 'Test CPU · 4 CPUs · 16 GiB';

const at = (day: number): string => `2026-01-${String(day).padStart(2, '0')}T10:00:00.000Z`;

/** Run `runId` started on 2026-01-<day> (no environment when `day` is undefined). */
function run(
  runId: string,
  day: number | undefined,
  modelMeta: Record<string, MetaValue> = { model: 'tiny' },
  options: { env?: Environment; results?: BenchmarkResult[]; descriptors?: MetricDescriptor[] } = {},
): SuiteReport {
  return new SuiteReport({
    runId,
    modelMeta,
    descriptors: options.descriptors ?? [],
    results: options.results ?? [{ task: 'throughput', metrics: { tps_seq16: 100 } }],
    ...(day === undefined ? {} : { environment: { ...(options.env ?? ENV), timestamp: at(day) } }),
  });
}

/** Opens history `name` of this file's folder, runs `work`, closes it. */
async function withHistory(name: string, work: (h: ResultsHistory) => Promise<void>): Promise<string> {
  const path = join(dir, name);
  const h = await ResultsHistory.open(path);
  try {
    await work(h);
  } finally {
    h.close();
  }
  return path;
}

/** The rows of `sql` on the file at `path`, read with DuckDB itself. */
async function query(path: string, sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(path);
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

describe('ResultsHistory runs', () => {
  it("records the environment's machine, engine and threads when the model does not name them, memory rounded", async () => {
    const path = await withHistory('runs.duckdb', async (h) => {
      await h.add(run('with-env', 1, { model: 'tiny', dtype: 'q8' }), {
        addedAt: new Date('2026-02-01T08:30:00.000Z'),
      });
      await h.add(run('bare', undefined, { model: 'tiny', engine: 'meta-engine', threads: 1 }), {
        addedAt: new Date('2026-02-02T08:30:00.000Z'),
        git: { commit: 'c0ffee', branch: 'main', dirty: false },
      });
      expect(await h.runs()).toEqual([
        {
          runId: 'with-env',
          addedAt: '2026-02-01T08:30:00.000Z',
          startedAt: at(1),
          gitCommit: null,
          gitBranch: null,
          machine: MACHINE,
          model: 'tiny',
          engine: 'env-engine',
          dtype: 'q8',
          threads: 3,
        },
        {
          runId: 'bare',
          addedAt: '2026-02-02T08:30:00.000Z',
          startedAt: null,
          gitCommit: 'c0ffee',
          gitBranch: 'main',
          machine: 'unknown machine',
          model: 'tiny',
          engine: 'meta-engine',
          dtype: null,
          threads: 1,
        },
      ]);
    });
    expect(
      await query(
        path,
        'SELECT run_id, cpu_model, cores, memory_bytes, environment IS NULL AS no_env FROM runs ORDER BY run_id',
      ),
    ).toEqual([
      { run_id: 'bare', cpu_model: null, cores: null, memory_bytes: null, no_env: true },
      { run_id: 'with-env', cpu_model: 'Test CPU', cores: 4, memory_bytes: 17179869185n, no_env: false },
    ]);
  });

  it('finds the same run again when one of the two start times is unknown; another run of a taken id is <id>-2', async () => {
    await withHistory('again.duckdb', async (h) => {
      const addedAt = new Date('2026-03-01T00:00:00.000Z');
      expect(await h.add(run('bare', undefined), { addedAt })).toEqual({ status: 'added', runId: 'bare' });
      expect(await h.add(run('bare', 5))).toEqual({ status: 'exists', runId: 'bare' });
      expect(await h.add(run('timed', 5))).toEqual({ status: 'added', runId: 'timed' });
      expect(await h.add(run('timed', undefined))).toEqual({ status: 'exists', runId: 'timed' });
      expect(await h.add(run('timed', 6))).toEqual({ status: 'added', runId: 'timed-2' });
      expect(await h.add(run('timed', 6))).toEqual({ status: 'exists', runId: 'timed-2' });
      expect((await h.runs()).map((r) => r.runId)).toEqual(['timed', 'timed-2', 'bare']);
    });
  });
});

describe('ResultsHistory report', () => {
  it('gives a stored run back field for field: failed task and cell, a value that is not finite, no empty samples', async () => {
    const results: BenchmarkResult[] = [
      {
        task: 'throughput',
        status: 'completed',
        metrics: { score: 3.5, loss: Number.POSITIVE_INFINITY },
        cells: [
          {
            task: 'throughput',
            cell: 'decode@16',
            phase: 'decode',
            status: 'completed',
            metrics: { p50_ms: 2 },
            samplesMs: [1, 2, 3],
          },
          {
            task: 'throughput',
            cell: 'decode@32',
            phase: 'decode',
            status: 'failed',
            error: 'out of memory',
            metrics: {},
            samplesMs: [],
          },
        ],
      },
      { task: 'perplexity', status: 'failed', error: 'no data', metrics: {} },
    ];
    const original = new SuiteReport({
      runId: 'r1',
      modelMeta: { model: 'tiny', threads: 2 },
      results,
      descriptors: [
        { key: 'score', unit: 'pts', description: 'a score', higherIsBetter: true },
        { key: 'loss', unit: 'nats', description: '' },
      ],
    });
    await withHistory('report.duckdb', async (h) => {
      await h.add(original);
      const back = (await h.report('r1')) as SuiteReport;
      const [throughput, perplexity] = results;
      expect(back.results).toEqual([
        {
          ...throughput,
          // Not finite: stored as no value.
          metrics: { score: 3.5, loss: Number.NaN },
          cells: [
            throughput?.cells?.[0],
            {
              task: 'throughput',
              cell: 'decode@32',
              phase: 'decode',
              status: 'failed',
              error: 'out of memory',
              metrics: {},
            },
          ],
        },
        perplexity,
      ]);
      expect(back.results[1]).not.toHaveProperty('cells');
      expect(back.results[0]?.cells?.[1]).not.toHaveProperty('samplesMs');
      expect(back.modelMeta).toEqual({ model: 'tiny', threads: 2 });
      expect(back.environment).toBeUndefined();
      expect(back.runId).toBe('r1');
      expect(back.descriptors).toEqual(original.descriptors);
      expect(back.descriptors[1]).not.toHaveProperty('higherIsBetter');
    });
  });
});

describe('ResultsHistory earlier runs', () => {
  it('takes them by start time, latest first, whatever their ids and the order they were added in', async () => {
    const fp32 = { model: 'tiny', dtype: 'fp32' };
    const other = { env: { ...ENV, cpuModel: 'Other CPU' } };
    await withHistory('earlier.duckdb', async (h) => {
      // Added out of time order; ids sort otherwise too (z started first).
      await h.add(run('m', 7, fp32));
      await h.add(run('a', 3, fp32));
      await h.add(run('other-model', 6, { model: 'small', dtype: 'fp32' }));
      await h.add(run('z', 1, fp32));
      await h.add(run('k', 5, { model: 'tiny', dtype: 'q4' }));
      await h.add(run('other-machine', 4, fp32, other));
      expect((await h.runs()).map((r) => r.runId)).toEqual([
        'z',
        'a',
        'other-machine',
        'k',
        'other-model',
        'm',
      ]);
      expect((await h.runs({ model: 'small' })).map((r) => r.runId)).toEqual(['other-model']);
      expect((await h.runs({ machine: 'Other CPU · 4 CPUs · 16 GiB' })).map((r) => r.runId)).toEqual([
        'other-machine',
      ]);
      expect(await h.previousRuns('m', 5)).toEqual(['a', 'z']);
      expect(await h.previousRuns('m', 1)).toEqual(['a']);
      expect(await h.previousRun('m')).toBe('a');
      expect(await h.nearestRun('m')).toEqual({
        runId: 'k',
        differences: [{ field: 'dtype', baseline: 'q4', candidate: 'fp32' }],
      });
      expect(await h.previousRuns('z', 5)).toEqual([]);
      expect(await h.previousRuns('nope', 5)).toEqual([]);
      expect(await h.nearestRun('nope')).toBeUndefined();
    });
  });
});

describe('ResultsHistory trend', () => {
  it('gives one point per run and task: start time (else when added), commit, variant, unit; filtered by task, machine, model', async () => {
    const results: BenchmarkResult[] = [
      { task: 'throughput', metrics: { tps_seq16: 100, score: 1 } },
      { task: 'latency', metrics: { score: 2 } },
    ];
    const descriptors = [{ key: 'tps_seq16', unit: 'tok/s', description: 'tokens per second' }];
    await withHistory('trend.duckdb', async (h) => {
      await h.add(run('r1', 1, { model: 'tiny', dtype: 'q8', threads: 2 }, { results, descriptors }), {
        git: { commit: 'c1', branch: 'main', dirty: false },
      });
      await h.add(run('r2', undefined, { model: 'tiny' }, { results, descriptors }), {
        addedAt: new Date('2026-02-01T00:00:00.000Z'),
      });
      const nan = [Number.NaN, Number.NaN];
      expect(await h.trend('tps_seq16')).toEqual([
        {
          runId: 'r1',
          time: at(1),
          gitCommit: 'c1',
          model: 'tiny',
          variant: 'q8 · 2 threads',
          machine: MACHINE,
          task: 'throughput',
          cell: null,
          value: 100,
          unit: 'tok/s',
          ci: nan,
        },
        {
          runId: 'r2',
          time: '2026-02-01T00:00:00.000Z',
          gitCommit: null,
          model: 'tiny',
          variant: '',
          machine: 'unknown machine',
          task: 'throughput',
          cell: null,
          value: 100,
          unit: 'tok/s',
          ci: nan,
        },
      ]);
      const points = async (metric: string, filter = {}) =>
        (await h.trend(metric, filter)).map((p) => `${p.runId} ${p.task} ${p.value}`);
      expect(await points('score')).toEqual([
        'r1 latency 2',
        'r1 throughput 1',
        'r2 latency 2',
        'r2 throughput 1',
      ]);
      expect(await points('score', { task: 'latency' })).toEqual(['r1 latency 2', 'r2 latency 2']);
      expect(await points('score', { machine: 'unknown machine' })).toEqual([
        'r2 latency 2',
        'r2 throughput 1',
      ]);
      expect(await points('score', { model: 'small' })).toEqual([]);
    });
  });
});
