/**
 * Descriptive statistics of latency samples: interpolated quantiles, distribution-free confidence intervals
 * for quantiles, mean, sample SD and MAD. Pure functions.
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** A closed interval `[lower, upper]`; both bounds are `NaN` when the interval is unavailable. */
export type Interval = readonly [lower: number, upper: number];

/** The order statistics bounding a quantile's confidence interval (1-based ranks) and their exact coverage. */
export interface OrderStatisticRanks {
  /** 1-based rank of the lower bound in the sorted sample. */
  readonly lower: number;
  /** 1-based rank of the upper bound in the sorted sample. */
  readonly upper: number;
  /** Exact probability that `[x(lower), x(upper)]` contains the true quantile, for a continuous distribution. */
  readonly coverage: number;
}

/** Summary statistics of a sample, in the unit of the samples. */
export interface SampleSummary {
  /** Number of samples. */
  readonly n: number;
  /** Arithmetic mean. */
  readonly mean: number;
  /** Sample standard deviation (Bessel's n − 1); `NaN` for n < 2. */
  readonly std: number;
  /** Smallest sample. */
  readonly min: number;
  /** Largest sample. */
  readonly max: number;
  /** Median (linear interpolation). */
  readonly p50: number;
  /** 90th percentile (linear interpolation). */
  readonly p90: number;
  /** 95th percentile (linear interpolation). */
  readonly p95: number;
  /** 99th percentile (linear interpolation). */
  readonly p99: number;
  /** 95% distribution-free confidence interval of the median; `NaN` bounds for n < 6. */
  readonly p50Ci: Interval;
  /** 95% distribution-free confidence interval of the 99th percentile; `NaN` bounds for n < 368. */
  readonly p99Ci: Interval;
  /** Median absolute deviation from the median, unscaled (multiply by 1.4826 for a normal-consistent SD). */
  readonly mad: number;
}

function checkQuantile(q: number): void {
  if (!(q >= 0 && q <= 1)) {
    throw new DantinoxError('INVALID_OPTION', messages.invalidNumberOption('q', q, 'a number in [0, 1]'));
  }
}

function checkConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('confidence', confidence, 'a number in (0, 1)'),
    );
  }
}

/**
 * The q-quantile of an ascending sample by **linear interpolation** between order statistics: with
 * h = (n − 1)·q, the value `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])` (0-based). This is NumPy's default
 * (`method='linear'`, Hyndman–Fan type 7) and tinybench's `quantileSorted`; it is the one percentile method
 * used throughout dantinox. With n < 100, p99 lies between the two largest samples.
 *
 * @param sorted - Samples in ascending order (not checked).
 * @param q - Quantile in [0, 1].
 * @returns The quantile, or `NaN` for an empty sample.
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when q is outside [0, 1].
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  checkQuantile(q);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  if (lo + 1 >= n) return a;
  const b = sorted[lo + 1] as number;
  return a + (h - lo) * (b - a);
}

/**
 * The smallest sample size for which {@link quantileRanks} gives a two-sided interval for the q-quantile at
 * this confidence: both (1 − q)^n and q^n must be ≤ (1 − confidence)/2. 6 for the median, 368 for p99, at 95%.
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when q is not in (0, 1) or confidence not in (0, 1).
 */
export function minSamplesForQuantileCi(q: number, confidence = 0.95): number {
  checkQuantile(q);
  checkConfidence(confidence);
  if (q === 0 || q === 1) return Number.POSITIVE_INFINITY;
  const tail = (1 - confidence) / 2;
  const worst = Math.max(q, 1 - q);
  let n = Math.max(1, Math.floor(Math.log(tail) / Math.log(worst)) - 1);
  while (worst ** n > tail) n++;
  return n;
}

/**
 * The 1-based ranks (l, u) of the order statistics that form a distribution-free confidence interval for the
 * q-quantile of a sample of n: the number of samples below the true quantile is Binomial(n, q), so
 * `P(x(l) ≤ ξq ≤ x(u)) = F(u − 1) − F(l − 1)` with F the Binomial(n, q) CDF, whatever the distribution (if
 * continuous). dantinox takes the equal-tailed choice: l is the largest rank with F(l − 1) ≤ α/2 and u the
 * smallest with F(u − 1) ≥ 1 − α/2 (α = 1 − confidence), so coverage ≥ confidence. No interpolation.
 *
 * @returns The ranks and exact coverage, or `undefined` when n is too small for a two-sided interval
 * (see {@link minSamplesForQuantileCi}): then no pair of sample values bounds the quantile with that
 * confidence, and none is pretended.
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when q or confidence is out of range.
 */
export function quantileRanks(n: number, q: number, confidence = 0.95): OrderStatisticRanks | undefined {
  checkQuantile(q);
  checkConfidence(confidence);
  if (n < 1 || q === 0 || q === 1) return undefined;
  const tail = (1 - confidence) / 2;
  // Binomial(n, q) pmf in log space (no underflow for large n): log p(k+1) = log p(k) + log((n−k)/(k+1)) + log(q/(1−q)).
  const logRatio = Math.log(q) - Math.log1p(-q);
  let logPmf = n * Math.log1p(-q);
  let cdf = 0;
  let lower = 0;
  let upper = 0;
  let cdfLower = 0;
  for (let k = 0; k < n; k++) {
    cdf += Math.exp(logPmf); // cdf = F(k)
    if (cdf <= tail) {
      lower = k + 1; // F(lower − 1) ≤ α/2
      cdfLower = cdf;
    }
    if (cdf >= 1 - tail) {
      upper = k + 1; // smallest u with F(u − 1) ≥ 1 − α/2
      const coverage = Math.min(1, cdf) - cdfLower;
      return lower >= 1 ? Object.freeze({ lower, upper, coverage }) : undefined;
    }
    logPmf += Math.log((n - k) / (k + 1)) + logRatio;
  }
  return undefined;
}

/**
 * A 95% (by default) distribution-free confidence interval `[x(l), x(u)]` for the q-quantile, from an
 * ascending sample, using the order-statistic ranks of {@link quantileRanks}.
 *
 * @returns The interval, or `[NaN, NaN]` when the sample is too small for one.
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when q or confidence is out of range.
 */
export function quantileCiSorted(sorted: ArrayLike<number>, q: number, confidence = 0.95): Interval {
  const ranks = quantileRanks(sorted.length, q, confidence);
  if (ranks === undefined) return [Number.NaN, Number.NaN];
  return [sorted[ranks.lower - 1] as number, sorted[ranks.upper - 1] as number];
}

/**
 * Summarises a sample, in the unit of the samples: n, mean, sample SD (Bessel, `NaN` for n < 2), min, max,
 * p50/p90/p95/p99 by linear interpolation ({@link quantileSorted}), 95% distribution-free confidence intervals
 * of p50 and p99 ({@link quantileCiSorted}; `NaN` bounds when n is too small: < 6 for p50, < 368 for p99),
 * and the unscaled median absolute deviation. An empty sample gives n = 0 and `NaN` everywhere else.
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_INPUT` when a sample is not a finite number.
 */
export function summarize(samples: ArrayLike<number>): SampleSummary {
  const n = samples.length;
  const sorted = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const x = samples[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new DantinoxError('INVALID_INPUT', messages.nonFiniteSample(i, x));
    }
    sorted[i] = x;
    sum += x;
  }
  sorted.sort();
  const mean = n === 0 ? Number.NaN : sum / n;
  let squares = 0;
  for (const x of sorted) squares += (x - mean) * (x - mean);
  const p50 = quantileSorted(sorted, 0.5);
  const deviations = sorted.map((x) => Math.abs(x - p50)).sort();
  return Object.freeze({
    n,
    mean,
    std: n < 2 ? Number.NaN : Math.sqrt(squares / (n - 1)),
    min: n === 0 ? Number.NaN : (sorted[0] as number),
    max: n === 0 ? Number.NaN : (sorted[n - 1] as number),
    p50,
    p90: quantileSorted(sorted, 0.9),
    p95: quantileSorted(sorted, 0.95),
    p99: quantileSorted(sorted, 0.99),
    p50Ci: quantileCiSorted(sorted, 0.5),
    p99Ci: quantileCiSorted(sorted, 0.99),
    mad: quantileSorted(deviations, 0.5),
  });
}
