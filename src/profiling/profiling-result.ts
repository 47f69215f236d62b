/**
 * `ProfilingResult`: the timing statistics of a {@link LatencyTracker} window.
 */
import type { FlopsBreakdown } from './flops-breakdown.js';
import { type Interval, minSamplesForQuantileCi } from './statistics.js';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Milliseconds with two decimals (the seed's `X.XX ms`), or three significant digits below 0.1 ms. */
function ms(value: number): string {
  if (Number.isNaN(value)) return 'n/a';
  return value !== 0 && Math.abs(value) < 0.1 ? value.toPrecision(3) : value.toFixed(2);
}

/**
 * Timing statistics of a window of samples, in milliseconds, tokens and tokens per second, with the seed's
 * fields (`meanMs`, `p50Ms`, `p99Ms`, `throughputTps`, `nSamples`, `totalTokens`, `flops`) and more (p90, p95,
 * SD, min, max, MAD, confidence intervals, the cold first call). Immutable.
 *
 * Percentiles use linear interpolation (NumPy's default). With fewer than 100 samples p99 lies between the two
 * largest samples, and `toString()` says so; its confidence interval needs 368 samples and is `[NaN, NaN]`
 * below that. An empty window gives `nSamples = 0` and zeros (CIs stay `NaN`: there is no interval).
 */
export class ProfilingResult {
  /** Samples in the window. */
  declare readonly nSamples: number;
  /** Σ tokens over the window. */
  declare readonly totalTokens: number;
  /** Σ elapsed time over the window, in ms. */
  declare readonly totalMs: number;
  /** Mean latency, in ms. */
  declare readonly meanMs: number;
  /** Median latency (linear interpolation), in ms. */
  declare readonly p50Ms: number;
  /** 90th-percentile latency, in ms. */
  declare readonly p90Ms: number;
  /** 95th-percentile latency, in ms. */
  declare readonly p95Ms: number;
  /** 99th-percentile latency, in ms. */
  declare readonly p99Ms: number;
  /** Sample standard deviation (Bessel), in ms; `NaN` for one sample, 0 for none. */
  declare readonly stdMs: number;
  /** Fastest sample, in ms. */
  declare readonly minMs: number;
  /** Slowest sample, in ms. */
  declare readonly maxMs: number;
  /** Unscaled median absolute deviation, in ms. */
  declare readonly madMs: number;
  /** 95% distribution-free confidence interval of p50, in ms; `NaN` bounds below 6 samples. */
  declare readonly p50CiMs: Interval;
  /** 95% distribution-free confidence interval of p99, in ms; `NaN` bounds below 368 samples. */
  declare readonly p99CiMs: Interval;
  /** Σ tokens / Σ seconds, in tokens per second; 0 when Σ seconds is 0. */
  declare readonly throughputTps: number;
  /** The first (cold) sample since construction or reset, in ms; 0 if none. */
  declare readonly firstMs: number;
  /** Samples recorded since construction or reset, including evicted ones. */
  declare readonly nRecorded: number;
  /** Attached analytical FLOPs count, if any. */
  declare readonly flops: FlopsBreakdown | undefined;

  /** Builds a result from its fields (usually via {@link LatencyTracker.result}); the intervals are copied and frozen. */
  constructor(init: ProfilingResultInit) {
    Object.assign(this, init, {
      p50CiMs: Object.freeze([init.p50CiMs[0], init.p50CiMs[1]] as const),
      p99CiMs: Object.freeze([init.p99CiMs[0], init.p99CiMs[1]] as const),
      flops: init.flops,
    });
    Object.freeze(this);
  }

  /** An empty result: no samples, zeros, `NaN` confidence bounds. */
  static empty(flops?: FlopsBreakdown): ProfilingResult {
    const none: Interval = [Number.NaN, Number.NaN];
    return new ProfilingResult({
      nSamples: 0,
      totalTokens: 0,
      totalMs: 0,
      meanMs: 0,
      p50Ms: 0,
      p90Ms: 0,
      p95Ms: 0,
      p99Ms: 0,
      stdMs: 0,
      minMs: 0,
      maxMs: 0,
      madMs: 0,
      p50CiMs: none,
      p99CiMs: none,
      throughputTps: 0,
      firstMs: 0,
      nRecorded: 0,
      flops,
    });
  }

  /** A copy with a FLOPs count attached (printed as the seed's `flops` line). */
  withFlops(flops: FlopsBreakdown): ProfilingResult {
    return new ProfilingResult({ ...this, flops });
  }

  /**
   * The seed's form — `Profiling (N samples, T tokens):` then `latency mean`, `latency p50`, `latency p99`
   * and `throughput` lines — followed by p90, p95, SD, min, max, MAD, the confidence intervals, the first
   * call and, when attached, the FLOPs breakdown.
   */
  toString(): string {
    const n = this.nSamples;
    const lines = [`Profiling (${integer.format(n)} samples, ${integer.format(this.totalTokens)} tokens):`];
    lines.push(`  latency mean : ${ms(this.meanMs)} ms`);
    lines.push(`  latency p50  : ${ms(this.p50Ms)} ms`);
    const p99Note =
      n > 0 && n < 100 ? `  (only ${n} samples: p99 lies between the two largest, not a tail estimate)` : '';
    lines.push(`  latency p99  : ${ms(this.p99Ms)} ms${p99Note}`);
    lines.push(`  throughput   : ${integer.format(this.throughputTps)} tokens/s`);
    if (n === 0) {
      lines.push('  (no samples recorded)');
    } else {
      lines.push(`  latency p90  : ${ms(this.p90Ms)} ms`);
      lines.push(`  latency p95  : ${ms(this.p95Ms)} ms`);
      lines.push(`  latency std  : ${ms(this.stdMs)} ms`);
      lines.push(`  latency min  : ${ms(this.minMs)} ms`);
      lines.push(`  latency max  : ${ms(this.maxMs)} ms`);
      lines.push(`  latency MAD  : ${ms(this.madMs)} ms`);
      lines.push(`  p50 95% CI   : ${interval(this.p50CiMs, 0.5)}`);
      lines.push(`  p99 95% CI   : ${interval(this.p99CiMs, 0.99)}`);
      lines.push(`  first call   : ${ms(this.firstMs)} ms`);
    }
    if (this.flops !== undefined) lines.push(`  flops        : ${String(this.flops)}`);
    return lines.join('\n');
  }
}

function interval(ci: Interval, q: number): string {
  if (Number.isNaN(ci[0])) return `n/a (needs ≥ ${minSamplesForQuantileCi(q)} samples)`;
  return `[${ms(ci[0])}, ${ms(ci[1])}] ms`;
}

/** The data fields of {@link ProfilingResult} (its methods left out). */
export type ProfilingFields = {
  readonly [K in keyof ProfilingResult as ProfilingResult[K] extends (...args: never[]) => unknown
    ? never
    : K]: ProfilingResult[K];
};

/** The fields of a {@link ProfilingResult}; times in milliseconds. */
export type ProfilingResultInit = Omit<ProfilingFields, 'flops'> & {
  /** Analytical FLOPs of one measured call, when known. */
  readonly flops?: FlopsBreakdown | undefined;
};
