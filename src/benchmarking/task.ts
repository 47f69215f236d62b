/**
 * The `BenchmarkTask` plugin contract: a task has a `name` and an async `run(paradigm, model, config, rng)` that
 * returns a {@link BenchmarkResult}. Built-in and user tasks implement the same interface; the optional
 * {@link BenchmarkContext} gives tasks a way to stream per-cell measurements, a logger and a clock.
 *
 * @packageDocumentation
 */
import type { Model } from '../models/model.js';
import type { Paradigm } from '../models/paradigm.js';
import type { Clock, FlopsBreakdown, ProfilingResult, TraceRecorder } from '../profiling/index.js';
import type { Rng } from '../rng.js';
import type { BenchmarkConfig } from './config.js';
import type { Logger } from './logger.js';

/** Outcome of a task or of one measurement cell: `completed`, `failed` (it threw) or `skipped` (not attempted). */
export type BenchmarkStatus = 'completed' | 'failed' | 'skipped';

/** A scalar metadata value: what `meta` and the CSV's meta columns hold. */
export type MetaValue = string | number | boolean | null;

/**
 * Description of one metric a task reports, for the long-format export, the glossary and the charts.
 *
 * `key` is the exact metric key or a pattern with one `{X}` placeholder standing for an integer, e.g.
 * `tps_seq{L}` matches `tps_seq64` and `tps_seq512`.
 */
export interface MetricDescriptor {
  /** Metric key or key pattern (`{L}`, `{B}`… stand for a positive integer). */
  readonly key: string;
  /** Unit, e.g. `tok/s`, `ms`, `nats/token`, `GFLOP/s`, or `1` for a dimensionless ratio. */
  readonly unit: string;
  /** One-sentence definition: what is measured, over which shape, how it is aggregated. */
  readonly description: string;
  /** Whether a larger value is better; `undefined` when neither is (e.g. a count). */
  readonly higherIsBetter?: boolean;
}

/**
 * The phase of a cell of requests sent to a server under load (`dantinox load`): its latencies spread because
 * requests queue, which is what it measures, so its tail is not flagged as timing noise.
 */
export const SERVING_PHASE = 'serving';

/**
 * One finished measurement of a sweep (a "cell": one shape, one phase), streamed to the JSONL file as soon as it
 * exists. Failed and skipped cells are recorded too, with the reason.
 */
export interface CellRecord {
  /** Name of the task that measured it. */
  readonly task: string;
  /** Short stable id within the task, e.g. `seq=128,batch=1` or `decode@512`. */
  readonly cell: string;
  /** What is timed: `prefill` (full forward), `decode` (KV-cache step), `generate`, `eval`, {@link SERVING_PHASE}, or a user label. */
  readonly phase: string;
  /** Sequences in the batch, when the cell has a shape. */
  readonly batch?: number;
  /** Tokens per sequence (prompt/context length), when the cell has a shape. */
  readonly seqLen?: number;
  /** Outcome of the cell. */
  readonly status: BenchmarkStatus;
  /** Why it failed or was skipped. */
  readonly error?: string;
  /** Scalar results of the cell, keyed like task metrics (e.g. `tps`, `gflops_per_s`, `mean_ms`). */
  readonly metrics: Readonly<Record<string, number>>;
  /** Timing statistics of the cell, when it was timed. */
  readonly profiling?: ProfilingResult;
  /**
   * Raw duration of every timed call in milliseconds (rounded to 1 µs), in call order: the samples
   * {@link CellRecord.profiling} summarises (the tracker's window, so at most its size). Written to results.json
   * and results.jsonl for statistical comparison of runs; absent for cells that were not timed.
   */
  readonly samplesMs?: readonly number[];
  /**
   * Per-call values of cell metrics that are a mean over the timed calls, keyed by metric, in the metric's unit
   * and in call order: the cell metric is the mean of its list (up to that rounding). The latency task's generation cell records
   * `ttft_ms`, `tpot_ms` and `e2e_ms` here (one value per timed generation, rounded to 1 µs), so that a
   * comparison judges them from samples like the per-call wall times of {@link CellRecord.samplesMs}.
   */
  readonly metricSamples?: Readonly<Record<string, readonly number[]>>;
  /** Analytical FLOPs of one timed call of the cell (its exact shape). */
  readonly flops?: FlopsBreakdown;
  /** Self-checks of the cell's measurement (a load's sweep points have them), in order. */
  readonly validation?: readonly ValidationCheck[];
}

/**
 * One self-check of a cell's measurement: an invariant its numbers must keep (a request's parts add up to its
 * whole, a throughput recomputed from its rows agrees, a schedule was kept, client and server agree on token
 * counts). A check that fails says why in one line, which the summary, the report's banner and `compare` show.
 */
export interface ValidationCheck {
  /** Short stable name, e.g. `e2e_parts`, `rate_achieved`, `token_counts`. */
  readonly name: string;
  /** Whether the invariant held. */
  readonly ok: boolean;
  /** The measured quantity the check compares (its unit in `message`); `NaN` when there was nothing to check. */
  readonly value: number;
  /** The bound it is compared with. */
  readonly limit: number;
  /** What was checked and found, in one sentence (with the fix when it failed). */
  readonly message: string;
}

/** What every {@link BenchmarkResult} has, whatever its status. */
interface BenchmarkResultBase {
  /** Task name (the row's `task` column). */
  readonly task: string;
  /** Scalar results, in the order they should appear as CSV columns. */
  readonly metrics: Readonly<Record<string, number>>;
  /** Timing statistics of one stated cell (say which in `meta.profiling_cell`). */
  readonly profiling?: ProfilingResult;
  /** Analytical FLOPs of one stated shape (say which in `meta.flops_shape`). */
  readonly flops?: FlopsBreakdown;
  /** Free-form scalar notes, written as extra CSV columns (e.g. `decode: 'not applicable …'`). */
  readonly meta?: Readonly<Record<string, MetaValue>>;
  /** Every cell the task recorded through {@link BenchmarkContext.recordCell}, in order (filled by the suite). */
  readonly cells?: readonly CellRecord[];
  /** Wall time of the task in milliseconds (filled by the suite). */
  readonly durationMs?: number;
}

/** A task that ran to the end. What a task returns: `status` may be left out (the suite sets it). */
export interface CompletedResult extends BenchmarkResultBase {
  /** Outcome; absent means `completed`. */
  readonly status?: 'completed';
  /** A completed task has no error. */
  readonly error?: undefined;
}

/** A task that threw (or was cut short by an abort): its row keeps the error and any cells it measured. */
export interface FailedResult extends BenchmarkResultBase {
  /** Outcome. */
  readonly status: 'failed';
  /** Why it failed. */
  readonly error: string;
}

/** A task that was never started (the run was aborted before it). */
export interface SkippedResult extends BenchmarkResultBase {
  /** Outcome. */
  readonly status: 'skipped';
  /** Why it was not run. */
  readonly error: string;
}

/**
 * What a task returns, and one row of the report: a union on `status` — {@link CompletedResult},
 * {@link FailedResult} (with `error`) or {@link SkippedResult} (with `error`).
 *
 * A user task needs only `task` and `metrics`; the suite fills in `status` (`completed`) and `durationMs`. The
 * suite turns a task that throws into a row with `status: 'failed'` and `error`.
 */
export type BenchmarkResult = CompletedResult | FailedResult | SkippedResult;

/**
 * Services the suite hands to a task. Every member is optional for a task to use: a task written against the
 * bare `(paradigm, model, config, rng)` signature ignores it.
 */
export interface BenchmarkContext {
  /** Where non-fatal warnings and progress notes go. */
  readonly logger: Logger;
  /** Clock to time with (the suite's; a manual clock in tests). */
  readonly clock: Clock;
  /** Aborts the run when signalled (Ctrl-C); long tasks should check it between cells. */
  readonly signal?: AbortSignal;
  /** Announces how many cells the task will measure, for progress and ETA. */
  plan(totalCells: number): void;
  /** Records one finished cell: appended to the JSONL file at once, forwarded to `onCell` and progress. */
  recordCell(cell: CellRecord): Promise<void>;
  /** Trace recorder of `bench --trace`: tasks pass it to their cells' environment. @default undefined */
  readonly tracer?: TraceRecorder;
}

/**
 * A benchmark plugin. Implement `name` and `run`; optionally declare `metrics` so the long-format export and the
 * glossary can give each key a unit and a definition.
 *
 * @example
 * ```ts
 * class MyTask implements BenchmarkTask {
 *   readonly name = 'my_task';
 *   async run(paradigm: Paradigm, model: Model, config: BenchmarkConfig, rng: Rng): Promise<BenchmarkResult> {
 *     return { task: this.name, metrics: { score: await evaluateSomething(model, rng) } };
 *   }
 * }
 * ```
 */
export interface BenchmarkTask {
  /** Unique name in a suite; the row's `task` column. */
  readonly name: string;
  /** Metrics this task reports (exact keys or `{X}` patterns). */
  readonly metrics?: readonly MetricDescriptor[];
  /**
   * Builds the task's row from the cells it recorded so far. Optional: with it, a task stopped by the run's
   * signal (Ctrl-C) or by a crash keeps a row with what its finished cells measured, instead of a bare failure.
   * Throws when the cells hold nothing to report.
   */
  summarize?(cells: readonly CellRecord[], config: BenchmarkConfig): BenchmarkResult;
  /** Runs the task. Throwing is fine: the suite records a failed row and goes on. */
  run(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context?: BenchmarkContext,
  ): Promise<BenchmarkResult>;
}
