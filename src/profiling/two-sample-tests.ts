/**
 * Two-sample statistics for comparing runs: the Mann–Whitney U test (normal approximation with tie and
 * continuity corrections) and a seeded percentile bootstrap of the relative change of a statistic. Pure
 * functions; the only randomness is the {@link Rng} passed in.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { Rng } from '../rng.js';
import { type Interval, quantileSorted } from './statistics.js';

/** The result of {@link mannWhitneyU}. */
export interface MannWhitneyResult {
  /** U statistic of the first sample: the number of pairs (a, b) with a > b, ties counting ½. */
  readonly u: number;
  /** Standardised statistic (continuity-corrected, tie-corrected), signed like U − n₁n₂/2; `NaN` when a sample is empty. */
  readonly z: number;
  /** Two-sided p-value from the normal approximation, in [0, 1] (1 when every value ties); `NaN` when a sample is empty. */
  readonly pValue: number;
  /** The method, for reports: `Mann–Whitney U (two-sided, normal approximation, tie + continuity corrected)`. */
  readonly method: string;
}

/** Name of the test {@link mannWhitneyU} performs, as printed in comparison reports. */
export const MANN_WHITNEY_METHOD =
  'Mann–Whitney U (two-sided, normal approximation, tie + continuity corrected)';

/**
 * The complementary error function erfc(x), with fractional error below 1.2·10⁻⁷ everywhere (the Chebyshev
 * fit of Numerical Recipes §6.2, `erfcc`).
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(poly);
  return x >= 0 ? r : 2 - r;
}

/** The standard normal upper tail P(Z > z), with relative error below 1.2·10⁻⁷ (via {@link erfc}). */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/** @internal Throws `INVALID_INPUT` when a value of `samples` is not finite. */
export function checkFinite(samples: ArrayLike<number>): void {
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new DantinoxError('INVALID_INPUT', messages.nonFiniteSample(i, x));
    }
  }
}

/**
 * The Mann–Whitney U test (Wilcoxon rank-sum) of two independent samples, two-sided: does one tend to give
 * larger values than the other? Ranks the pooled sample (ties get their mid-rank), takes U₁ = R₁ − n₁(n₁+1)/2,
 * and compares max(U₁, U₂) with the normal approximation: mean n₁n₂/2, variance
 * n₁n₂/12 · ((n+1) − Σ(t³ − t)/(n(n − 1))) over tie groups of size t, with a 0.5 continuity correction; p is
 * twice the upper tail, capped at 1. This matches SciPy's `mannwhitneyu(a, b, method='asymptotic')`. The
 * approximation is good from about 8 samples per side; below that, p-values are approximate.
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_INPUT` when a sample is not a finite number.
 */
export function mannWhitneyU(a: ArrayLike<number>, b: ArrayLike<number>): MannWhitneyResult {
  checkFinite(a);
  checkFinite(b);
  const n1 = a.length;
  const n2 = b.length;
  const n = n1 + n2;
  const pooled: { v: number; first: boolean }[] = [];
  for (let i = 0; i < n1; i++) pooled.push({ v: a[i] as number, first: true });
  for (let i = 0; i < n2; i++) pooled.push({ v: b[i] as number, first: false });
  pooled.sort((x, y) => x.v - y.v);
  let rankSumA = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && (pooled[j] as { v: number }).v === (pooled[i] as { v: number }).v) j++;
    const midRank = (i + 1 + j) / 2; // ranks i+1 … j
    for (let k = i; k < j; k++) if ((pooled[k] as { first: boolean }).first) rankSumA += midRank;
    const t = j - i;
    tieTerm += t * t * t - t;
    i = j;
  }
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = n < 2 ? 0 : ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (n1 === 0 || n2 === 0) {
    return Object.freeze({ u, z: Number.NaN, pValue: Number.NaN, method: MANN_WHITNEY_METHOD });
  }
  // Every value tied: no evidence of a difference (SciPy gives p = 1 too).
  if (!(variance > 0)) return Object.freeze({ u, z: 0, pValue: 1, method: MANN_WHITNEY_METHOD });
  const sd = Math.sqrt(variance);
  const uMax = Math.max(u, n1 * n2 - u);
  const zAbs = Math.max(0, uMax - mean - 0.5) / sd;
  return Object.freeze({
    u,
    z: u >= mean ? zAbs : -zAbs,
    pValue: Math.min(1, 2 * normalSf(zAbs)),
    method: MANN_WHITNEY_METHOD,
  });
}

/** A statistic of a sample, computed from its values sorted ascending (e.g. the mean, a percentile). */
export type SortedStatistic = (sorted: Float64Array) => number;

/** Options of {@link bootstrapRelativeChange}. */
export interface BootstrapOptions {
  /** Seeds the resampling (four draws per call); the same seed gives the same intervals. */
  readonly rng: Rng;
  /** Number of bootstrap resamples. @default 2000 */
  readonly resamples?: number;
  /** Coverage of the two-sided percentile interval, in (0, 1). @default 0.95 */
  readonly confidence?: number;
}

/** The arithmetic mean of a sorted sample (a {@link SortedStatistic}). */
export const sortedMean: SortedStatistic = (s) => {
  let sum = 0;
  for (const x of s) sum += x;
  return sum / s.length;
};

/** The q-quantile (linear interpolation) of a sorted sample, as a {@link SortedStatistic}. */
export const sortedQuantile =
  (q: number): SortedStatistic =>
  (s) =>
    quantileSorted(s, q);

/**
 * @internal
 * A fast uniform index source for resampling: sfc32 (Chris Doty-Humphrey's small fast counter generator, 128-bit
 * state) seeded from four 32-bit words of `rng`. `Rng` draws go through bigint arithmetic, which would make a
 * 2000 × 1000-sample bootstrap take seconds; sfc32 passes PractRand and needs only 32-bit integer operations.
 */
export function indexSource(rng: Rng): (n: number) => number {
  const word = (): number => Number(rng.nextBigUint64() >> 32n) >>> 0;
  let a = word();
  let b = word();
  let c = word();
  let d = word() | 1;
  return (n) => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return Math.floor(((t >>> 0) / 4294967296) * n);
  };
}

function resample(source: Float64Array, out: Float64Array, index: (n: number) => number): Float64Array {
  for (let i = 0; i < out.length; i++) out[i] = source[index(source.length)] as number;
  return out.sort();
}

/** @internal `resamples` and `confidence` of bootstrap options, checked, with their defaults (2000, 0.95). */
export function checkBootstrapOptions(options: BootstrapOptions): { resamples: number; confidence: number } {
  const resamples = options.resamples ?? 2000;
  const confidence = options.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('resamples', resamples, 'a positive integer'),
    );
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('confidence', confidence, 'a number in (0, 1)'),
    );
  }
  return { resamples, confidence };
}

/**
 * The percentile interval of bootstrap replicates at coverage `confidence`: their (1 − c)/2 and (1 + c)/2 quantiles
 * (linear interpolation; NaN replicates dropped), e.g. the 2.5% and 97.5% quantiles at 0.95.
 */
export function percentileInterval(replicates: Float64Array, confidence: number): Interval {
  const tail = (1 - confidence) / 2;
  const finite = replicates.filter((x) => !Number.isNaN(x)).sort();
  return [quantileSorted(finite, tail), quantileSorted(finite, 1 - tail)];
}

/**
 * Percentile-bootstrap confidence intervals of each statistic of one sample, as ratios to the statistic of the
 * sample itself: the interval of `stat(resample) / stat(sample)` (multiply by the estimate for an interval of
 * the statistic). Seeded like {@link bootstrapRelativeChange}; an empty sample gives `[NaN, NaN]`.
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_INPUT` for a non-finite sample, `INVALID_OPTION` for bad options.
 */
export function bootstrapRatio(
  sample: ArrayLike<number>,
  statistics: readonly SortedStatistic[],
  options: BootstrapOptions,
): Interval[] {
  checkFinite(sample);
  const { resamples, confidence } = checkBootstrapOptions(options);
  if (sample.length === 0) return statistics.map(() => [Number.NaN, Number.NaN] as const);
  const source = Float64Array.from(sample).sort();
  const estimates = statistics.map((stat) => stat(source));
  const draw = new Float64Array(source.length);
  const ratios = statistics.map(() => new Float64Array(resamples));
  const index = indexSource(options.rng);
  for (let r = 0; r < resamples; r++) {
    resample(source, draw, index);
    statistics.forEach((stat, k) => {
      (ratios[k] as Float64Array)[r] = stat(draw) / (estimates[k] as number);
    });
  }
  return ratios.map((c) => percentileInterval(c, confidence));
}

/**
 * Percentile-bootstrap confidence intervals of the relative change `stat(candidate) / stat(baseline) − 1` (a
 * fraction: 0.05 is +5%) for each statistic. Each of `resamples` rounds draws both samples again with
 * replacement (independently, same sizes) and evaluates every statistic on the same draws; the interval is the
 * (1 − c)/2 and (1 + c)/2 quantiles of the rounds' changes. Seeded: the same `rng` state gives the same
 * intervals. An empty sample gives `[NaN, NaN]`.
 *
 * @returns One interval per statistic, in order.
 * @throws {@link dantinox!DantinoxError} with code `INVALID_INPUT` when a sample is not finite, or `INVALID_OPTION` when
 * `resamples` is not a positive integer or `confidence` is not in (0, 1).
 */
export function bootstrapRelativeChange(
  baseline: ArrayLike<number>,
  candidate: ArrayLike<number>,
  statistics: readonly SortedStatistic[],
  options: BootstrapOptions,
): Interval[] {
  checkFinite(baseline);
  checkFinite(candidate);
  const { resamples, confidence } = checkBootstrapOptions(options);
  if (baseline.length === 0 || candidate.length === 0) {
    return statistics.map(() => [Number.NaN, Number.NaN] as const);
  }
  const base = Float64Array.from(baseline);
  const cand = Float64Array.from(candidate);
  const baseDraw = new Float64Array(base.length);
  const candDraw = new Float64Array(cand.length);
  const changes = statistics.map(() => new Float64Array(resamples));
  const index = indexSource(options.rng);
  for (let r = 0; r < resamples; r++) {
    resample(base, baseDraw, index);
    resample(cand, candDraw, index);
    statistics.forEach((stat, k) => {
      (changes[k] as Float64Array)[r] = stat(candDraw) / stat(baseDraw) - 1;
    });
  }
  return changes.map((c) => percentileInterval(c, confidence));
}
