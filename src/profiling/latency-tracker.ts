/**
 * `LatencyTracker`: wall-clock timing of calls over a rolling window of samples.
 */
import { type Clock, hrtimeClock } from './clock.js';
import type { FlopsBreakdown } from './flops-breakdown.js';
import { checkNonNegativeNumber, checkPositiveInt } from './option-checks.js';
import { ProfilingResult } from './profiling-result.js';
import { summarize } from './statistics.js';

/**
 * A synchronisation point awaited before the clock starts and before it stops (the seed's
 * `effects_barrier`): it should resolve when all work queued on the device or engine has finished. For
 * ONNX Runtime, awaiting `run()` already is one, so a model's `barrier()` may resolve immediately.
 */
export type Barrier = () => unknown;

/** Options of {@link LatencyTracker}. */
export interface LatencyTrackerOptions {
  /**
   * Number of most recent samples kept; older ones are evicted (the first sample is kept apart as `firstMs`).
   * @default 10_000
   */
  window?: number;
  /** Awaited before starting and before stopping the clock of every measurement. Default: none. */
  barrier?: Barrier;
  /**
   * The clock.
   * @default hrtimeClock (process.hrtime.bigint)
   */
  clock?: Clock;
}

/** Options of {@link LatencyTracker.result}. */
export interface LatencyResultOptions {
  /** An analytical FLOPs count to attach to the result (printed as the seed's `flops` line). */
  flops?: FlopsBreakdown;
}

/**
 * A timing span started by {@link LatencyTracker.span}: ending it (explicitly or by `await using`) awaits the
 * barrier, stops the clock and records one sample.
 */
export interface LatencySpan extends AsyncDisposable {
  /** Whether the span has ended or was cancelled. */
  readonly ended: boolean;
  /**
   * Awaits the barrier, stops the clock and records the sample; resolves to the elapsed time in ms (`NaN` if
   * the span was cancelled). Calling it again (or disposing after it) records nothing more and resolves to the
   * same value.
   */
  end(): Promise<number>;
  /** Ends the span without recording anything (e.g. in a `catch` when the timed work failed); no effect once `end()` was called. */
  cancel(): void;
}

const INITIAL_CAPACITY = 1024;

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Times calls and keeps the last `window` samples (elapsed ns + token count, in a ring buffer: O(1) per
 * sample), then summarises them with {@link LatencyTracker.result}. Each measurement awaits the optional
 * barrier, reads the clock, runs the work, awaits the barrier again and reads the clock.
 *
 * @example
 * ```ts
 * const tracker = new LatencyTracker({ window: 10_000, barrier: () => model.barrier() });
 * const logits = await tracker.measure(batch * seqLen, () => model.forward(ids));
 * {
 *   await using _span = await tracker.span(256);
 *   await model.generate(prompt);
 * }
 * console.log(String(tracker.result()));
 * ```
 */
export class LatencyTracker {
  /** Capacity of the rolling window, in samples. */
  readonly window: number;
  /** The clock samples are read from. */
  readonly clock: Clock;
  readonly #barrier: Barrier | undefined;
  #elapsedNs: Float64Array;
  #tokens: Float64Array;
  /** Index the next sample is written to. */
  #next = 0;
  #count = 0;
  #recorded = 0;
  #firstNs = 0;

  /** @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when `window` is not a positive integer. */
  constructor(options: LatencyTrackerOptions = {}) {
    const { window = 10_000, barrier, clock = hrtimeClock } = options;
    checkPositiveInt('window', window);
    this.window = window;
    this.clock = clock;
    this.#barrier = barrier;
    const capacity = Math.min(window, INITIAL_CAPACITY);
    this.#elapsedNs = new Float64Array(capacity);
    this.#tokens = new Float64Array(capacity);
  }

  /** Number of samples in the window. */
  get size(): number {
    return this.#count;
  }

  /** The first sample recorded since construction or the last {@link reset} (the cold call), in ms; `undefined` if none. */
  get firstMs(): number | undefined {
    return this.#recorded === 0 ? undefined : this.#firstNs / 1e6;
  }

  /** Appends one sample in ns, evicting the oldest when the window is full. O(1) amortised. */
  #push(elapsedNs: number, nTokens: number): void {
    if (this.#recorded === 0) this.#firstNs = elapsedNs;
    this.#recorded++;
    if (this.#next === this.#elapsedNs.length && this.#elapsedNs.length < this.window) this.#grow();
    this.#elapsedNs[this.#next] = elapsedNs;
    this.#tokens[this.#next] = nTokens;
    this.#next = this.#next + 1 === this.window ? 0 : this.#next + 1;
    if (this.#count < this.window) this.#count++;
  }

  /** Doubles the buffers (up to `window`); only happens before the ring first wraps, so order is preserved. */
  #grow(): void {
    const capacity = Math.min(this.window, this.#elapsedNs.length * 2);
    const ns = new Float64Array(capacity);
    const tokens = new Float64Array(capacity);
    ns.set(this.#elapsedNs);
    tokens.set(this.#tokens);
    this.#elapsedNs = ns;
    this.#tokens = tokens;
  }

  /**
   * Records one sample measured elsewhere.
   *
   * @param elapsedMs - Elapsed time, in milliseconds (≥ 0).
   * @param nTokens - Tokens processed by the timed call (≥ 0).
   * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when either is negative or not finite.
   */
  record(elapsedMs: number, nTokens: number): void {
    checkNonNegativeNumber('elapsedMs', elapsedMs);
    checkNonNegativeNumber('nTokens', nTokens);
    this.#push(elapsedMs * 1e6, nTokens);
  }

  /**
   * Times one call of `fn` and records (elapsed, `nTokens`): awaits the barrier, reads the clock, calls `fn`
   * and awaits its result if it is a promise, awaits the barrier, reads the clock. Resolves to `fn`'s value.
   * If `fn` throws or rejects, nothing is recorded and the promise rejects with that error. Without a barrier
   * and with a synchronous `fn`, the clock is stopped right after `fn` returns (no event-loop turn is timed).
   *
   * @param nTokens - Tokens processed by the call (≥ 0), for throughput.
   * @param fn - The work to time, sync or async.
   * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` (synchronously) when `nTokens` is negative or not finite.
   */
  measure<T>(nTokens: number, fn: () => T): Promise<Awaited<T>> {
    checkNonNegativeNumber('nTokens', nTokens);
    if (this.#barrier !== undefined) return this.#measureWithBarrier(nTokens, fn, this.#barrier);
    const start = this.clock.now();
    let value: T;
    try {
      value = fn();
    } catch (error) {
      return Promise.reject(error);
    }
    // Read the clock before inspecting the value, so a sync sample carries no bookkeeping; a promise's end time
    // is read again once it settles.
    const stop = this.clock.now();
    if (isPromiseLike(value)) return this.#finish(nTokens, start, value as PromiseLike<Awaited<T>>);
    this.#push(Number(stop - start), nTokens);
    return Promise.resolve(value as Awaited<T>);
  }

  async #finish<T>(nTokens: number, start: bigint, pending: PromiseLike<T>): Promise<T> {
    const value = await pending;
    this.#push(Number(this.clock.now() - start), nTokens);
    return value;
  }

  async #measureWithBarrier<T>(nTokens: number, fn: () => T, barrier: Barrier): Promise<Awaited<T>> {
    await barrier();
    const start = this.clock.now();
    const value = await fn();
    await barrier();
    this.#push(Number(this.clock.now() - start), nTokens);
    return value;
  }

  /**
   * Starts a span after awaiting the barrier; ending it records one sample of `nTokens` tokens. Use it with
   * `await using` to time a block:
   *
   * ```ts
   * {
   *   await using _span = await tracker.span(256);
   *   await model.generate(prompt);
   * } // barrier, clock read, sample recorded
   * ```
   *
   * Disposal cannot see whether the block threw (`await using` does not pass the error to the disposer), so
   * a span disposed during an exception **still records** its sample; call `span.cancel()` in a `catch` to
   * drop it, or use {@link LatencyTracker.measure}, which records nothing when the work throws.
   *
   * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` (synchronously) when `nTokens` is negative or not finite.
   */
  span(nTokens: number): Promise<LatencySpan> {
    checkNonNegativeNumber('nTokens', nTokens);
    const barrier = this.#barrier;
    const start = (): LatencySpan => new ActiveSpan(this.clock, barrier, (ns) => this.#push(ns, nTokens));
    if (barrier === undefined) return Promise.resolve(start());
    return Promise.resolve(barrier()).then(start);
  }

  /** Drops every sample and the first-call record. */
  reset(): void {
    this.#next = 0;
    this.#count = 0;
    this.#recorded = 0;
    this.#firstNs = 0;
  }

  /** The samples in the window, oldest first, in milliseconds (a copy). */
  samplesMs(): Float64Array {
    const out = new Float64Array(this.#count);
    const start = this.#count < this.window ? 0 : this.#next;
    for (let i = 0; i < this.#count; i++) {
      out[i] = (this.#elapsedNs[(start + i) % this.window] as number) / 1e6;
    }
    return out;
  }

  /**
   * Summarises the window: mean, p50/p90/p95/p99 (linear interpolation), SD, min, max, MAD, 95% confidence
   * intervals for p50 and p99, throughput = Σ tokens / Σ seconds, the first (cold) call. O(n log n) in the
   * window size. An empty tracker gives a result with `nSamples = 0` and zeros.
   */
  result(options: LatencyResultOptions = {}): ProfilingResult {
    const n = this.#count;
    if (n === 0) return ProfilingResult.empty(options.flops);
    const samplesMs = this.samplesMs();
    let totalNs = 0;
    let totalTokens = 0;
    for (let i = 0; i < n; i++) {
      totalNs += this.#elapsedNs[i] as number;
      totalTokens += this.#tokens[i] as number;
    }
    const s = summarize(samplesMs);
    return new ProfilingResult({
      nSamples: n,
      totalTokens,
      totalMs: totalNs / 1e6,
      meanMs: s.mean,
      p50Ms: s.p50,
      p90Ms: s.p90,
      p95Ms: s.p95,
      p99Ms: s.p99,
      stdMs: s.std,
      minMs: s.min,
      maxMs: s.max,
      madMs: s.mad,
      p50CiMs: s.p50Ci,
      p99CiMs: s.p99Ci,
      throughputTps: totalNs > 0 ? totalTokens / (totalNs / 1e9) : 0,
      firstMs: this.#firstNs / 1e6,
      nRecorded: this.#recorded,
      flops: options.flops,
    });
  }
}

/** The span returned by {@link LatencyTracker.span}. */
class ActiveSpan implements LatencySpan {
  readonly #clock: Clock;
  readonly #barrier: Barrier | undefined;
  readonly #record: (elapsedNs: number) => void;
  readonly #start: bigint;
  #result: Promise<number> | undefined;
  #cancelled = false;

  constructor(clock: Clock, barrier: Barrier | undefined, record: (elapsedNs: number) => void) {
    this.#clock = clock;
    this.#barrier = barrier;
    this.#record = record;
    this.#start = clock.now();
  }

  get ended(): boolean {
    return this.#result !== undefined || this.#cancelled;
  }

  end(): Promise<number> {
    if (this.#cancelled) return Promise.resolve(Number.NaN);
    this.#result ??= this.#stop();
    return this.#result;
  }

  async #stop(): Promise<number> {
    if (this.#barrier !== undefined) await this.#barrier();
    const elapsedNs = Number(this.#clock.now() - this.#start);
    this.#record(elapsedNs);
    return elapsedNs / 1e6;
  }

  cancel(): void {
    if (this.#result === undefined) this.#cancelled = true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.end();
  }
}
