/**
 * `ProfilingResult`: the timing statistics of a {@link LatencyTracker} window.
 */
import type { FlopsBreakdown } from './flops-breakdown.js';
import { type Interval, minSamplesForQuantileCi } from './statistics.js';

/** The fields of a {@link ProfilingResult}; times in milliseconds. */
export interface ProfilingResultInit {
  /** Samples in the window. */
  readonly nSamples: number;
  /** Σ tokens over the window. */
  readonly totalTokens: number;
  /** Σ elapsed time over the window, in ms. */
  readonly totalMs: number;
  /** Mean latency, in ms. */
  readonly meanMs: number;
  /** Median latency (linear interpolation), in ms. */
  readonly p50Ms: number;
  /** 90th-percentile latency, in ms. */
  readonly p90Ms: number;
  /** 95th-percentile latency, in ms. */
  readonly p95Ms: number;
  /** 99th-percentile latency, in ms. */
  readonly p99Ms: number;
  /** Sample standard deviation of the latency (Bessel), in ms; `NaN` for one sample. */
  readonly stdMs: number;
  /** Fastest sample, in ms. */
  readonly minMs: number;
  /** Slowest sample, in ms. */
  readonly maxMs: number;
  /** Unscaled median absolute deviation of the latency, in ms. */
  readonly madMs: number;
  /** 95% distribution-free confidence interval of p50, in ms; `NaN` bounds below 6 samples. */
  readonly p50CiMs: Interval;
  /** 95% distribution-free confidence interval of p99, in ms; `NaN` bounds below 368 samples. */
  readonly p99CiMs: Interval;
  /** Σ tokens / Σ seconds over the window, in tokens per second; 0 when Σ seconds is 0. */
  readonly throughputTps: number;
  /** The first sample recorded since construction or the last reset (the cold call), in ms; 0 if none. */
  readonly firstMs: number;
  /** Samples recorded since construction or the last reset, including those evicted from the window. */
  readonly nRecorded: number;
  /** An analytical FLOPs count attached to the result (the seed's `flops` field). */
  readonly flops?: FlopsBreakdown | undefined;
}

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
  readonly nSamples: number;
  /** Σ tokens over the window. */
  readonly totalTokens: number;
  /** Σ elapsed time over the window, in ms. */
  readonly totalMs: number;
  /** Mean latency, in ms. */
  readonly meanMs: number;
  /** Median latency (linear interpolation), in ms. */
  readonly p50Ms: number;
  /** 90th-percentile latency, in ms. */
  readonly p90Ms: number;
  /** 95th-percentile latency, in ms. */
  readonly p95Ms: number;
  /** 99th-percentile latency, in ms. */
  readonly p99Ms: number;
  /** Sample standard deviation (Bessel), in ms; `NaN` for one sample, 0 for none. */
  readonly stdMs: number;
  /** Fastest sample, in ms. */
  readonly minMs: number;
  /** Slowest sample, in ms. */
  readonly maxMs: number;
  /** Unscaled median absolute deviation, in ms. */
  readonly madMs: number;
  /** 95% distribution-free confidence interval of p50, in ms; `NaN` bounds below 6 samples. */
  readonly p50CiMs: Interval;
  /** 95% distribution-free confidence interval of p99, in ms; `NaN` bounds below 368 samples. */
  readonly p99CiMs: Interval;
  /** Σ tokens / Σ seconds, in tokens per second; 0 when Σ seconds is 0. */
  readonly throughputTps: number;
  /** The first (cold) sample since construction or reset, in ms; 0 if none. */
  readonly firstMs: number;
  /** Samples recorded since construction or reset, including evicted ones. */
  readonly nRecorded: number;
  /** Attached analytical FLOPs count, if any. */
  readonly flops: FlopsBreakdown | undefined;

  /** Builds a result from its fields (usually via {@link LatencyTracker.result}); the intervals are copied and frozen. */
  constructor(init: ProfilingResultInit) {
    this.nSamples = init.nSamples;
    this.totalTokens = init.totalTokens;
    this.totalMs = init.totalMs;
    this.meanMs = init.meanMs;
    this.p50Ms = init.p50Ms;
    this.p90Ms = init.p90Ms;
    this.p95Ms = init.p95Ms;
    this.p99Ms = init.p99Ms;
    this.stdMs = init.stdMs;
    this.minMs = init.minMs;
    this.maxMs = init.maxMs;
    this.madMs = init.madMs;
    this.p50CiMs = Object.freeze([init.p50CiMs[0], init.p50CiMs[1]] as const);
    this.p99CiMs = Object.freeze([init.p99CiMs[0], init.p99CiMs[1]] as const);
    this.throughputTps = init.throughputTps;
    this.firstMs = init.firstMs;
    this.nRecorded = init.nRecorded;
    this.flops = init.flops;
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
