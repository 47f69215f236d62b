/**
 * Run-level statistics for comparing benchmark runs: a t-test on per-run values (one value of a metric per run),
 * the noise floor of two single runs, and the number of runs per side a decision needs. The statistical unit is
 * the run, not the call: calls of one run share its machine state (clock frequency, caches, neighbours), so
 * per-call samples say nothing about run-to-run drift. Pure functions.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { normalQuantile, studentTQuantile, studentTSf } from './distributions.js';
import type { Interval } from './statistics.js';

/**
 * A run-to-run spread known from runs other than the ones compared (e.g. earlier runs of the same variant on the
 * same machine): the sample standard deviation of the natural logs of their per-run values, and its degrees of
 * freedom (runs − 1).
 */
export interface RunSpread {
  /** Sample standard deviation of ln(per-run value), dimensionless (0.03 ≈ 3% run-to-run spread). */
  readonly sd: number;
  /** Degrees of freedom of `sd`: the number of runs it was computed from, minus one. */
  readonly df: number;
}

/**
 * How {@link runLevelTest} tested:
 * - `welch`: Welch's t-test (unequal variances), both sides have two runs or more;
 * - `pooled`: Student's t-test with the spread pooled over both sides, one side has a single run;
 * - `earlier-runs`: both sides have a single run, the spread comes from earlier runs ({@link RunSpread}).
 */
export type RunLevelMethod = 'welch' | 'pooled' | 'earlier-runs';

/** What {@link runLevelTest} concluded: tested, or why it could not test. */
export type RunLevelTest = RunLevelTested | RunLevelUntestable;

/** A t-test on per-run values that could be done. */
export interface RunLevelTested {
  /** Outcome. */
  readonly status: 'tested';
  /** Which t-test. */
  readonly method: RunLevelMethod;
  /**
   * `log`: the test is on ln(value), and the change is the ratio of geometric means minus one (every value > 0);
   * `linear`: on the values themselves (some value ≤ 0), the change is the ratio of arithmetic means minus one.
   */
  readonly scale: 'log' | 'linear';
  /** Centre of the baseline's per-run values: geometric mean (log scale) or arithmetic mean (linear scale). */
  readonly baseline: number;
  /** Centre of the candidate's per-run values, like `baseline`. */
  readonly candidate: number;
  /** Relative change `candidate / baseline − 1`, a fraction (0.05 = +5%); 0 when both centres are equal. */
  readonly change: number;
  /** Confidence interval of `change` (fractions), from the t distribution. */
  readonly changeCi: Interval;
  /** Two-sided p-value of "no change"; 1 when both sides are constant and equal, 0 when constant and different. */
  readonly pValue: number;
  /** Degrees of freedom of the t statistic (Welch–Satterthwaite for `welch`, may be fractional). */
  readonly df: number;
  /**
   * Run-to-run spread for planning ({@link runsPerSideNeeded}): the pooled SD of ln(value), or on the linear
   * scale the pooled SD over |baseline mean| (`Infinity` for a zero mean); the earlier runs' SD for
   * `earlier-runs`.
   */
  readonly spread: number;
}

/** No t-test possible: a side without runs, or one run per side and no known spread. */
export interface RunLevelUntestable {
  /** Outcome. */
  readonly status: 'untestable';
  /** Why. */
  readonly reason: 'no runs' | 'one run per side';
  /** Centre of the baseline's values (`NaN` without runs). */
  readonly baseline: number;
  /** Centre of the candidate's values (`NaN` without runs). */
  readonly candidate: number;
  /** Relative change of the centres, as in {@link RunLevelTested.change} (`NaN` without runs). */
  readonly change: number;
}

/** Options of {@link runLevelTest}. */
export interface RunLevelTestOptions {
  /** Coverage of the interval of the change, in (0, 1). @default 0.95 */
  readonly confidence?: number;
  /** The spread to use when both sides have a single run (ignored otherwise; log scale only). */
  readonly earlierSpread?: RunSpread;
}

/** `candidate / baseline − 1`, exactly 0 when equal (±∞ or NaN from a zero baseline). */
export function relativeChange(baseline: number, candidate: number): number {
  return baseline === candidate ? 0 : candidate / baseline - 1;
}

function checkFiniteValues(values: readonly number[]): void {
  values.forEach((x, i) => {
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new DantinoxError('INVALID_INPUT', messages.nonFiniteSample(i, x));
    }
  });
}

function meanOf(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Sample variance (n − 1), 0 for a single value. */
function varianceOf(xs: readonly number[], mean: number): number {
  if (xs.length < 2) return 0;
  let s = 0;
  for (const x of xs) s += (x - mean) * (x - mean);
  return s / (xs.length - 1);
}

function checkConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('confidence', confidence, 'a number in (0, 1)'),
    );
  }
}

function checkSpread(spread: RunSpread): void {
  if (!(spread.sd >= 0 && Number.isFinite(spread.sd)) || !(spread.df >= 1)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('earlierSpread', `sd ${spread.sd}, df ${spread.df}`, 'sd ≥ 0 and df ≥ 1'),
    );
  }
}

/**
 * A two-sided t-test of "no change" between per-run values of a metric (one value per run, e.g. each run's mean
 * decode time), with the interval of the relative change. When every value is > 0 the test is on ln(value): a
 * slowdown multiplies times, run-to-run drift is multiplicative, and the change is the ratio of geometric means
 * minus one. Otherwise it is on the values, and the interval is that of the difference over the baseline mean.
 *
 * With d the difference of the side means (of logs) and s²ᵦ, s²꜀ the sample variances over nᵦ, n꜀ runs:
 * - both sides ≥ 2 runs, `welch`: se² = s²ᵦ/nᵦ + s²꜀/n꜀, df = se⁴ / ((s²ᵦ/nᵦ)²/(nᵦ−1) + (s²꜀/n꜀)²/(n꜀−1));
 * - one side with a single run, `pooled`: s²ₚ = ((nᵦ−1)s²ᵦ + (n꜀−1)s²꜀)/(nᵦ+n꜀−2), se = sₚ·√(1/nᵦ + 1/n꜀),
 *   df = nᵦ + n꜀ − 2;
 * - one run per side with `earlierSpread` (sd, df), `earlier-runs`: se = sd·√2, with that df.
 *
 * t = d / se, p = 2·P(T_df > |t|), interval d ± t_{(1+c)/2, df}·se mapped back to a relative change. When
 * se = 0 (constant values on both sides) p is 1 for equal centres and 0 otherwise, and the interval is the point.
 *
 * @param baseline - Per-run values of the baseline, finite.
 * @param candidate - Per-run values of the candidate, finite.
 * @returns `tested`, or `untestable` for an empty side or one run per side without `earlierSpread` (or with it on
 * values that are not all > 0).
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a non-finite value, `INVALID_OPTION` for a bad option.
 */
export function runLevelTest(
  baseline: readonly number[],
  candidate: readonly number[],
  options: RunLevelTestOptions = {},
): RunLevelTest {
  checkFiniteValues(baseline);
  checkFiniteValues(candidate);
  const confidence = options.confidence ?? 0.95;
  checkConfidence(confidence);
  if (options.earlierSpread !== undefined) checkSpread(options.earlierSpread);
  const nb = baseline.length;
  const nc = candidate.length;
  if (nb === 0 || nc === 0) {
    return {
      status: 'untestable',
      reason: 'no runs',
      baseline: Number.NaN,
      candidate: Number.NaN,
      change: Number.NaN,
    };
  }
  const log = baseline.every((x) => x > 0) && candidate.every((x) => x > 0);
  const xb = log ? baseline.map(Math.log) : baseline;
  const xc = log ? candidate.map(Math.log) : candidate;
  const mb = meanOf(xb);
  const mc = meanOf(xc);
  // A single run's centre is its value, exactly.
  const centre = (values: readonly number[], m: number): number =>
    values.length === 1 ? (values[0] as number) : log ? Math.exp(m) : m;
  const centreB = centre(baseline, mb);
  const centreC = centre(candidate, mc);
  const change = relativeChange(centreB, centreC);
  const vb = varianceOf(xb, mb);
  const vc = varianceOf(xc, mc);
  const pooledVar = nb + nc > 2 ? ((nb - 1) * vb + (nc - 1) * vc) / (nb + nc - 2) : 0;
  let method: RunLevelMethod;
  let se: number;
  let df: number;
  // Planning spread: SD of the logs, or relative to the baseline mean on the linear scale.
  let spread = log ? Math.sqrt(pooledVar) : Math.sqrt(pooledVar) / Math.abs(mb);
  if (nb >= 2 && nc >= 2) {
    method = 'welch';
    const wb = vb / nb;
    const wc = vc / nc;
    se = Math.sqrt(wb + wc);
    const denominator = (wb * wb) / (nb - 1) + (wc * wc) / (nc - 1);
    df = denominator > 0 ? ((wb + wc) * (wb + wc)) / denominator : nb + nc - 2;
  } else if (nb >= 2 || nc >= 2) {
    method = 'pooled';
    se = Math.sqrt(pooledVar * (1 / nb + 1 / nc));
    df = nb + nc - 2;
  } else if (options.earlierSpread !== undefined && log) {
    method = 'earlier-runs';
    spread = options.earlierSpread.sd;
    se = spread * Math.SQRT2;
    df = options.earlierSpread.df;
  } else {
    return {
      status: 'untestable',
      reason: 'one run per side',
      baseline: centreB,
      candidate: centreC,
      change,
    };
  }
  const d = mc - mb;
  const toChange = (x: number): number => (log ? Math.expm1(x) : mb === 0 ? Number.NaN : x / Math.abs(mb));
  let pValue: number;
  let changeCi: Interval;
  if (!(se > 0)) {
    pValue = d === 0 ? 1 : 0;
    changeCi = [change, change];
  } else {
    pValue = Math.min(1, 2 * studentTSf(Math.abs(d) / se, df));
    const half = studentTQuantile((1 + confidence) / 2, df) * se;
    changeCi = [toChange(d - half), toChange(d + half)];
  }
  return {
    status: 'tested',
    method,
    scale: log ? 'log' : 'linear',
    baseline: centreB,
    candidate: centreC,
    change,
    changeCi,
    pValue,
    df,
    spread,
  };
}

/**
 * The run-to-run spread of earlier per-run values of one metric: SD of their natural logs, df = runs − 1; or
 * `undefined` with fewer than two values or a value that is not > 0 (or not finite).
 */
export function runSpreadOf(values: readonly number[]): RunSpread | undefined {
  if (values.length < 2 || !values.every((x) => Number.isFinite(x) && x > 0)) return undefined;
  const logs = values.map(Math.log);
  return { sd: Math.sqrt(varianceOf(logs, meanOf(logs))), df: values.length - 1 };
}

function checkAlpha(alpha: number): void {
  if (!(alpha > 0 && alpha < 1)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('alpha', alpha, 'a number in (0, 1)'),
    );
  }
}

/**
 * The noise floor of two single runs, a fraction: the largest relative change between one run and another of
 * the same code that a two-sided test at level `alpha` still calls noise, given the run-to-run spread —
 * `exp(t_{1−α/2, df} · sd · √2) − 1` (the difference of two runs' logs has SD sd·√2).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for alpha outside (0, 1) or a bad spread.
 */
export function noiseFloorOf(spread: RunSpread, alpha = 0.05): number {
  checkAlpha(alpha);
  checkSpread(spread);
  return Math.expm1(studentTQuantile(1 - alpha / 2, spread.df) * spread.sd * Math.SQRT2);
}

/**
 * The run-to-run spread (SD of ln per-run values) a given noise floor stands for, the inverse of
 * {@link noiseFloorOf} with a known spread (normal quantile): `ln(1 + floor) / (z_{1−α/2} · √2)`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for alpha outside (0, 1) or a floor that is not ≥ 0.
 */
export function spreadOfNoiseFloor(floor: number, alpha = 0.05): number {
  checkAlpha(alpha);
  if (!(floor >= 0 && Number.isFinite(floor))) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('noiseFloor', floor, 'a fraction ≥ 0'),
    );
  }
  return Math.log1p(floor) / (normalQuantile(1 - alpha / 2) * Math.SQRT2);
}

/** Inputs of {@link runsPerSideNeeded}. */
export interface RunsNeededInput {
  /** Run-to-run spread: SD of ln(per-run value), ≥ 0 (0.03 ≈ 3%). */
  readonly spread: number;
  /** Smallest relative change to detect, a fraction > 0 (the comparison's threshold, e.g. 0.05). */
  readonly change: number;
  /** Two-sided significance level. @default 0.05 */
  readonly alpha?: number;
  /** Probability of detecting a change of that size, in (0, 1). @default 0.8 */
  readonly power?: number;
}

/**
 * The number of runs per side a two-sided two-sample test needs to detect a relative change of `change` with
 * probability `power` at level `alpha`, given the run-to-run spread σ (normal approximation):
 *
 *   n = ⌈ 2 · (z_{1−α/2} + z_{power})² · σ² / ln(1 + change)² ⌉, and at least 2.
 *
 * ln(1 + change) is the change on the log scale the spread is measured on. With σ = 3%, a 5% change, α = 0.05
 * and 80% power: n = ⌈2 · (1.960 + 0.842)² · 0.03² / 0.04879²⌉ = 6. The t-test needs slightly more than the
 * normal approximation with very few runs; take the result as a minimum. A value within 10⁻⁶ of an integer
 * counts as that integer.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when spread is not ≥ 0, change not > 0, alpha or power not in
 * (0, 1).
 */
export function runsPerSideNeeded(input: RunsNeededInput): number {
  const alpha = input.alpha ?? 0.05;
  const power = input.power ?? 0.8;
  checkAlpha(alpha);
  if (!(power > 0 && power < 1)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('power', power, 'a number in (0, 1)'),
    );
  }
  if (!(input.spread >= 0 && Number.isFinite(input.spread))) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('spread', input.spread, 'a number ≥ 0'),
    );
  }
  if (!(input.change > 0 && Number.isFinite(input.change))) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('change', input.change, 'a fraction > 0'),
    );
  }
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  const effect = Math.log1p(input.change);
  // Within 1e-6 of an integer is that integer (the quantiles carry ~1e-9 relative error).
  const n = Math.ceil((2 * z * z * input.spread * input.spread) / (effect * effect) - 1e-6);
  return Math.max(2, n);
}
