/**
 * `ResultsHistory.open` and the errors of a history file, by known answers: each refusal's `code` and its exact
 * message (the `messages` entry it must be, with DuckDB's error as its cause), read-only opening (missing, empty,
 * current, older files), a DuckDB database of another program left as it was, the schema version at its boundary
 * (the current one opens, one more is refused and the file is released), damaged files (cut short, bytes
 * overwritten) found at open and by each query, and the wait for another process's lock.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HISTORY_MIGRATIONS,
  HISTORY_SCHEMA_VERSION,
} from '../../../src/benchmarking/history/history-schema.js';
import { ResultsHistory } from '../../../src/benchmarking/history/results-history.js';
import { SuiteReport } from '../../../src/benchmarking/report.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';
import { fakeRun } from '../compare/fake-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-history-open-'));
const DUCKDB = createRequire(import.meta.url).resolve('@duckdb/node-api');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Fake run `day` (id `r<day>`) with an environment block starting on 2026-01-<day>. */
function run(day: number): SuiteReport {
  const r = fakeRun({ seed: day, runId: `r${day}` });
  return new SuiteReport({
    results: r.results,
    modelMeta: r.modelMeta,
    runId: `r${day}`,
    descriptors: r.descriptors,
    environment: {
      cpuModel: 'Test CPU',
      logicalCpus: 2,
      totalMemoryBytes: 2 ** 33,
      timestamp: `2026-01-0${day}T10:00:00.000Z`,
    } as never,
  });
}

/** The error `promise` rejects with (fails when it resolves). */
async function failure(promise: Promise<unknown>): Promise<DantinoxError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DantinoxError);
  return error as DantinoxError;
}

/** Runs `sql` on the file at `path` with DuckDB itself, giving the rows. */
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

/** A Node child that opens `path` for writing, runs `sql`, prints `ready` and holds the file `holdMs`. */
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
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
}

describe('ResultsHistory.open: what the file is', () => {
  it('read-only, a missing file is refused and not created', async () => {
    const path = join(dir, 'missing.duckdb');
    const error = await failure(ResultsHistory.open(path, { readOnly: true }));
    expect(error.code).toBe('IO');
    expect(error.message).toBe(messages.historyMissing(path));
    expect(existsSync(path)).toBe(false);
  });

  it('a directory is refused, read-only or not, and a missing path is created (not taken for a directory)', async () => {
    for (const readOnly of [false, true]) {
      const error = await failure(ResultsHistory.open(dir, { readOnly }));
      expect(error.code).toBe('IO');
      expect(error.message).toBe(messages.historyIsDirectory(dir));
    }
    const path = join(dir, 'new.duckdb');
    (await ResultsHistory.open(path)).close();
    expect(existsSync(path)).toBe(true);
  });

  it('read-only, an empty DuckDB database (no tables) is refused as empty, not migrated', async () => {
    const path = join(dir, 'empty.duckdb');
    (await DuckDBInstance.create(path)).closeSync();
    const error = await failure(ResultsHistory.open(path, { readOnly: true }));
    expect(error.code).toBe('IO');
    expect(error.message).toBe(messages.historyEmpty(path));
    expect(await query(path, 'SELECT count(*)::INTEGER AS n FROM information_schema.tables')).toEqual([
      { n: 0 },
    ]);
    // For writing, the same empty database is a new history.
    const h = await ResultsHistory.open(path);
    try {
      expect(await h.schemaVersion()).toBe(HISTORY_SCHEMA_VERSION);
      expect(await h.runs()).toEqual([]);
    } finally {
      h.close();
    }
  });

  it('a DuckDB database of another program is refused, naming its tables in order, and left as it was', async () => {
    const path = join(dir, 'foreign.duckdb');
    const db = await DuckDBInstance.create(path);
    const c = await db.connect();
    await c.run('CREATE TABLE zeta (x INTEGER)');
    await c.run('CREATE TABLE runs (x INTEGER)');
    await c.run('CREATE TABLE alpha (y VARCHAR)');
    c.closeSync();
    db.closeSync();
    const before = readFileSync(path);
    for (const readOnly of [false, true]) {
      const error = await failure(ResultsHistory.open(path, { readOnly }));
      expect(error.code).toBe('IO');
      expect(error.message).toBe(messages.historyForeign(path, ['main.alpha', 'main.runs', 'main.zeta']));
    }
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a file that is not DuckDB is unreadable (not damaged), with DuckDB’s error as the cause', async () => {
    const path = join(dir, 'text.duckdb');
    writeFileSync(path, 'not a database, just some text that is long enough to have a header');
    const start = Date.now();
    const error = await failure(ResultsHistory.open(path));
    // At once: only another process's lock is waited for (10 s by default), not a file DuckDB cannot read.
    expect(Date.now() - start).toBeLessThan(5000);
    expect(error.code).toBe('IO');
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toBe(messages.historyUnreadable(path, error.cause));
    expect((error.cause as Error).message).toMatch(/not a valid DuckDB database file/);
  });
});

describe('ResultsHistory.open: schema versions', () => {
  it('opens the current version; one more is refused as too new, and the refused file is released', async () => {
    const path = join(dir, 'versions.duckdb');
    const h = await ResultsHistory.open(path);
    await h.add(run(1));
    h.close();
    expect(await query(path, 'SELECT version FROM dantinox_schema')).toEqual([
      { version: HISTORY_SCHEMA_VERSION },
    ]);
    // The current version: opens for reading and writing, nothing to migrate.
    for (const readOnly of [true, false]) {
      const again = await ResultsHistory.open(path, { readOnly });
      try {
        expect(await again.schemaVersion()).toBe(HISTORY_SCHEMA_VERSION);
        expect((await again.runs()).map((r) => r.runId)).toEqual(['r1']);
      } finally {
        again.close();
      }
    }
    await query(path, `UPDATE dantinox_schema SET version = ${HISTORY_SCHEMA_VERSION + 1}`);
    for (const readOnly of [false, true]) {
      const error = await failure(ResultsHistory.open(path, { readOnly }));
      expect(error.code).toBe('IO');
      expect(error.message).toBe(
        messages.historyTooNew(path, HISTORY_SCHEMA_VERSION + 1, HISTORY_SCHEMA_VERSION),
      );
    }
    // The failed open closed the file: another process can take it for writing at once.
    const child = await holder(path, [`UPDATE dantinox_schema SET version = ${HISTORY_SCHEMA_VERSION}`], 0);
    await new Promise((r) => child.once('exit', r));
    expect(await query(path, 'SELECT version FROM dantinox_schema')).toEqual([
      { version: HISTORY_SCHEMA_VERSION },
    ]);
  });

  it('creates each version by its migrations only: version 1 has no samples table, and read-only it needs migrating', async () => {
    expect(HISTORY_MIGRATIONS.map((m) => m.version)).toEqual([1, 2]);
    expect(HISTORY_SCHEMA_VERSION).toBe(2);
    const path = join(dir, 'v1-tables.duckdb');
    const v1 = await ResultsHistory.open(path, { schemaVersion: 1 });
    expect(await v1.schemaVersion()).toBe(1);
    v1.close();
    const tables = `SELECT table_name AS t FROM information_schema.tables ORDER BY t`;
    expect(await query(path, tables)).toEqual([{ t: 'dantinox_schema' }, { t: 'metrics' }, { t: 'runs' }]);
    const error = await failure(ResultsHistory.open(path, { readOnly: true }));
    expect(error.code).toBe('IO');
    expect(error.message).toBe(messages.historyNeedsMigration(path, 1, HISTORY_SCHEMA_VERSION));
    // Opening it again at version 1 changes nothing; the current version adds the samples table.
    (await ResultsHistory.open(path, { schemaVersion: 1 })).close();
    expect(await query(path, 'SELECT version FROM dantinox_schema')).toEqual([{ version: 1 }]);
    (await ResultsHistory.open(path)).close();
    expect(await query(path, tables)).toEqual([
      { t: 'dantinox_schema' },
      { t: 'metrics' },
      { t: 'runs' },
      { t: 'samples' },
    ]);
    expect(await query(path, 'SELECT version FROM dantinox_schema')).toEqual([{ version: 2 }]);
  });
});

describe('ResultsHistory: damaged files', () => {
  const good = join(dir, 'good.duckdb');
  beforeAll(async () => {
    const h = await ResultsHistory.open(good);
    try {
      for (const day of [1, 2, 3]) await h.add(run(day));
    } finally {
      h.close();
    }
  });

  /** A copy of the good history, changed by `damage`. */
  const damaged = (name: string, damage: (path: string) => void): string => {
    const path = join(dir, name);
    copyFileSync(good, path);
    damage(path);
    return path;
  };

  it('cut short or overwritten in its first blocks: refused at open as damaged, read-only or not', async () => {
    const cut = damaged('cut-header.duckdb', (p) => truncateSync(p, 100));
    const overwritten = damaged('overwritten-header.duckdb', (p) => {
      const bytes = readFileSync(p);
      bytes.fill(0x5a, 4096 + 8, 4096 + 64);
      writeFileSync(p, bytes);
    });
    for (const [path, cause] of [
      [cut, /^IO Error: Could not read enough bytes/],
      [overwritten, /^IO Error: Corrupt database file/],
    ] as const) {
      for (const readOnly of [false, true]) {
        const error = await failure(ResultsHistory.open(path, { readOnly }));
        expect(error.code).toBe('IO');
        expect((error.cause as Error).message).toMatch(cause);
        expect(error.message).toBe(messages.historyDamaged(path, error.cause));
      }
    }
  });

  it('cut short or overwritten past its first block: opens, and every query and add is refused as damaged', async () => {
    const block = 12_288 + 262_144;
    const cut = damaged('cut.duckdb', (p) => truncateSync(p, block + 1000));
    const overwritten = damaged('overwritten.duckdb', (p) => {
      const bytes = readFileSync(p);
      for (let at = block; at < bytes.length; at += 262_144) bytes.fill(0x5a, at + 64, at + 576);
      writeFileSync(p, bytes);
    });
    for (const [path, cause] of [
      [cut, /^IO Error: Could not read enough bytes/],
      [overwritten, /^IO Error: Corrupt database file/],
    ] as const) {
      const h = await ResultsHistory.open(path);
      try {
        for (const call of [
          () => h.runs(),
          () => h.report('r2'),
          () => h.trend('tps_seq16'),
          () => h.previousRun('r3'),
          () => h.add(run(4)),
        ]) {
          const error = await failure(call());
          expect(error.code).toBe('IO');
          expect((error.cause as Error).message).toMatch(cause);
          expect(error.message).toBe(messages.historyDamaged(path, error.cause));
        }
      } finally {
        h.close();
      }
    }
  });
});

describe('ResultsHistory: read-only and failed writes', () => {
  it('read-only, a history is read but not written: add fails as DuckDB’s failure, the file unchanged', async () => {
    const path = join(dir, 'read-only.duckdb');
    const w = await ResultsHistory.open(path);
    await w.add(run(1));
    w.close();
    const before = readFileSync(path);
    const h = await ResultsHistory.open(path, { readOnly: true });
    try {
      expect((await h.runs()).map((r) => r.runId)).toEqual(['r1']);
      const error = await failure(h.add(run(2)));
      expect(error.code).toBe('IO');
      expect((error.cause as Error).message).toMatch(/read-only mode/);
      expect(error.message).toBe(messages.historyFailed(path, error.cause));
      expect((await h.runs()).map((r) => r.runId)).toEqual(['r1']);
    } finally {
      h.close();
    }
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('an add that fails midway leaves no trace of the run, and the history takes the next add', async () => {
    const path = join(dir, 'no-samples-table.duckdb');
    const w = await ResultsHistory.open(path);
    await w.add(run(1));
    w.close();
    // The samples table gone: the run's row and its metrics are inserted, then its samples fail.
    await query(path, 'DROP TABLE samples');
    const h = await ResultsHistory.open(path);
    try {
      const error = await failure(h.add(run(2)));
      expect(error.code).toBe('IO');
      expect((error.cause as Error).message).toMatch(/Table with name samples does not exist/);
      expect(error.message).toBe(messages.historyFailed(path, error.cause));
      expect((await h.runs()).map((r) => r.runId)).toEqual(['r1']);
      expect(await h.report('r2')).toBeUndefined();
      const bare = new SuiteReport({
        runId: 'bare',
        modelMeta: {},
        results: [{ task: 't', metrics: { x: 1 } }],
      });
      expect(await h.add(bare)).toEqual({ status: 'added', runId: 'bare' });
      expect((await h.runs()).map((r) => r.runId)).toEqual(['r1', 'bare']);
    } finally {
      h.close();
    }
    expect(await query(path, "SELECT count(*)::INTEGER AS n FROM metrics WHERE run_id = 'r2'")).toEqual([
      { n: 0 },
    ]);
  });

  it('a report without a run id is refused before anything is written', async () => {
    const path = join(dir, 'no-id.duckdb');
    const h = await ResultsHistory.open(path);
    try {
      const error = await failure(
        h.add(new SuiteReport({ modelMeta: {}, results: [{ task: 't', metrics: {} }] })),
      );
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toBe(messages.historyRunWithoutId());
      expect(await h.runs()).toEqual([]);
    } finally {
      h.close();
    }
  });
});

describe('ResultsHistory.open: another process holding the file', () => {
  it('waits 10 s by default; past lockTimeoutMs, refused as locked with the wait in the message', async () => {
    const path = join(dir, 'locked.duckdb');
    (await ResultsHistory.open(path)).close();
    await holder(path, [], 2000);
    const error = await failure(ResultsHistory.open(path, { lockTimeoutMs: 600, readOnly: true }));
    expect(error.code).toBe('IO');
    expect((error.cause as Error).message).toMatch(/Could not set lock/);
    expect(error.message).toBe(messages.historyLocked(path, 600, error.cause));
    expect(error.message).toContain('(waited 1 s)');
    // The default wait outlasts the holder.
    const waited = await ResultsHistory.open(path);
    waited.close();
  });
});
