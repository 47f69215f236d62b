/**
 * McNemar's test of paired binary outcomes: two classifiers (a model and its reference) answer the same items, and
 * only the discordant items (right for one, wrong for the other) carry evidence that their accuracies differ.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { erfc } from './two-sample-tests.js';

/**
 * Below this many discordant pairs (b + c) {@link mcnemarTest} uses the exact binomial test; from it on, the
 * chi-square approximation with continuity correction (which needs b + c large enough to be accurate).
 */
export const MCNEMAR_EXACT_BELOW = 25;

/** The result of {@link mcnemarTest}. */
export interface McNemarResult {
  /** Items the first classifier got wrong and the second right. */
  readonly b: number;
  /** Items the first classifier got right and the second wrong. */
  readonly c: number;
  /** Two-sided p-value in [0, 1]: 1 when b = c (and when b + c = 0). */
  readonly pValue: number;
  /** `exact` (binomial, b + c < {@link MCNEMAR_EXACT_BELOW}) or `chi-square` (continuity corrected). */
  readonly method: 'exact' | 'chi-square';
}

/** How {@link mcnemarTest} decides, for reports. */
export const MCNEMAR_METHOD = `McNemar's test, two-sided: exact binomial on the discordant pairs when b + c < ${MCNEMAR_EXACT_BELOW}, else chi-square (1 df) with continuity correction`;

/**
 * McNemar's two-sided test of paired binary outcomes from the discordant counts `b` and `c`. Under the null
 * hypothesis (equal accuracies) each discordant item is a fair coin, so:
 *
 * - b + c < {@link MCNEMAR_EXACT_BELOW}: the exact binomial test, p = min(1, 2 · P(X ≤ min(b, c))) with
 *   X ~ Binomial(b + c, ½);
 * - otherwise: χ² = max(0, |b − c| − 1)² / (b + c) (Edwards' continuity correction) and p = P(χ²₁ > χ²) =
 *   erfc(√(χ²/2)).
 *
 * b = c gives p = 1 under both, and so does b + c = 0 (no discordant item: no evidence of a difference).
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_INPUT` when `b` or `c` is not a non-negative integer.
 *
 * @example
 * ```ts
 * mcnemarTest(1, 9).pValue; // 22 / 1024 ≈ 0.0215 (exact)
 * ```
 */
export function mcnemarTest(b: number, c: number): McNemarResult {
  if (!Number.isSafeInteger(b) || !Number.isSafeInteger(c) || b < 0 || c < 0)
    throw new DantinoxError('INVALID_INPUT', messages.badMcnemarCounts(b, c));
  const n = b + c;
  if (n < MCNEMAR_EXACT_BELOW) {
    // P(X ≤ k) for X ~ Binomial(n, ½), summed term by term: C(n, i+1) = C(n, i) · (n − i) / (i + 1).
    const k = Math.min(b, c);
    let term = 0.5 ** n;
    let tail = 0;
    for (let i = 0; i <= k; i++) {
      tail += term;
      term = (term * (n - i)) / (i + 1);
    }
    return { b, c, pValue: Math.min(1, 2 * tail), method: 'exact' };
  }
  const chi2 = Math.max(0, Math.abs(b - c) - 1) ** 2 / n;
  return { b, c, pValue: Math.min(1, erfc(Math.sqrt(chi2 / 2))), method: 'chi-square' };
}
