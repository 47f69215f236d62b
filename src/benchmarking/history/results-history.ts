/**
 * `ResultsHistory`: benchmark runs appended to a DuckDB file — run identity (time, git commit and branch, machine
 * fingerprint, engine, model, dtype) and every metric in long format with its unit and direction, plus the raw
 * per-call samples — for trends over time and for comparing a new run with the previous one.
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { bootstrapRatio, type Interval } from '../../profiling/index.js';
import { Rng } from '../../rng.js';
import { removePartial } from '../../text-file.js';
import { CELL_METRICS, cellSampleStatistic } from '../compare/cell-metrics.js';
import type { Environment, GitState } from '../environment.js';
import { describeMetric } from '../metric-schema.js';
import { SuiteReport } from '../report.js';
import type { BenchmarkResult, BenchmarkStatus, CellRecord, MetaValue, MetricDescriptor } from '../task.js';
import {
  identityDifferences,
  machineLabel,
  type NearestRun,
  variantIdentity,
  variantLabel,
} from '../variant-identity.js';
import { HISTORY_MIGRATIONS, HISTORY_SCHEMA_VERSION } from './history-schema.js';

/** Options of {@link ResultsHistory.open}. */
export interface HistoryOpenOptions {
  /** Open for reading only (several readers may share a file). @default false */
  readonly readOnly?: boolean;
  /**
   * How long to wait, in ms, while another process holds the file (DuckDB allows one writer process); after
   * that, opening fails with a clear error. @default 10000
   */
  readonly lockTimeoutMs?: number;
  /** Migrate a new or older file only up to this schema version (for migration tests). @internal */
  readonly schemaVersion?: number;
}

/** Where and from what a run came, recorded with it by {@link ResultsHistory.add}. */
export interface HistoryRunSource {
  /** Git state of the code measured, for a report that did not record its own (its environment's `git` wins). */
  readonly git?: GitState;
  /** When the run is added. @default now */
  readonly addedAt?: Date;
}

/** One run of a history, as listed. */
export interface HistoryRun {
  /** Run id (unique in a history). */
  readonly runId: string;
  /** When it was added (ISO 8601). */
  readonly addedAt: string;
  /** When it started (ISO 8601), from its environment block. */
  readonly startedAt: string | null;
  /** Git commit. */
  readonly gitCommit: string | null;
  /** Git branch. */
  readonly gitBranch: string | null;
  /** Machine fingerprint: CPU model, logical CPUs, memory. */
  readonly machine: string;
  /** Model name. */
  readonly model: string | null;
  /** Engine label. */
  readonly engine: string | null;
  /** Weight dtype. */
  readonly dtype: string | null;
  /** Engine threads. */
  readonly threads: number | null;
}

/** One point of {@link ResultsHistory.trend}: a metric's value in one run, with its interval when samples exist. */
export interface TrendPoint {
  /** The run. */
  readonly runId: string;
  /** When the run started (or was added), ISO 8601. */
  readonly time: string;
  /** Git commit of the run. */
  readonly gitCommit: string | null;
  /** Model name of the run. */
  readonly model: string | null;
  /** How the variant runs: dtype, head dtype, block size, threads, engine (see {@link variantLabel}). */
  readonly variant: string;
  /** Machine fingerprint of the run. */
  readonly machine: string;
  /** Task of the value. */
  readonly task: string;
  /** Cell of the value (`null` for a task metric). */
  readonly cell: string | null;
  /** The value. */
  readonly value: number;
  /** Unit. */
  readonly unit: string | null;
  /** 95% percentile-bootstrap interval of the value from the samples; `[NaN, NaN]` without samples. */
  readonly ci: Interval;
}

/** What {@link ResultsHistory.add} did, with the run id the run is stored under. */
export interface HistoryAddResult {
  /** `added`, or `exists` when the same run was in the history already. */
  readonly status: 'added' | 'exists';
  /** The run's id in the history: the report's own, or `<id>-2`… when another run held that id first. */
  readonly runId: string;
}

/** Filters of {@link ResultsHistory.trend} and {@link ResultsHistory.runs}. */
export interface HistoryFilter {
  /** Model name. */
  readonly model?: string;
  /** Machine fingerprint (as listed). */
  readonly machine?: string;
  /** Task name (trend only). */
  readonly task?: string;
  /** Cell id (trend only; default: task metrics). */
  readonly cell?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const isLockError = (e: unknown): boolean =>
  e instanceof Error && /Could not set lock|Conflicting lock/i.test(e.message);
/** DuckDB's errors for a file cut short or with bytes overwritten (its blocks carry checksums). */
const isDamageError = (e: unknown): boolean =>
  e instanceof Error && /Corrupt database file|Could not read enough bytes/i.test(e.message);
/** `error` as a `DantinoxError` about the history file at `path`: a damaged file, or DuckDB's own failure. */
const historyError = (path: string, error: unknown): unknown =>
  error instanceof DantinoxError
    ? error
    : new DantinoxError(
        'IO',
        isDamageError(error) ? messages.historyDamaged(path, error) : messages.historyFailed(path, error),
        { cause: error },
      );
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const iso = (ms: unknown): string | null =>
  ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();

/**
 * A results history in one DuckDB file. Every {@link ResultsHistory.add} is one transaction, so a crash or
 * Ctrl-C mid-write leaves the file as it was; a second process that wants the file waits up to
 * `lockTimeoutMs` and then gets a clear error (DuckDB allows one writing process). The schema is versioned
 * (table `dantinox_schema`): older files are migrated on open, newer ones refused.
 *
 * Tables (query them with any DuckDB client): `runs` (one row per run), `metrics` (long format: run_id, task,
 * cell — null for the task's own metrics —, phase, status, error, metric, value, unit, higher_is_better,
 * description, seq) and `samples` (run_id, task, cell, samples_ms DOUBLE[]).
 *
 * @example
 * ```ts
 * const history = await ResultsHistory.open('results.duckdb');
 * try {
 *   await history.add(SuiteReport.load('results/run-1/results.json'), { gitCommit: 'abc123' });
 *   console.log(await history.trend('tps_seq128'));
 * } finally {
 *   history.close();
 * }
 * ```
 */
export class ResultsHistory {
  readonly #instance: DuckDBInstance;
  readonly #connection: DuckDBConnection;
  /** The file. */
  readonly path: string;

  private constructor(path: string, instance: DuckDBInstance, connection: DuckDBConnection) {
    this.path = path;
    this.#instance = instance;
    this.#connection = connection;
  }

  /**
   * Opens (creating when missing, unless read-only) a history file and brings its schema up to date.
   *
   * @throws {@link dantinox!DantinoxError} `IO` when the path is a directory, is missing (read-only), is not a DuckDB file, is a DuckDB database
   * of another program (tables, but no dantinox schema), is damaged (cut short, bytes overwritten), stays locked by
   * another process past `lockTimeoutMs`, or was written by a newer dantinox (schema version too new); the methods
   * that read or write a damaged file throw `IO` too; `DEPENDENCY_MISSING`
   * when `@duckdb/node-api` cannot be loaded.
   */
  static async open(path: string, options: HistoryOpenOptions = {}): Promise<ResultsHistory> {
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      isDir = false;
    }
    if (isDir) throw new DantinoxError('IO', messages.historyIsDirectory(path));
    if (options.readOnly === true && !existsSync(path))
      throw new DantinoxError('IO', messages.historyMissing(path));
    let duckdb: typeof import('@duckdb/node-api');
    try {
      duckdb = await import('@duckdb/node-api');
    } catch (cause) {
      throw new DantinoxError('DEPENDENCY_MISSING', messages.historyNeedsDuckdb(cause), { cause });
    }
    const timeout = options.lockTimeoutMs ?? 10_000;
    const start = Date.now();
    const config: Record<string, string> = options.readOnly ? { access_mode: 'READ_ONLY' } : {};
    // A file this call creates and cannot complete (a full disk) is removed: an empty file left behind would be
    // refused by every later open as "not a valid DuckDB database file", with space or without.
    const created = !existsSync(path);
    const removeCreated = (): void => {
      if (!created) return;
      removePartial(path);
      removePartial(`${path}.wal`);
    };
    let instance: DuckDBInstance | undefined;
    for (;;) {
      try {
        instance = await duckdb.DuckDBInstance.create(path, config);
        break;
      } catch (cause) {
        if (isLockError(cause) && Date.now() - start < timeout) {
          await sleep(100);
          continue;
        }
        const message = isLockError(cause)
          ? messages.historyLocked(path, timeout, cause)
          : created
            ? messages.historyNotCreated(path, cause)
            : isDamageError(cause)
              ? messages.historyDamaged(path, cause)
              : messages.historyUnreadable(path, cause);
        removeCreated();
        throw new DantinoxError('IO', message, { cause });
      }
    }
    const history = new ResultsHistory(path, instance, await instance.connect());
    try {
      await history.#migrate(options.schemaVersion ?? HISTORY_SCHEMA_VERSION, options.readOnly === true);
    } catch (error) {
      history.close();
      removeCreated();
      throw created && !(error instanceof DantinoxError)
        ? new DantinoxError('IO', messages.historyNotCreated(path, error), { cause: error })
        : error;
    }
    return history;
  }

  /** The schema version of the open file. */
  async schemaVersion(): Promise<number> {
    const rows = await this.#rows(
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'dantinox_schema'",
    );
    if (Number(rows[0]?.['n'] ?? 0) === 0) return 0;
    return Number((await this.#rows('SELECT max(version) AS v FROM dantinox_schema'))[0]?.['v'] ?? 0);
  }

  async #migrate(target: number, readOnly: boolean): Promise<void> {
    const current = await this.schemaVersion();
    if (current === 0) {
      const tables = await this.#rows(
        "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables ORDER BY name",
      );
      if (tables.length > 0)
        throw new DantinoxError(
          'IO',
          messages.historyForeign(
            this.path,
            tables.map((t) => String(t['name'])),
          ),
        );
      if (readOnly) throw new DantinoxError('IO', messages.historyEmpty(this.path));
    }
    if (current > HISTORY_SCHEMA_VERSION) {
      throw new DantinoxError('IO', messages.historyTooNew(this.path, current, HISTORY_SCHEMA_VERSION));
    }
    const pending = HISTORY_MIGRATIONS.filter((m) => m.version > current && m.version <= target);
    if (pending.length === 0) return;
    if (readOnly) throw new DantinoxError('IO', messages.historyNeedsMigration(this.path, current, target));
    await this.#transaction(async () => {
      for (const m of pending) {
        for (const sql of m.statements) await this.#connection.run(sql);
        await this.#connection.run('UPDATE dantinox_schema SET version = $1', [m.version]);
      }
    });
  }

  /**
   * Runs `work` in one transaction. A failure rolls it back and is reported as a `DantinoxError` about the file
   * (a rollback that fails too, as on a damaged file, does not hide the first error).
   */
  async #transaction<T>(work: () => Promise<T>): Promise<T> {
    try {
      await this.#connection.run('BEGIN TRANSACTION');
      const out = await work();
      await this.#connection.run('COMMIT');
      return out;
    } catch (error) {
      await this.#connection.run('ROLLBACK').catch(() => undefined);
      throw historyError(this.path, error);
    }
  }

  /** The rows of a query; DuckDB's failure (a damaged file) is reported as a `DantinoxError` about the file. */
  async #rows(sql: string, values: DuckDBValue[] = []): Promise<Record<string, unknown>[]> {
    try {
      return (await this.#connection.runAndReadAll(sql, values)).getRowObjectsJS() as Record<
        string,
        unknown
      >[];
    } catch (error) {
      throw historyError(this.path, error);
    }
  }

  /**
   * Appends a run in one transaction: its identity, every metric of every task row and cell in long format
   * (failed rows and cells keep their status and error), and the raw samples. The same run added again (its id
   * there with the same start time, or a start time one of them does not record) is left as it is; another run
   * that got the same id (two runs of a model started within one second) is stored as `<id>-2`, `<id>-3`…
   *
   * @returns `added` with the id the run is stored under, or `exists` with the id it was found under.
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the report has no run id.
   */
  async add(report: SuiteReport, source: HistoryRunSource = {}): Promise<HistoryAddResult> {
    if (report.runId === undefined) throw new DantinoxError('INVALID_INPUT', messages.historyRunWithoutId());
    const env = report.environment;
    const parsed = Date.parse(env?.timestamp ?? '');
    const startedAt = Number.isFinite(parsed) ? parsed : null;
    const taken = await this.#rows(
      `SELECT run_id, epoch_ms(started_at) AS started FROM runs WHERE run_id = $1 OR run_id LIKE $2`,
      [report.runId, `${report.runId}-%`],
    );
    const ids = new Set(taken.map((r) => String(r['run_id'])));
    let runId = report.runId;
    for (let n = 2; ids.has(runId); n++) {
      const stored = taken.find((r) => String(r['run_id']) === runId)?.['started'];
      if (startedAt === null || stored === null || stored === undefined || Number(stored) === startedAt)
        return { status: 'exists', runId };
      runId = `${report.runId}-${n}`;
    }
    const meta = report.modelMeta;
    await this.#transaction(async () => {
      await this.#connection.run(
        `INSERT INTO runs VALUES ($1, $2::TIMESTAMPTZ, $3::TIMESTAMPTZ, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::JSON, $15::JSON)`,
        [
          runId,
          (source.addedAt ?? new Date()).toISOString(),
          // The instant the run is matched by when added again (not the text: DuckDB reads ISO 8601 only).
          startedAt === null ? null : new Date(startedAt).toISOString(),
          (env?.git ?? source.git)?.commit ?? null,
          (env?.git ?? source.git)?.branch ?? null,
          machineLabel(env),
          env?.cpuModel ?? null,
          env?.logicalCpus ?? null,
          env === undefined ? null : BigInt(Math.round(env.totalMemoryBytes)),
          str(meta['engine'] ?? env?.engine),
          str(meta['model']),
          str(meta['dtype']),
          num(meta['threads'] ?? env?.threads),
          JSON.stringify(meta),
          env === undefined ? null : JSON.stringify(env),
        ],
      );
      const insertMetric = await this.#connection.prepare(
        'INSERT INTO metrics VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
      );
      let seq = 0;
      const row = async (
        r: { task: string; status?: string | undefined; error?: string | undefined },
        cell: string | null,
        phase: string | null,
        metric: string | null,
        value: number | null,
        d: MetricDescriptor | undefined,
      ): Promise<void> => {
        insertMetric.bind([
          runId,
          r.task,
          cell,
          phase,
          r.status ?? 'completed',
          r.error ?? null,
          metric,
          value !== null && Number.isFinite(value) ? value : null,
          d?.unit ?? null,
          d?.higherIsBetter ?? null,
          d?.description ?? null,
          seq++,
        ]);
        await insertMetric.run();
      };
      for (const r of report.results) {
        const entries = Object.entries(r.metrics);
        if (entries.length === 0) await row(r, null, null, null, null, undefined);
        for (const [k, v] of entries) await row(r, null, null, k, v, describeMetric(k, report.descriptors));
        for (const c of r.cells ?? []) {
          const cellEntries = Object.entries(c.metrics);
          if (cellEntries.length === 0) await row(c, c.cell, c.phase, null, null, undefined);
          for (const [k, v] of cellEntries)
            await row(c, c.cell, c.phase, k, v, describeMetric(k, CELL_METRICS));
          if (c.samplesMs !== undefined && c.samplesMs.length > 0) {
            await this.#connection.run('INSERT INTO samples VALUES ($1, $2, $3, $4::DOUBLE[])', [
              runId,
              c.task,
              c.cell,
              `[${c.samplesMs.join(',')}]`,
            ]);
          }
        }
      }
      insertMetric.destroySync();
    });
    return { status: 'added', runId };
  }

  /** The runs, oldest first, optionally of one model and/or machine. */
  async runs(filter: HistoryFilter = {}): Promise<HistoryRun[]> {
    const rows = await this.#rows(
      `SELECT run_id, epoch_ms(added_at) AS added, epoch_ms(started_at) AS started, git_commit, git_branch, machine,
              model, engine, dtype, threads
       FROM runs WHERE ($1::VARCHAR IS NULL OR model = $1) AND ($2::VARCHAR IS NULL OR machine = $2)
       ORDER BY coalesce(started_at, added_at), added_at, run_id`,
      [filter.model ?? null, filter.machine ?? null],
    );
    return rows.map((r) => ({
      runId: String(r['run_id']),
      addedAt: iso(r['added']) as string,
      startedAt: iso(r['started']),
      gitCommit: str(r['git_commit']),
      gitBranch: str(r['git_branch']),
      machine: String(r['machine']),
      model: str(r['model']),
      engine: str(r['engine']),
      dtype: str(r['dtype']),
      threads: num(r['threads']),
    }));
  }

  /**
   * Rebuilds a stored run as a {@link SuiteReport} (results, cells with their samples, model metadata,
   * environment, descriptors), e.g. to compare it; `undefined` when the run id is not in the history.
   */
  async report(runId: string): Promise<SuiteReport | undefined> {
    const runRows = await this.#rows('SELECT model_meta, environment FROM runs WHERE run_id = $1', [runId]);
    const run = runRows[0];
    if (run === undefined) return undefined;
    const metricRows = await this.#rows('SELECT * FROM metrics WHERE run_id = $1 ORDER BY seq', [runId]);
    const sampleRows = await this.#rows('SELECT task, cell, samples_ms FROM samples WHERE run_id = $1', [
      runId,
    ]);
    const samples = new Map(
      sampleRows.map((s) => [`${s['task']}\0${s['cell']}`, s['samples_ms'] as number[]]),
    );
    const results = new Map<
      string,
      BenchmarkResult & { cells: CellRecord[]; metrics: Record<string, number> }
    >();
    const cells = new Map<string, CellRecord & { metrics: Record<string, number> }>();
    const descriptors = new Map<string, MetricDescriptor>();
    for (const m of metricRows) {
      const task = String(m['task']);
      const status = String(m['status']) as BenchmarkStatus;
      const error = str(m['error']);
      const cellId = str(m['cell']);
      let result = results.get(task);
      if (result === undefined) {
        result = { task, status: 'completed', metrics: {}, cells: [] };
        results.set(task, result);
      }
      const metric = str(m['metric']);
      const value = m['value'] === null ? Number.NaN : Number(m['value']);
      if (cellId === null) {
        Object.assign(result, { status, ...(error === null ? {} : { error }) });
        if (metric !== null) result.metrics[metric] = value;
        if (metric !== null && m['unit'] !== null && !descriptors.has(metric)) {
          descriptors.set(metric, {
            key: metric,
            unit: String(m['unit']),
            description: str(m['description']) ?? '',
            ...(m['higher_is_better'] === null ? {} : { higherIsBetter: Boolean(m['higher_is_better']) }),
          });
        }
        continue;
      }
      const key = `${task}\0${cellId}`;
      let cell = cells.get(key);
      if (cell === undefined) {
        const s = samples.get(key);
        cell = {
          task,
          cell: cellId,
          phase: str(m['phase']) ?? '',
          status,
          ...(error === null ? {} : { error }),
          metrics: {},
          ...(s === undefined ? {} : { samplesMs: s }),
        };
        cells.set(key, cell);
        result.cells.push(cell);
      }
      if (metric !== null) cell.metrics[metric] = value;
    }
    return new SuiteReport({
      results: [...results.values()].map(({ cells: list, ...r }) =>
        list.length === 0 ? r : { ...r, cells: list },
      ),
      modelMeta: JSON.parse(String(run['model_meta'])) as Record<string, MetaValue>,
      ...(run['environment'] === null
        ? {}
        : { environment: JSON.parse(String(run['environment'])) as Environment }),
      runId,
      descriptors: [...descriptors.values()],
    });
  }

  /**
   * The latest run before `runId` (by start time) of the same variant on the same machine — same model, weights,
   * architecture, dtype and quantization plan, engine and threads (see {@link VARIANT_IDENTITY_KEYS}) — or
   * `undefined` when there is none.
   */
  async previousRun(runId: string): Promise<string | undefined> {
    return (await this.previousRuns(runId, 1))[0];
  }

  /**
   * The latest `limit` runs before `runId` of the same variant on the same machine, latest first (see
   * {@link ResultsHistory.previousRun}): the baseline of a comparison and the earlier runs its noise is learned from.
   */
  async previousRuns(runId: string, limit: number): Promise<string[]> {
    const candidates = await this.#earlierRuns(runId);
    return candidates
      .filter((c) => c.differences.length === 0)
      .slice(0, limit)
      .map((c) => c.runId);
  }

  /**
   * The latest `limit` runs of `report`'s variant on its machine (see {@link ResultsHistory.previousRun}) that
   * started before it, latest first — whether or not `report` itself is in the history (a run stored with the same
   * start time is not before it): the earlier runs whose spread is the noise of a one-run comparison of `report`.
   * A report without a start time is before nothing, so every run of its variant counts.
   */
  async runsBefore(report: SuiteReport, limit: number): Promise<string[]> {
    const parsed = Date.parse(report.environment?.timestamp ?? '');
    const rows = await this.#rows(
      `SELECT run_id, model_meta FROM runs
       WHERE machine = $1 AND model IS NOT DISTINCT FROM $2
         AND ($3::TIMESTAMPTZ IS NULL OR coalesce(started_at, added_at) < $3::TIMESTAMPTZ)
       ORDER BY coalesce(started_at, added_at) DESC, added_at DESC`,
      [
        machineLabel(report.environment),
        str(report.modelMeta['model']),
        Number.isFinite(parsed) ? new Date(parsed).toISOString() : null,
      ],
    );
    const identity = variantIdentity(report);
    return rows
      .filter(
        (r) =>
          identityDifferences(variantIdentity({ modelMeta: JSON.parse(String(r['model_meta'])) }), identity)
            .length === 0,
      )
      .slice(0, limit)
      .map((r) => String(r['run_id']));
  }

  /**
   * The latest run before `runId` of the same model name on the same machine, whatever its variant, with the
   * identity fields that differ (none when it is the same variant): what `--compare-last` names when it finds no
   * earlier run of the same variant.
   */
  async nearestRun(runId: string): Promise<NearestRun | undefined> {
    return (await this.#earlierRuns(runId))[0];
  }

  /** The runs before `runId` of the same model name on the same machine, latest first, with their differences. */
  async #earlierRuns(runId: string): Promise<NearestRun[]> {
    const rows = await this.#rows(
      `SELECT b.run_id, b.model_meta FROM runs a JOIN runs b
         ON b.machine = a.machine AND b.model IS NOT DISTINCT FROM a.model AND b.run_id <> a.run_id
         AND coalesce(b.started_at, b.added_at) <= coalesce(a.started_at, a.added_at)
       WHERE a.run_id = $1
       ORDER BY coalesce(b.started_at, b.added_at) DESC, b.added_at DESC`,
      [runId],
    );
    const mine = await this.#rows('SELECT model_meta FROM runs WHERE run_id = $1', [runId]);
    if (mine[0] === undefined) return [];
    const identity = variantIdentity({ modelMeta: JSON.parse(String(mine[0]['model_meta'])) });
    return rows.map((r) => ({
      runId: String(r['run_id']),
      differences: identityDifferences(
        variantIdentity({ modelMeta: JSON.parse(String(r['model_meta'])) }),
        identity,
      ),
    }));
  }

  /**
   * A metric over the runs, oldest first: its value in each run (task metric by default, or of `filter.cell`),
   * with a 95% percentile-bootstrap interval from the raw samples when the value is a statistic of a cell's
   * samples (a cell metric, or a task metric equal to one). Seeded: the same history gives the same intervals.
   */
  async trend(metric: string, filter: HistoryFilter = {}, seed = 0): Promise<TrendPoint[]> {
    const rows = await this.#rows(
      `SELECT m.run_id, epoch_ms(coalesce(r.started_at, r.added_at)) AS t, r.git_commit, r.model, r.model_meta, r.machine, m.task, m.cell, m.value,
              m.unit, s.samples_ms, c.metric AS sample_metric
       FROM metrics m JOIN runs r USING (run_id)
       LEFT JOIN metrics c ON c.run_id = m.run_id AND c.task = m.task AND c.cell IS NOT NULL
         AND m.cell IS NULL AND c.value = m.value
       LEFT JOIN samples s ON s.run_id = m.run_id AND s.task = m.task AND s.cell = coalesce(m.cell, c.cell)
       WHERE m.metric = $1 AND m.value IS NOT NULL
         AND ($2::VARCHAR IS NULL AND m.cell IS NULL OR m.cell = $2)
         AND ($3::VARCHAR IS NULL OR m.task = $3) AND ($4::VARCHAR IS NULL OR r.model = $4)
         AND ($5::VARCHAR IS NULL OR r.machine = $5)
       ORDER BY t, m.run_id, m.task`,
      [metric, filter.cell ?? null, filter.task ?? null, filter.model ?? null, filter.machine ?? null],
    );
    const points = new Map<string, TrendPoint>();
    for (const r of rows) {
      const key = `${r['run_id']}\0${r['task']}`;
      const value = Number(r['value']);
      const stat = cellSampleStatistic(str(r['cell']) === null ? String(r['sample_metric'] ?? '') : metric);
      const s = r['samples_ms'] as number[] | null;
      let ci: Interval = [Number.NaN, Number.NaN];
      if (stat !== undefined && s !== null && s.length > 0) {
        const [rel] = bootstrapRatio(s, [stat], { rng: new Rng(seed) });
        if (rel !== undefined) ci = [value * rel[0], value * rel[1]];
      }
      const prior = points.get(key);
      if (prior !== undefined && !Number.isNaN(prior.ci[0])) continue;
      points.set(key, {
        runId: String(r['run_id']),
        time: iso(r['t']) as string,
        gitCommit: str(r['git_commit']),
        model: str(r['model']),
        variant: variantLabel(variantIdentity({ modelMeta: JSON.parse(String(r['model_meta'])) })),
        machine: String(r['machine']),
        task: String(r['task']),
        cell: str(r['cell']),
        value,
        unit: str(r['unit']),
        ci,
      });
    }
    return [...points.values()];
  }

  /** Closes the file (releasing the lock). */
  close(): void {
    this.#connection.closeSync();
    this.#instance.closeSync();
  }
}
