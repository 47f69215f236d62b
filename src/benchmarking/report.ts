/**
 * `SuiteReport`: the results of one suite run. One row per task in the seed's column layout, plus model identity
 * columns, `status` and `error`; a long format with one row per metric (unit, definition); the environment
 * block; CSV, JSON and JSONL round trips.
 *
 * @packageDocumentation
 */
import { writeFileSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import * as aq from 'arquero';
import { DantinoxError } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import { removePartial } from '../text-file.js';
import { type CsvValue, formatCsv } from './csv.js';
import type { Environment } from './environment.js';
import { describeMetric } from './metric-schema.js';
import { isPointTable, pointTable } from './point-table.js';
import { readReportFile } from './report-reader.js';
import { formatSummary, type SummaryFormat } from './summary-table.js';
import type { BenchmarkResult, MetaValue, MetricDescriptor } from './task.js';

/** An arquero table (what {@link SuiteReport.toDataFrame} returns). */
export type DataFrame = ReturnType<typeof aq.table>;

/** The parts a {@link SuiteReport} is made of (also its JSON form, minus the format tag). */
export interface SuiteReportData {
  /** One result per task, in run order. */
  readonly results: readonly BenchmarkResult[];
  /** Model identity (snake_case keys: `model`, `paradigm`, `params`, `dim`, …), repeated on every CSV row. */
  readonly modelMeta?: Readonly<Record<string, MetaValue>>;
  /** Wall time of the whole run in seconds. */
  readonly totalTimeS?: number;
  /** Where and how it was measured. */
  readonly environment?: Environment;
  /** Id of the run (also the stem of its JSONL file). */
  readonly runId?: string;
  /** Metric descriptors declared by the tasks of the run. */
  readonly descriptors?: readonly MetricDescriptor[];
  /** Column order to keep (set when loading a CSV so empty columns survive a round trip). */
  readonly columnOrder?: readonly string[];
}

/** Columns at the start of every row. */
const LEADING = ['task', 'status'] as const;
/** Columns after the metrics, profiling, FLOPs and meta columns. */
const TRAILING = ['error', 'duration_ms'] as const;

/** Arrays of plain numbers (raw samples, confidence intervals) on one line; strings never match (no quotes). */
const NUMBER_ARRAY = /\[\s*(?:-?[\d.eE+-]+|null)(?:,\s*(?:-?[\d.eE+-]+|null))*\s*\]/g;

/** Indented JSON with every array of numbers kept on one line, so raw samples cost one line per cell. */
function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(NUMBER_ARRAY, (a) => a.replace(/\s+/g, ''))}\n`;
}

const finiteOrNull = (v: number | undefined): number | null =>
  v === undefined || Number.isNaN(v) ? null : v;

/**
 * The seed's `to_dict()` middle part: metrics, then profiling, then FLOPs (GFLOP), then meta. A metric named like
 * one of the row's own columns (`reserved`: task, status, error, duration_ms, the model's identity) is renamed
 * `metric_<name>`, and a meta entry named like either `meta_<name>`, so that no value replaces another.
 */
function middleEntries(r: BenchmarkResult, reserved: ReadonlySet<string>): [string, CsvValue][] {
  const out: [string, CsvValue][] = valueEntries(r).map(([k, v]) => [reserved.has(k) ? `metric_${k}` : k, v]);
  const taken = new Set([...reserved, ...out.map(([k]) => k)]);
  for (const [k, v] of Object.entries(r.meta ?? {})) out.push([taken.has(k) ? `meta_${k}` : k, v]);
  return out;
}

/** Metrics, then the seed's profiling and FLOPs columns (everything but meta). */
function valueEntries(r: BenchmarkResult): [string, number][] {
  const out: [string, number][] = Object.entries(r.metrics);
  if (r.profiling) {
    out.push(['latency_mean_ms', r.profiling.meanMs]);
    out.push(['latency_p99_ms', r.profiling.p99Ms]);
    out.push(['throughput_tps', r.profiling.throughputTps]);
  }
  if (r.flops) {
    out.push(['flops_total_g', r.flops.total / 1e9]);
    out.push(['flops_attn_g', r.flops.attention / 1e9]);
    out.push(['flops_ffn_g', r.flops.ffn / 1e9]);
  }
  return out;
}

/**
 * The report of one {@link BenchmarkSuite} run.
 *
 * @example
 * ```ts
 * const report = await BenchmarkSuite.default().run(paradigm, model);
 * console.log(report.summary());
 * report.save('results/small.csv');            // seed CSV layout + identity columns
 * report.save('results/small.json');           // everything, incl. environment and per-cell data
 * const again = SuiteReport.load('results/small.json');
 * ```
 */
export class SuiteReport {
  /** One result per task, in run order (status always set). */
  readonly results: readonly BenchmarkResult[];
  /** Model identity columns. */
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
  /** Wall time of the run in seconds. */
  readonly totalTimeS: number;
  /** Environment block, when known. */
  readonly environment: Environment | undefined;
  /** Run id, when known. */
  readonly runId: string | undefined;
  /** Metric descriptors of the run's tasks. */
  readonly descriptors: readonly MetricDescriptor[];
  readonly #columnOrder: readonly string[] | undefined;

  constructor(data: SuiteReportData) {
    this.results = data.results.map((r) => (r.status === undefined ? { ...r, status: 'completed' } : r));
    this.modelMeta = data.modelMeta ?? {};
    this.totalTimeS = data.totalTimeS ?? 0;
    this.environment = data.environment;
    this.runId = data.runId;
    this.descriptors = data.descriptors ?? [];
    this.#columnOrder = data.columnOrder;
  }

  /** Number of tasks that failed. */
  get failedCount(): number {
    return this.results.filter((r) => r.status === 'failed').length;
  }

  /**
   * The summary of the run: by default a table with one row per timed cell (mean ± sample standard deviation over
   * the timed calls, unit, tokens per second, sample count), then the task metrics, then every cell or task that
   * did not complete with its reason; `'kv'` gives the seed's lines (`BenchmarkSuite  —  {n} task(s)  ({t} s
   * total)`, the model line, `[task]  k=v` with 4 decimals); `'markdown'`, `'json'`, `'csv'` the same rows as
   * the table, for a pull request or a script (see {@link formatSummary}).
   */
  summary(format: SummaryFormat = 'table'): string {
    return formatSummary([this], format);
  }

  /** The flat rows (one per task) with their values, keyed by column. Missing and NaN values are `null`. */
  toRows(): Record<string, CsvValue>[] {
    const reserved = this.#reservedColumns();
    return this.results.map((r) => {
      const row: Record<string, CsvValue> = { task: r.task, status: r.status ?? 'completed' };
      for (const [k, v] of middleEntries(r, reserved)) row[k] = typeof v === 'number' ? finiteOrNull(v) : v;
      row['error'] = r.error ?? null;
      row['duration_ms'] = r.durationMs ?? null;
      for (const [k, v] of Object.entries(this.modelMeta)) row[k] = v;
      return row;
    });
  }

  /** The columns every row has whatever its task reports: `task`, `status`, `error`, `duration_ms`, model identity. */
  #reservedColumns(): ReadonlySet<string> {
    return new Set([...LEADING, ...TRAILING, ...Object.keys(this.modelMeta)]);
  }

  /**
   * Column order: `task`, `status`, then the union of metric/profiling/FLOPs/meta columns in first-seen order
   * (the seed's layout), then `error`, `duration_ms` and the model identity columns.
   */
  columns(): string[] {
    const middle: string[] = [];
    const reserved = this.#reservedColumns();
    const seen = new Set<string>(reserved);
    for (const col of this.#columnOrder ?? []) {
      if (!seen.has(col)) {
        seen.add(col);
        middle.push(col);
      }
    }
    for (const r of this.results) {
      for (const [k] of middleEntries(r, reserved)) {
        if (!seen.has(k)) {
          seen.add(k);
          middle.push(k);
        }
      }
    }
    return [...LEADING, ...middle, ...TRAILING, ...Object.keys(this.modelMeta)];
  }

  /** The report as an arquero table, one row per task, columns as {@link SuiteReport.columns}. */
  toDataFrame(): DataFrame {
    const rows = this.toRows();
    const data: Record<string, CsvValue[]> = {};
    for (const col of this.columns()) data[col] = rows.map((row) => row[col] ?? null);
    return aq.table(data);
  }

  /**
   * The report as CSV text (RFC 4180; empty field for missing or NaN): one row per task, columns as
   * {@link SuiteReport.columns} — except a load's report (every task's cells are sweep points), whose table has one
   * row per sweep point: `run_id`, `task`, `cell`, `status`, the point's metrics, its task's meta, `error`, the model
   * identity.
   */
  toCsv(): string {
    if (!isPointTable(this.results)) return formatCsv(this.columns(), this.toRows());
    const { columns, rows } = pointTable(this, this.#columnOrder);
    return formatCsv(columns, rows);
  }

  /**
   * Long format: one row per (task, metric) — metrics and the profiling/FLOPs columns, not meta — with `run_id`, `model`, `paradigm`, `task`, `status`, `metric`,
   * `value`, `unit`, `higher_is_better`, `description` (plus `error`). A task with no metrics (e.g. a failed one)
   * gives one row with a null metric so it is not lost.
   */
  toLongFormat(): DataFrame {
    const out: Record<string, CsvValue>[] = [];
    const base = {
      run_id: this.runId ?? null,
      model: this.modelMeta['model'] ?? null,
      paradigm: this.modelMeta['paradigm'] ?? null,
    };
    for (const r of this.results) {
      const entries = valueEntries(r);
      const row = (metric: string | null, value: number | null): Record<string, CsvValue> => {
        const d = metric === null ? undefined : describeMetric(metric, this.descriptors);
        return {
          ...base,
          task: r.task,
          status: r.status ?? 'completed',
          metric,
          value,
          unit: d?.unit ?? null,
          higher_is_better: d?.higherIsBetter ?? null,
          description: d?.description ?? null,
          error: r.error ?? null,
        };
      };
      if (entries.length === 0) out.push(row(null, null));
      for (const [k, v] of entries) out.push(row(k, finiteOrNull(v)));
    }
    const cols = [
      'run_id',
      'model',
      'paradigm',
      'task',
      'status',
      'metric',
      'value',
      'unit',
      'higher_is_better',
      'description',
      'error',
    ];
    const data: Record<string, CsvValue[]> = {};
    for (const c of cols) data[c] = out.map((r) => r[c] ?? null);
    return aq.table(data);
  }

  /** Full-fidelity plain object (what `.json` files hold). */
  toJSON(): Record<string, unknown> {
    return {
      format: 'dantinox-report',
      version: 1,
      runId: this.runId ?? null,
      totalTimeS: this.totalTimeS,
      modelMeta: this.modelMeta,
      environment: this.environment ?? null,
      descriptors: this.descriptors,
      results: this.results,
    };
  }

  /**
   * Writes the report: `.json` → {@link SuiteReport.toJSON} (NaN written as null; arrays of numbers such as a
   * cell's raw `samplesMs` on one line), anything else → CSV. Creates
   * the parent directory. Returns the path.
   *
   * @throws {@link dantinox!DantinoxError} with code `IO` when the file cannot be written.
   */
  save(path: string): string {
    const ext = extname(path).toLowerCase();
    const text = ext === '.json' ? formatJson(this.toJSON()) : this.toCsv();
    try {
      makeDirectory(dirname(path));
      writeFileSync(path, text);
    } catch (cause) {
      removePartial(path);
      throw new DantinoxError('IO', messages.benchWriteFailed(path, 'the report', cause), { cause });
    }
    return path;
  }

  /**
   * Loads a report saved by {@link SuiteReport.save} (`.csv`, `.json`) or the JSONL stream of a run (`.jsonl`,
   * e.g. after a crash). A CSV loads back into a report with an equal table; JSON and JSONL keep everything.
   *
   * @throws {@link dantinox!DantinoxError} with code `IO` when the file cannot be read or is not a report.
   */
  static load(path: string): SuiteReport {
    return new SuiteReport(readReportFile(path));
  }

  /** Summary-style representation. */
  toString(): string {
    return `SuiteReport(tasks=[${this.results.map((r) => `'${r.task}'`).join(', ')}], time=${this.totalTimeS.toFixed(1)}s)`;
  }
}
