/**
 * Measures one cell of a sweep: warm-up by count **and** time, then timed calls through a {@link LatencyTracker}
 * with the model's barrier, stopping when both `nMeasure` calls and `minMeasureMs` are reached, or earlier once the
 * timed phase reached `maxMeasureMs` after at least {@link MIN_TIMED_CALLS} calls — all within the cell's time
 * budget `maxCellMs`. Failures become a failed {@link CellRecord}; only an abort propagates.
 *
 * @packageDocumentation
 */
import { DantinoxError, errorText } from '../errors.js';
import { messages } from '../messages.js';
import {
  type Barrier,
  type Clock,
  type FlopsBreakdown,
  LatencyTracker,
  type ProfilingResult,
  type TraceRecorder,
} from '../profiling/index.js';
import { MIN_TIMED_CALLS } from './config.js';
import type { CellRecord } from './task.js';

/** Which part of the cell a call belongs to. */
export type CallPhase = 'warmup' | 'measure';

/** What to measure. */
export interface CellSpec {
  /** Task name. */
  readonly task: string;
  /** Cell id, e.g. `seq=128,batch=1`. */
  readonly cell: string;
  /** Phase label (`prefill`, `decode`, `generate`…). */
  readonly phase: string;
  /** Sequences per call. */
  readonly batch?: number;
  /** Tokens per sequence (or context length). */
  readonly seqLen?: number;
  /** Tokens processed by one call, for throughput. */
  readonly tokensPerCall: number;
  /** Analytical FLOPs of one call. */
  readonly flops?: FlopsBreakdown;
  /** One call of the work. Only the `measure` calls are timed. */
  call(phase: CallPhase): Promise<unknown>;
  /** Untimed preparation before each call (e.g. refilling a KV cache). */
  before?(phase: CallPhase): Promise<void>;
}

/** How long to measure. */
export interface CellBudget {
  /** Warm-up calls. */
  readonly nWarmup: number;
  /** Warm-up lasts at least this long, in ms. */
  readonly minWarmupMs: number;
  /** Timed calls (at least). */
  readonly nMeasure: number;
  /** Timed calls go on until this much time was measured, in ms. */
  readonly minMeasureMs: number;
  /**
   * Timed calls end once the timed phase (calls and their preparations) has lasted this long, in ms, after at least
   * {@link MIN_TIMED_CALLS} calls (`nMeasure` when fewer), even before `nMeasure`; 0: no cap. @default 0
   */
  readonly maxMeasureMs?: number;
  /** Hard budget of the whole cell, in ms: predicted overruns are skipped, real ones fail. */
  readonly maxCellMs: number;
  /** Stop measuring (successfully, with ≥ 1 sample) once the cell has run this long, in ms. @default Infinity */
  readonly softStopMs?: number;
}

/** Runtime services. */
export interface CellEnvironment {
  /** Clock for all timing. */
  readonly clock: Clock;
  /** Engine barrier awaited around every timed call. */
  readonly barrier?: Barrier;
  /** Abort signal, checked between calls. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Records the cell, each warm-up and timed call and each untimed preparation as trace spans (`bench --trace`);
   * the engine calls made in a timed call are marked timed.
   */
  readonly tracer?: TraceRecorder | undefined;
}

/** A duration in ms rounded to 1 µs: what samples keep (finer digits are clock noise and cost file size). */
const roundToMicrosecond = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Thrown inside the runner to end a cell as skipped. */
class SkipCell extends Error {}

/**
 * Races `work` against the remaining budget (real time), so one hung engine call cannot hang the sweep. The call
 * itself keeps running in the engine; the sweep moves on and records the timeout.
 */
async function withDeadline<T>(
  work: Promise<T>,
  remainingMs: number,
  elapsed: () => number,
  budget: number,
): Promise<T> {
  if (!Number.isFinite(remainingMs)) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DantinoxError('RUNTIME_ERROR', messages.cellTimeout(elapsed(), budget))),
      Math.max(1, remainingMs),
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one cell and returns its record: `completed` with `metrics` (`mean_ms`, `p50_ms`, `p90_ms`, `p99_ms`,
 * `std_ms`, `first_ms`, `tps`, `n`, and `gflops_per_s` when `flops` is known), `skipped` when the warm-up
 * predicts the budget would be exceeded, or `failed` with the error.
 *
 * @throws the abort reason when `env.signal` fires (never a measurement error).
 */
export async function runCell(spec: CellSpec, budget: CellBudget, env: CellEnvironment): Promise<CellRecord> {
  const { tracer } = env;
  if (tracer === undefined) return measureCell(spec, budget, env);
  const before = spec.before;
  const traced: CellSpec = {
    ...spec,
    call: (phase) =>
      phase === 'measure'
        ? tracer.span('timed call', 'timed', () => spec.call(phase), { phase: 'timed' })
        : tracer.span('warm-up call', 'warmup', () => spec.call(phase), { phase: 'warmup' }),
    ...(before === undefined
      ? {}
      : {
          before: (phase: CallPhase) =>
            tracer.span('prepare (untimed)', 'prepare', () => before.call(spec, phase), { phase: 'prepare' }),
        }),
  };
  return tracer.span(spec.cell, 'cell', () => measureCell(traced, budget, env), {
    args: { task: spec.task, phase: spec.phase },
  });
}

/** {@link runCell} without tracing. */
async function measureCell(spec: CellSpec, budget: CellBudget, env: CellEnvironment): Promise<CellRecord> {
  const { clock, barrier, signal } = env;
  const t0 = clock.now();
  const elapsedMs = (): number => Number(clock.now() - t0) / 1e6;
  const base = {
    task: spec.task,
    cell: spec.cell,
    phase: spec.phase,
    ...(spec.batch === undefined ? {} : { batch: spec.batch }),
    ...(spec.seqLen === undefined ? {} : { seqLen: spec.seqLen }),
  };
  const checkAbort = (): void => {
    if (signal?.aborted)
      throw signal.reason ?? new DantinoxError('RUNTIME_ERROR', messages.benchAborted(spec.task));
  };
  const guarded = <T>(work: Promise<T>): Promise<T> =>
    withDeadline(work, budget.maxCellMs - elapsedMs(), elapsedMs, budget.maxCellMs);
  try {
    // Warm-up by count and by time; predict the cell's total from the latest call.
    let firstMs = Number.NaN;
    let lastMs = Number.NaN;
    for (let i = 0; i < budget.nWarmup || elapsedMs() < budget.minWarmupMs; i++) {
      checkAbort();
      if (spec.before) await guarded(spec.before('warmup'));
      const start = clock.now();
      await guarded(spec.call('warmup'));
      if (barrier) await barrier();
      lastMs = Number(clock.now() - start) / 1e6;
      if (i === 0) firstMs = lastMs;
      // Predict from a warm call (the second one when there is one): the cold first call overestimates.
      if (i >= 1 || budget.nWarmup <= 1) {
        const remainingWarmup = Math.max(0, budget.nWarmup - i - 1);
        const full = elapsedMs() + lastMs * (remainingWarmup + timedCalls(budget, lastMs));
        // With a soft stop, measuring ends at the first call after it (at least one timed call).
        const soft = budget.softStopMs ?? Number.POSITIVE_INFINITY;
        const predicted = Math.min(
          full,
          Math.max(elapsedMs() + lastMs * (remainingWarmup + 1), soft) + lastMs,
        );
        if (predicted > budget.maxCellMs)
          throw new SkipCell(messages.cellPredictedTimeout(predicted, budget.maxCellMs));
      }
      if (elapsedMs() > budget.maxCellMs) break;
    }
    const tracker = new LatencyTracker({ clock, ...(barrier === undefined ? {} : { barrier }) });
    const measureStart = clock.now();
    const measuredMs = (): number => Number(clock.now() - measureStart) / 1e6;
    const soft = budget.softStopMs ?? Number.POSITIVE_INFINITY;
    const cap = budget.maxMeasureMs ?? 0;
    for (let i = 0; i < budget.nMeasure || measuredMs() < budget.minMeasureMs; i++) {
      checkAbort();
      if (i > 0 && elapsedMs() >= soft) break;
      if (cap > 0 && i >= fewestTimedCalls(budget) && measuredMs() >= cap) break;
      if (spec.before) await guarded(spec.before('measure'));
      await guarded(tracker.measure(spec.tokensPerCall, () => spec.call('measure')));
      if (elapsedMs() > budget.maxCellMs && i + 1 < budget.nMeasure) {
        throw new DantinoxError('RUNTIME_ERROR', messages.cellTimeout(elapsedMs(), budget.maxCellMs));
      }
      if (i === 0 && Number.isNaN(firstMs)) firstMs = tracker.firstMs ?? Number.NaN;
    }
    const profiling = tracker.result(spec.flops === undefined ? {} : { flops: spec.flops });
    return {
      ...base,
      status: 'completed',
      metrics: cellMetrics(profiling, firstMs, spec.flops),
      profiling,
      samplesMs: Array.from(tracker.samplesMs(), roundToMicrosecond),
      ...(spec.flops === undefined ? {} : { flops: spec.flops }),
    };
  } catch (error) {
    if (signal?.aborted) throw error;
    const status = error instanceof SkipCell ? 'skipped' : 'failed';
    return { ...base, status, error: errorText(error), metrics: {} };
  }
}

/** Timed calls after which `maxMeasureMs` may end a cell: {@link MIN_TIMED_CALLS}, or `nMeasure` when fewer. */
const fewestTimedCalls = (budget: CellBudget): number => Math.min(budget.nMeasure, MIN_TIMED_CALLS);

/** Timed calls a cell is expected to make when each takes `callMs`: `nMeasure`, fewer under `maxMeasureMs`. */
function timedCalls(budget: CellBudget, callMs: number): number {
  const cap = budget.maxMeasureMs ?? 0;
  if (cap <= 0) return budget.nMeasure;
  return Math.min(budget.nMeasure, Math.max(fewestTimedCalls(budget), Math.ceil(cap / callMs)));
}

/** The scalar metrics of a completed cell. */
function cellMetrics(
  p: ProfilingResult,
  firstMs: number,
  flops: FlopsBreakdown | undefined,
): Record<string, number> {
  const m: Record<string, number> = {
    mean_ms: p.meanMs,
    p50_ms: p.p50Ms,
    p90_ms: p.p90Ms,
    p99_ms: p.p99Ms,
    std_ms: p.stdMs,
    min_ms: p.minMs,
    max_ms: p.maxMs,
    first_ms: firstMs,
    tps: p.throughputTps,
    n: p.nSamples,
  };
  if (flops !== undefined && p.meanMs > 0) m['gflops_per_s'] = flops.total / 1e9 / (p.meanMs / 1000);
  return m;
}
