import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compareReports,
  type Environment,
  HISTORY_SCHEMA_VERSION,
  ResultsHistory,
  SuiteReport,
} from '../../../src/benchmarking/index.js';
import { DantinoxError } from '../../../src/errors.js';
import { type FakeRunOptions, fakeRun } from '../compare/fake-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-history-'));
const DUCKDB = createRequire(import.meta.url).resolve('@duckdb/node-api');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

const ENV = {
  cpuModel: 'Test CPU 9000',
  logicalCpus: 2,
  totalMemoryBytes: 8 * 2 ** 30,
  engine: 'onnxruntime-node 1.30.0',
  threads: 2,
} as unknown as Environment;

/** A fake run with an environment block starting at `day` (2026-01-<day>). */
function run(day: number, options: Omit<FakeRunOptions, 'seed'> & { seed?: number } = {}): SuiteReport {
  const r = fakeRun({ seed: day, runId: `run-${day}`, ...options });
  return new SuiteReport({
    results: r.results,
    modelMeta: r.modelMeta,
    runId: r.runId as string,
    descriptors: r.descriptors,
    environment: { ...ENV, timestamp: `2026-01-${String(day).padStart(2, '0')}T10:00:00.000Z` },
  });
}

async function expectIoError(promise: Promise<unknown>, text: string | RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DantinoxError);
  expect((error as DantinoxError).code).toBe('IO');
  expect((error as Error).message).toMatch(text);
}

/** Runs a Node child that opens `path` with DuckDB, runs `sql`, prints `ready`, then waits `holdMs`. */
function holder(path: string, sql: string[], holdMs: number): Promise<ChildProcess> {
  const script = `
    import { DuckDBInstance } from ${JSON.stringify(DUCKDB)};
    const db = await DuckDBInstance.create(${JSON.stringify(path)});
    const c = await db.connect();
    for (const s of ${JSON.stringify(sql)}) await c.run(s);
    console.log('ready');
    await new Promise((r) => setTimeout(r, ${holdMs}));
    c.closeSync(); db.closeSync();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
}

describe('ResultsHistory', () => {
  it('records the commit the run measured (its environment), not the one of the directory it is added from', async () => {
    const history = await ResultsHistory.open(join(dir, 'git.duckdb'));
    try {
      const measured = run(7);
      const withGit = new SuiteReport({
        results: measured.results,
        modelMeta: measured.modelMeta,
        runId: 'measured-at-abc',
        environment: {
          ...(measured.environment as Environment),
          git: { commit: 'abc', branch: 'feature', dirty: true },
        },
      });
      await history.add(withGit, { git: { commit: 'cwd-commit', branch: 'main', dirty: false } });
      const [listed] = await history.runs();
      expect(listed).toMatchObject({ runId: 'measured-at-abc', gitCommit: 'abc', gitBranch: 'feature' });
    } finally {
      history.close();
    }
  });

  it('stores a run and gives it back: the rebuilt report compares equal to the original', async () => {
    const path = join(dir, 'roundtrip.duckdb');
    const history = await ResultsHistory.open(path);
    try {
      const original = run(1);
      expect(
        await history.add(original, { git: { commit: 'abc123', branch: 'main', dirty: false } }),
      ).toEqual({ status: 'added', runId: 'run-1' });
      expect(await history.add(original)).toEqual({ status: 'exists', runId: 'run-1' });
      const [listed] = await history.runs();
      expect(listed).toMatchObject({
        runId: 'run-1',
        gitCommit: 'abc123',
        gitBranch: 'main',
        machine: 'Test CPU 9000 · 2 CPUs · 8 GiB',
        model: 'tiny',
        engine: 'onnxruntime',
        startedAt: '2026-01-01T10:00:00.000Z',
      });
      const back = (await history.report('run-1')) as SuiteReport;
      expect(back.results.map((r) => r.task)).toEqual(['throughput', 'latency', 'perplexity']);
      expect(back.results[0]?.cells?.[0]?.samplesMs).toEqual(original.results[0]?.cells?.[0]?.samplesMs);
      const c = compareReports(original, back);
      expect(c.unmatched).toEqual([]);
      expect(c.rows.every((r) => r.change === 0)).toBe(true);
      expect(c.rows.find((r) => r.metric === 'tps_seq16')?.higherIsBetter).toBe(true);
      expect(await history.report('nope')).toBeUndefined();
    } finally {
      history.close();
    }
  });

  it('keeps two runs that got the same id (started within one second) apart: the later is stored as <id>-2', async () => {
    const history = await ResultsHistory.open(join(dir, 'same-id.duckdb'));
    /** Run `day` under the id `tiny-run-1`, started at 10:00:00 plus `ms`. */
    const at = (day: number, ms: number): SuiteReport => {
      const r = run(day);
      const timestamp = new Date(Date.parse('2026-01-01T10:00:00.000Z') + ms).toISOString();
      return new SuiteReport({
        results: r.results,
        modelMeta: r.modelMeta,
        runId: 'tiny-run-1',
        descriptors: r.descriptors,
        environment: { ...ENV, timestamp },
      });
    };
    try {
      expect(await history.add(at(1, 0))).toEqual({ status: 'added', runId: 'tiny-run-1' });
      expect(await history.add(at(2, 400))).toEqual({ status: 'added', runId: 'tiny-run-1-2' });
      expect(await history.add(at(3, 900))).toEqual({ status: 'added', runId: 'tiny-run-1-3' });
      // Each is found again under the id it got, whatever the order it is added in again.
      expect(await history.add(at(3, 900))).toEqual({ status: 'exists', runId: 'tiny-run-1-3' });
      expect(await history.add(at(2, 400))).toEqual({ status: 'exists', runId: 'tiny-run-1-2' });
      expect(await history.add(at(1, 0))).toEqual({ status: 'exists', runId: 'tiny-run-1' });
      expect((await history.runs()).map((r) => r.runId)).toEqual([
        'tiny-run-1',
        'tiny-run-1-2',
        'tiny-run-1-3',
      ]);
      expect(await history.previousRun('tiny-run-1-3')).toBe('tiny-run-1-2');
    } finally {
      history.close();
    }
  });

  it('gives a trend with sample intervals and the previous run of the same model on the same machine', async () => {
    const history = await ResultsHistory.open(join(dir, 'trend.duckdb'));
    try {
      await history.add(run(3, { slowdown: 1.2 }));
      await history.add(run(1));
      await history.add(run(2, { slowdown: 1.1 }));
      await history.add(run(4, { modelMeta: { model: 'other' } }));
      const trend = await history.trend('tps_seq16', { model: 'tiny' });
      expect(trend.map((p) => p.runId)).toEqual(['run-1', 'run-2', 'run-3']);
      expect(trend[0]!.value).toBeGreaterThan(trend[2]!.value);
      for (const p of trend) {
        expect(p.ci[0]).toBeLessThan(p.value);
        expect(p.ci[1]).toBeGreaterThan(p.value);
        expect(p.unit).toBe('tok/s');
      }
      const perplexity = await history.trend('perplexity');
      expect(perplexity).toHaveLength(4);
      expect(perplexity.every((p) => Number.isNaN(p.ci[0]))).toBe(true);
      const cell = await history.trend('p99_ms', { cell: 'decode@32' });
      expect(cell).toHaveLength(4);
      expect(await history.previousRun('run-3')).toBe('run-2');
      expect(await history.previousRun('run-1')).toBeUndefined();
      expect(await history.previousRun('run-4')).toBeUndefined();
    } finally {
      history.close();
    }
  });

  it('migrates a version-1 file to the current schema, keeping its runs', async () => {
    const path = join(dir, 'v1.duckdb');
    const v1 = await ResultsHistory.open(path, { schemaVersion: 1 });
    expect(await v1.schemaVersion()).toBe(1);
    await v1.add(run(1, { withoutSamples: true }));
    v1.close();
    await expectIoError(
      ResultsHistory.open(path, { readOnly: true }),
      /schema version 1 and needs migrating/,
    );
    const now = await ResultsHistory.open(path);
    try {
      expect(await now.schemaVersion()).toBe(HISTORY_SCHEMA_VERSION);
      expect((await now.runs()).map((r) => r.runId)).toEqual(['run-1']);
      await now.add(run(2));
      expect((await now.report('run-2'))?.results[0]?.cells?.[0]?.samplesMs).toHaveLength(30);
    } finally {
      now.close();
    }
  });

  it('refuses a file of a newer schema, a directory and a file that is not DuckDB, with one clear message', async () => {
    const path = join(dir, 'future.duckdb');
    (await ResultsHistory.open(path)).close();
    const raw = await DuckDBInstance.create(path);
    const c = await raw.connect();
    await c.run('UPDATE dantinox_schema SET version = 99');
    c.closeSync();
    raw.closeSync();
    await expectIoError(
      ResultsHistory.open(path),
      `schema version 99; this dantinox reads versions up to ${HISTORY_SCHEMA_VERSION}`,
    );
    await expectIoError(ResultsHistory.open(dir), /is a directory/);
    writeFileSync(join(dir, 'text.duckdb'), 'not a database, just some text that is long enough');
    await expectIoError(ResultsHistory.open(join(dir, 'text.duckdb')), /not a valid DuckDB database file/);
  });

  it('waits for another writer, and gives a clear error when it holds the file too long', async () => {
    const path = join(dir, 'locked.duckdb');
    (await ResultsHistory.open(path)).close();
    await holder(path, [], 1500);
    await expectIoError(ResultsHistory.open(path, { lockTimeoutMs: 200 }), /in use by another process/);
    const waited = await ResultsHistory.open(path, { lockTimeoutMs: 20_000 });
    waited.close();
  });

  it('is never torn by a writer killed mid-transaction: the run is absent, earlier ones intact', async () => {
    const path = join(dir, 'killed.duckdb');
    const h = await ResultsHistory.open(path);
    await h.add(run(1));
    h.close();
    const child = await holder(
      path,
      [
        'BEGIN TRANSACTION',
        "INSERT INTO runs (run_id, added_at, machine) VALUES ('half', now(), 'm')",
        "INSERT INTO metrics (run_id, task, status, metric, value, seq) SELECT 'half', 'throughput', 'completed', 'x', i, i FROM range(100000) t(i)",
      ],
      60_000,
    );
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const after = await ResultsHistory.open(path);
    try {
      expect((await after.runs()).map((r) => r.runId)).toEqual(['run-1']);
      expect((await after.report('run-1'))?.results).toHaveLength(3);
    } finally {
      after.close();
    }
  });
});
