/**
 * `ResultsHistory` column by column: every column of `runs`, `metrics` and `samples` written by `add` and read back
 * with DuckDB itself (exact values, NULL for what a run does not record, which of two sources wins), the run
 * rebuilt by `report` from them, run lists filtered and ordered at their ties, and a trend's interval when a task
 * metric equals several cells' values of which only some have samples.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../../src/benchmarking/environment.js';
import { ResultsHistory } from '../../../src/benchmarking/history/results-history.js';
import { SuiteReport } from '../../../src/benchmarking/report.js';
import type { BenchmarkResult, MetaValue } from '../../../src/benchmarking/task.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-history-columns-'));

/** Opens history `name`, runs `work`, closes it; gives the path. */
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

const ENV = {
  cpuModel: 'CPU A',
  logicalCpus: 8,
  // 16 GiB and 0.4 byte: rounded down to 16 GiB exactly.
  totalMemoryBytes: 2 ** 34 + 0.4,
  engine: 'env-engine',
  threads: 2,
  timestamp: '2026-01-05T10:00:00.250Z',
  git: { commit: 'env-commit', branch: 'env-branch', dirty: false },
} as unknown as Environment;

const RUNS_COLUMNS = `SELECT run_id, epoch_ms(added_at) AS added, epoch_ms(started_at) AS started, git_commit, git_branch,
  machine, cpu_model, cores, memory_bytes, engine, model, dtype, threads, model_meta::VARCHAR AS meta,
  environment::VARCHAR AS env FROM runs ORDER BY run_id`;

describe('ResultsHistory.add: the runs table', () => {
  it('writes every column: the environment’s git over the source’s, the model’s engine and threads over the environment’s', async () => {
    const meta = { model: 'm', dtype: 'q4', engine: 'meta-engine', threads: 4 };
    const path = await withHistory('runs-columns.duckdb', async (h) => {
      await h.add(new SuiteReport({ runId: 'a', modelMeta: meta, environment: ENV, results: [] }), {
        addedAt: new Date('2026-02-01T00:00:00.125Z'),
        git: { commit: 'source-commit', branch: 'source-branch', dirty: true },
      });
      // Nothing recorded: no environment, an empty model identity, git from the source only.
      await h.add(new SuiteReport({ runId: 'b', modelMeta: {}, results: [] }), {
        addedAt: new Date('2026-02-02T00:00:00.000Z'),
        git: { commit: 'source-commit', branch: 'source-branch', dirty: true },
      });
      // Not even git.
      await h.add(new SuiteReport({ runId: 'c', modelMeta: {}, results: [] }), {
        addedAt: new Date('2026-02-03T00:00:00.000Z'),
      });
      // The environment's engine and threads when the model names none.
      await h.add(new SuiteReport({ runId: 'd', modelMeta: { model: 'm' }, environment: ENV, results: [] }), {
        addedAt: new Date('2026-02-04T00:00:00.000Z'),
      });
      expect(await h.runs()).toEqual([
        {
          runId: 'a',
          addedAt: '2026-02-01T00:00:00.125Z',
          startedAt: '2026-01-05T10:00:00.250Z',
          gitCommit: 'env-commit',
          gitBranch: 'env-branch',
          machine: 'CPU A · 8 CPUs · 16 GiB',
          model: 'm',
          engine: 'meta-engine',
          dtype: 'q4',
          threads: 4,
        },
        {
          runId: 'd',
          addedAt: '2026-02-04T00:00:00.000Z',
          startedAt: '2026-01-05T10:00:00.250Z',
          gitCommit: 'env-commit',
          gitBranch: 'env-branch',
          machine: 'CPU A · 8 CPUs · 16 GiB',
          model: 'm',
          engine: 'env-engine',
          dtype: null,
          threads: 2,
        },
        {
          runId: 'b',
          addedAt: '2026-02-02T00:00:00.000Z',
          startedAt: null,
          gitCommit: 'source-commit',
          gitBranch: 'source-branch',
          machine: 'unknown machine',
          model: null,
          engine: null,
          dtype: null,
          threads: null,
        },
        {
          runId: 'c',
          addedAt: '2026-02-03T00:00:00.000Z',
          startedAt: null,
          gitCommit: null,
          gitBranch: null,
          machine: 'unknown machine',
          model: null,
          engine: null,
          dtype: null,
          threads: null,
        },
      ]);
    });
    const rows = await query(path, RUNS_COLUMNS);
    expect(rows.map(({ meta: m, env, ...r }) => r)).toEqual([
      {
        run_id: 'a',
        added: BigInt(Date.parse('2026-02-01T00:00:00.125Z')),
        started: BigInt(Date.parse('2026-01-05T10:00:00.250Z')),
        git_commit: 'env-commit',
        git_branch: 'env-branch',
        machine: 'CPU A · 8 CPUs · 16 GiB',
        cpu_model: 'CPU A',
        cores: 8,
        memory_bytes: 2n ** 34n,
        engine: 'meta-engine',
        model: 'm',
        dtype: 'q4',
        threads: 4,
      },
      {
        run_id: 'b',
        added: BigInt(Date.parse('2026-02-02T00:00:00.000Z')),
        started: null,
        git_commit: 'source-commit',
        git_branch: 'source-branch',
        machine: 'unknown machine',
        cpu_model: null,
        cores: null,
        memory_bytes: null,
        engine: null,
        model: null,
        dtype: null,
        threads: null,
      },
      {
        run_id: 'c',
        added: BigInt(Date.parse('2026-02-03T00:00:00.000Z')),
        started: null,
        git_commit: null,
        git_branch: null,
        machine: 'unknown machine',
        cpu_model: null,
        cores: null,
        memory_bytes: null,
        engine: null,
        model: null,
        dtype: null,
        threads: null,
      },
      {
        run_id: 'd',
        added: BigInt(Date.parse('2026-02-04T00:00:00.000Z')),
        started: BigInt(Date.parse('2026-01-05T10:00:00.250Z')),
        git_commit: 'env-commit',
        git_branch: 'env-branch',
        machine: 'CPU A · 8 CPUs · 16 GiB',
        cpu_model: 'CPU A',
        cores: 8,
        memory_bytes: 2n ** 34n,
        engine: 'env-engine',
        model: 'm',
        dtype: null,
        threads: 2,
      },
    ]);
    expect(rows.map((r) => JSON.parse(String(r['meta'])))).toEqual([meta, {}, {}, { model: 'm' }]);
    expect(rows.map((r) => (r['env'] === null ? null : JSON.parse(String(r['env']))))).toEqual([
      JSON.parse(JSON.stringify(ENV)),
      null,
      null,
      JSON.parse(JSON.stringify(ENV)),
    ]);
  });

  it('without addedAt, records the time of the add', async () => {
    const path = await withHistory('added-now.duckdb', async (h) => {
      const before = Date.now();
      await h.add(new SuiteReport({ runId: 'now', modelMeta: {}, results: [] }));
      const after = Date.now();
      const [listed] = await h.runs();
      const added = Date.parse(listed?.addedAt ?? '');
      expect(added).toBeGreaterThanOrEqual(before);
      expect(added).toBeLessThanOrEqual(after);
    });
    expect(await query(path, 'SELECT count(*)::INTEGER AS n FROM runs')).toEqual([{ n: 1 }]);
  });
});

describe('ResultsHistory.add: the metrics and samples tables', () => {
  const results: BenchmarkResult[] = [
    {
      task: 't1',
      metrics: { score: 2, custom: 7, nan: Number.NaN },
      cells: [
        {
          task: 't1',
          cell: 'c1',
          phase: 'decode',
          status: 'completed',
          metrics: { p50_ms: 1.5 },
          samplesMs: [1, 1.5, 2.25],
        },
        { task: 't1', cell: 'c2', phase: 'prefill', status: 'failed', error: 'boom', metrics: {} },
      ],
    },
    { task: 't2', status: 'failed', error: 'no data', metrics: {} },
  ];
  const report = new SuiteReport({
    runId: 'r',
    modelMeta: { model: 'tiny' },
    results,
    descriptors: [{ key: 'score', unit: 'pts', description: 'a score', higherIsBetter: false }],
    environment: ENV,
  });

  it('one row per metric, a row for a task or cell without metrics, in order; samples only where there are some', async () => {
    const path = await withHistory('metrics.duckdb', async (h) => {
      expect(await h.add(report)).toEqual({ status: 'added', runId: 'r' });
    });
    const none = { unit: null, higher_is_better: null, description: null };
    const task = { run_id: 'r', cell: null, phase: null, error: null };
    expect(await query(path, 'SELECT * FROM metrics ORDER BY seq')).toEqual([
      {
        ...task,
        task: 't1',
        status: 'completed',
        metric: 'score',
        value: 2,
        ...{ unit: 'pts' },
        higher_is_better: false,
        description: 'a score',
        seq: 0,
      },
      { ...task, task: 't1', status: 'completed', metric: 'custom', value: 7, ...none, seq: 1 },
      { ...task, task: 't1', status: 'completed', metric: 'nan', value: null, ...none, seq: 2 },
      {
        run_id: 'r',
        task: 't1',
        cell: 'c1',
        phase: 'decode',
        status: 'completed',
        error: null,
        metric: 'p50_ms',
        value: 1.5,
        unit: 'ms',
        higher_is_better: false,
        description: 'Median wall time of one timed call.',
        seq: 3,
      },
      {
        run_id: 'r',
        task: 't1',
        cell: 'c2',
        phase: 'prefill',
        status: 'failed',
        error: 'boom',
        metric: null,
        value: null,
        ...none,
        seq: 4,
      },
      { ...task, task: 't2', status: 'failed', error: 'no data', metric: null, value: null, ...none, seq: 5 },
    ]);
    expect(await query(path, 'SELECT * FROM samples')).toEqual([
      { run_id: 'r', task: 't1', cell: 'c1', samples_ms: [1, 1.5, 2.25] },
    ]);
  });

  it('report gives the run back: default status, no samples where none, descriptors of the task metrics with a unit, the environment', async () => {
    await withHistory('report-back.duckdb', async (h) => {
      await h.add(report);
      const back = (await h.report('r')) as SuiteReport;
      expect(back.results).toEqual([
        { ...results[0], status: 'completed', metrics: { score: 2, custom: 7, nan: Number.NaN } },
        results[1],
      ]);
      expect(back.results[0]?.cells?.[1]).not.toHaveProperty('samplesMs');
      expect(back.results[0]?.cells?.[1]).toHaveProperty('error', 'boom');
      expect(back.results[0]?.cells?.[0]).not.toHaveProperty('error');
      expect(back.results[0]).not.toHaveProperty('error');
      expect(back.descriptors).toEqual([
        { key: 'score', unit: 'pts', description: 'a score', higherIsBetter: false },
      ]);
      expect(back.environment).toEqual(JSON.parse(JSON.stringify(ENV)));
      expect(back.modelMeta).toEqual({ model: 'tiny' });
    });
  });

  it('the same metric in two tasks: one descriptor, from the first', async () => {
    await withHistory('two-tasks.duckdb', async (h) => {
      await h.add(
        new SuiteReport({
          runId: 'two',
          modelMeta: {},
          results: [
            { task: 'x', metrics: { score: 1 } },
            { task: 'y', metrics: { score: 2 } },
          ],
          descriptors: [{ key: 'score', unit: 'pts', description: '', higherIsBetter: true }],
        }),
      );
      const back = (await h.report('two')) as SuiteReport;
      expect(back.results.map((r) => [r.task, r.metrics])).toEqual([
        ['x', { score: 1 }],
        ['y', { score: 2 }],
      ]);
      expect(back.descriptors).toEqual([
        { key: 'score', unit: 'pts', description: '', higherIsBetter: true },
      ]);
    });
  });
});

describe('ResultsHistory.add: start times', () => {
  /** A run `id` whose environment says it started at `timestamp`. */
  const started = (id: string, timestamp: string): SuiteReport =>
    new SuiteReport({
      runId: id,
      modelMeta: {},
      results: [{ task: 't', metrics: { x: 1 } }],
      environment: { ...ENV, timestamp },
    });

  it('a start time in another format than ISO 8601 is stored as the instant it names; one that is no time, as unknown', async () => {
    await withHistory('timestamps.duckdb', async (h) => {
      expect(await h.add(started('rfc', 'Mon, 05 Jan 2026 09:00:00 GMT'))).toEqual({
        status: 'added',
        runId: 'rfc',
      });
      expect(await h.add(started('offset', '2026-01-05T12:00:00+02:00'))).toEqual({
        status: 'added',
        runId: 'offset',
      });
      expect(await h.add(started('junk', 'yesterday'))).toEqual({ status: 'added', runId: 'junk' });
      // The same runs again are found as they were stored.
      expect(await h.add(started('rfc', 'Mon, 05 Jan 2026 09:00:00 GMT'))).toEqual({
        status: 'exists',
        runId: 'rfc',
      });
      expect(await h.add(started('offset', '2026-01-05T10:00:00Z'))).toEqual({
        status: 'exists',
        runId: 'offset',
      });
      expect(await h.add(started('junk', 'yesterday'))).toEqual({ status: 'exists', runId: 'junk' });
      const runs = await h.runs();
      expect(runs.map((r) => [r.runId, r.startedAt])).toEqual([
        ['rfc', '2026-01-05T09:00:00.000Z'],
        ['offset', '2026-01-05T10:00:00.000Z'],
        ['junk', null],
      ]);
      // The environment block keeps what the run wrote.
      expect((await h.report('rfc'))?.environment?.timestamp).toBe('Mon, 05 Jan 2026 09:00:00 GMT');
      expect((await h.report('junk'))?.environment?.timestamp).toBe('yesterday');
    });
  });

  it('a start time one millisecond off is another run of the same id', async () => {
    await withHistory('one-ms.duckdb', async (h) => {
      expect(await h.add(started('s', '2026-01-05T10:00:00.000Z'))).toEqual({ status: 'added', runId: 's' });
      expect(await h.add(started('s', '2026-01-05T10:00:00.001Z'))).toEqual({
        status: 'added',
        runId: 's-2',
      });
      expect(await h.add(started('s', '2026-01-05T09:59:59.999Z'))).toEqual({
        status: 'added',
        runId: 's-3',
      });
      expect(await h.add(started('s', '2026-01-05T10:00:00.001Z'))).toEqual({
        status: 'exists',
        runId: 's-2',
      });
      // Listed by start time, not by id.
      expect((await h.runs()).map((r) => r.runId)).toEqual(['s-3', 's', 's-2']);
    });
  });
});

describe('ResultsHistory.runs: filters and ties', () => {
  it('filters by model and machine together; ties in start time go by time added, then run id', async () => {
    const env = (cpuModel: string, timestamp: string) => ({ ...ENV, cpuModel, timestamp });
    const mk = (id: string, meta: Record<string, MetaValue>, e?: Environment) =>
      new SuiteReport({
        runId: id,
        modelMeta: meta,
        results: [],
        ...(e === undefined ? {} : { environment: e }),
      });
    const t = '2026-01-05T10:00:00.000Z';
    await withHistory('filters.duckdb', async (h) => {
      const added = (iso: string) => ({ addedAt: new Date(iso) });
      await h.add(mk('y', { model: 'm' }, env('CPU A', t)), added('2026-02-01T00:00:00Z'));
      await h.add(mk('x', { model: 'm' }, env('CPU A', t)), added('2026-02-01T00:00:00Z'));
      await h.add(mk('w', { model: 'm' }, env('CPU A', t)), added('2026-01-31T00:00:00Z'));
      await h.add(mk('other-cpu', { model: 'm' }, env('CPU B', t)), added('2026-02-01T00:00:00Z'));
      await h.add(mk('other-model', { model: 'n' }, env('CPU A', t)), added('2026-02-01T00:00:00Z'));
      await h.add(mk('no-model', {}, env('CPU A', t)), added('2026-02-01T00:00:00Z'));
      const ids = async (filter = {}) => (await h.runs(filter)).map((r) => r.runId);
      expect(await ids()).toEqual(['w', 'no-model', 'other-cpu', 'other-model', 'x', 'y']);
      expect(await ids({ model: 'm' })).toEqual(['w', 'other-cpu', 'x', 'y']);
      expect(await ids({ model: 'm', machine: 'CPU A · 8 CPUs · 16 GiB' })).toEqual(['w', 'x', 'y']);
      expect(await ids({ machine: 'CPU B · 8 CPUs · 16 GiB' })).toEqual(['other-cpu']);
      expect(await ids({ model: 'n', machine: 'CPU B · 8 CPUs · 16 GiB' })).toEqual([]);
      expect(await ids({ model: 'M' })).toEqual([]);
    });
  });
});

describe('ResultsHistory.trend: intervals', () => {
  /** Cell `id` of task `task` with p50_ms `p50`, with samples or without. */
  const cell = (task: string, id: string, p50: number, samplesMs?: number[]) => ({
    task,
    cell: id,
    phase: 'decode',
    status: 'completed' as const,
    metrics: { p50_ms: p50 },
    ...(samplesMs === undefined ? {} : { samplesMs }),
  });
  const samples = [4, 4.5, 5, 5.5, 6, 5, 4.8, 5.2];

  it('a task metric equal to several cells’ values takes its interval from the cell with samples, whatever the order', async () => {
    const results: BenchmarkResult[] = [
      // The cell with samples between, first and last among cells of the same value.
      {
        task: 'mid',
        metrics: { p50_ms: 5 },
        cells: [cell('mid', 'a', 5), cell('mid', 's', 5, samples), cell('mid', 'b', 5)],
      },
      {
        task: 'first',
        metrics: { p50_ms: 5 },
        cells: [cell('first', 's', 5, samples), cell('first', 'a', 5)],
      },
      { task: 'last', metrics: { p50_ms: 5 }, cells: [cell('last', 'a', 5), cell('last', 's', 5, samples)] },
      // One cell with samples whose std_ms equals the value too (no interval from that statistic), before or
      // after its p50_ms.
      {
        task: 'std-first',
        metrics: { p50_ms: 5 },
        cells: [{ ...cell('std-first', 's', 5, samples), metrics: { std_ms: 5, p50_ms: 5 } }],
      },
      {
        task: 'std-last',
        metrics: { p50_ms: 5 },
        cells: [{ ...cell('std-last', 's', 5, samples), metrics: { p50_ms: 5, std_ms: 5 } }],
      },
      // No cell of the same value: no interval.
      { task: 'alone', metrics: { p50_ms: 5 }, cells: [cell('alone', 's', 7, samples)] },
    ];
    await withHistory('trend-ci.duckdb', async (h) => {
      await h.add(new SuiteReport({ runId: 'r', modelMeta: {}, results }));
      const ofCell = await h.trend('p50_ms', { cell: 's', task: 'mid' });
      expect(ofCell).toHaveLength(1);
      const ci = ofCell[0]?.ci as [number, number];
      expect(ci[0]).toBeLessThan(5);
      expect(ci[1]).toBeGreaterThan(5);
      const trend = await h.trend('p50_ms');
      expect(trend.map((p) => [p.task, p.cell, p.value, p.ci])).toEqual([
        ['alone', null, 5, [Number.NaN, Number.NaN]],
        ['first', null, 5, ci],
        ['last', null, 5, ci],
        ['mid', null, 5, ci],
        ['std-first', null, 5, ci],
        ['std-last', null, 5, ci],
      ]);
      // The cells without samples: no interval.
      expect((await h.trend('p50_ms', { cell: 'a' })).map((p) => [p.task, p.ci])).toEqual([
        ['first', [Number.NaN, Number.NaN]],
        ['last', [Number.NaN, Number.NaN]],
        ['mid', [Number.NaN, Number.NaN]],
      ]);
      // Seeded: the same interval again.
      expect((await h.trend('p50_ms', { cell: 's', task: 'mid' }, 0))[0]?.ci).toEqual(ci);
    });
  });

  it('a samples row that is empty (written by another tool) gives no interval', async () => {
    const path = join(dir, 'empty-samples.duckdb');
    await withHistory('empty-samples.duckdb', async (h) => {
      await h.add(
        new SuiteReport({
          runId: 'r',
          modelMeta: {},
          results: [{ task: 't', metrics: {}, cells: [cell('t', 'c', 5)] }],
        }),
      );
    });
    await query(path, "INSERT INTO samples VALUES ('r', 't', 'c', []::DOUBLE[])");
    await withHistory('empty-samples.duckdb', async (h) => {
      expect((await h.trend('p50_ms', { cell: 'c' })).map((p) => [p.value, p.ci])).toEqual([
        [5, [Number.NaN, Number.NaN]],
      ]);
    });
  });
});
