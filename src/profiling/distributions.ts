/**
 * The distribution functions run-level comparisons need: the standard normal quantile, and Student's t upper
 * tail and quantile (through the regularized incomplete beta function). Pure functions, no dependencies.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { normalSf } from './two-sample-tests.js';

/** Lanczos coefficients (g = 7, n = 9), as in Numerical Recipes 3rd ed. and most libm ports. */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/**
 * The natural log of the gamma function, ln Γ(x), for x > 0 (Lanczos approximation, g = 7: relative error
 * below 1e-13 for the arguments used here).
 */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (LANCZOS[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz, Numerical Recipes `betacf`). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/**
 * The regularized incomplete beta function I_x(a, b) = B(x; a, b) / B(a, b), for a, b > 0 and x in [0, 1]
 * (continued fraction, using the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where it converges faster).
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(a, b, x)) / a
    : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

function checkDf(df: number): void {
  if (!(df > 0)) {
    throw new DantinoxError('INVALID_OPTION', messages.invalidNumberOption('df', df, 'a number > 0'));
  }
}

/**
 * The upper tail P(T > t) of Student's t distribution with `df` degrees of freedom (any real df > 0; `Infinity`
 * is the standard normal): ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0, by symmetry for t < 0.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when df is not > 0.
 */
export function studentTSf(t: number, df: number): number {
  checkDf(df);
  if (Number.isNaN(t)) return Number.NaN;
  if (df === Number.POSITIVE_INFINITY) return normalSf(t);
  if (t === Number.POSITIVE_INFINITY) return 0;
  if (t === Number.NEGATIVE_INFINITY) return 1;
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? tail : 1 - tail;
}

function checkProbability(p: number): void {
  if (!(p > 0 && p < 1)) {
    throw new DantinoxError('INVALID_OPTION', messages.invalidNumberOption('p', p, 'a number in (0, 1)'));
  }
}

/**
 * The p-quantile of the standard normal distribution, z with P(Z ≤ z) = p (Acklam's rational approximation,
 * relative error below 1.2·10⁻⁹): 1.959964 for p = 0.975, 0.841621 for p = 0.8.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when p is not in (0, 1).
 */
export function normalQuantile(p: number): number {
  checkProbability(p);
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const at = (xs: number[], i: number): number => xs[i] as number;
  const low = 0.02425;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const z =
      (((((at(c, 0) * q + at(c, 1)) * q + at(c, 2)) * q + at(c, 3)) * q + at(c, 4)) * q + at(c, 5)) /
      ((((at(d, 0) * q + at(d, 1)) * q + at(d, 2)) * q + at(d, 3)) * q + 1);
    return p < low ? z : -z;
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((at(a, 0) * r + at(a, 1)) * r + at(a, 2)) * r + at(a, 3)) * r + at(a, 4)) * r + at(a, 5)) * q) /
    (((((at(b, 0) * r + at(b, 1)) * r + at(b, 2)) * r + at(b, 3)) * r + at(b, 4)) * r + 1)
  );
}

/**
 * The p-quantile of Student's t distribution with `df` degrees of freedom (any real df > 0; `Infinity` gives
 * {@link normalQuantile}): 12.706 for (0.975, 1), 2.776 for (0.975, 4). Newton iterations on {@link studentTSf}
 * from the Cornish–Fisher expansion around the normal quantile, kept inside a shrinking bracket (bisection when
 * a step leaves it), to a relative precision of about 1e-12.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when p is not in (0, 1) or df is not > 0.
 */
export function studentTQuantile(p: number, df: number): number {
  checkProbability(p);
  checkDf(df);
  if (df === Number.POSITIVE_INFINITY) return normalQuantile(p);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  const target = 1 - p; // upper tail wanted; the tail decreases in t
  const logC = logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  const pdf = (x: number): number => Math.exp(logC - ((df + 1) / 2) * Math.log1p((x * x) / df));
  const z = normalQuantile(p);
  const z2 = z * z;
  // Cornish–Fisher: t ≈ z + (z³ + z)/(4ν) + (5z⁵ + 16z³ + 3z)/(96ν²), capped for small ν where it overshoots.
  const guess = z + (z * (z2 + 1)) / (4 * df) + (z * (5 * z2 * z2 + 16 * z2 + 3)) / (96 * df * df);
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  let t = Math.max(z, Math.min(guess, 1e6));
  for (let i = 0; i < 200; i++) {
    const f = studentTSf(t, df) - target;
    if (f === 0) return t;
    if (f > 0) lo = t;
    else hi = t;
    let next = t + f / pdf(t);
    if (!(next > lo && next < hi)) next = hi === Number.POSITIVE_INFINITY ? 2 * t : (lo + hi) / 2;
    if (Math.abs(next - t) <= 1e-12 * Math.max(1, Math.abs(t))) return next;
    t = next;
  }
  return t;
}
