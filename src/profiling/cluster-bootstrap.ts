/**
 * A seeded percentile bootstrap over clusters: the unit resampled is a whole group of observations (a scored
 * window of tokens, a multiple-choice item), never one observation, because observations of one group are
 * correlated (the tokens of one window share its text and its context).
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { Interval } from './statistics.js';
import {
  type BootstrapOptions,
  checkBootstrapOptions,
  checkFinite,
  indexSource,
  percentileInterval,
} from './two-sample-tests.js';

/** A statistic of column totals: receives Σ over the drawn clusters of each column, in column order. */
export type TotalsStatistic = (totals: Float64Array) => number;

/**
 * Percentile-bootstrap confidence intervals of statistics of column totals, resampling clusters. `columns[j][i]`
 * is cluster i's sum of quantity j (e.g. Σ KL, tokens scored, arg-max agreements of window i); each of
 * `resamples` rounds draws as many clusters as there are, uniformly with replacement, adds their rows up, and
 * evaluates every statistic on those totals (e.g. Σ KL ÷ Σ tokens, a token-weighted mean); the interval is the
 * (1 − c)/2 and (1 + c)/2 quantiles of the rounds' values (linear interpolation). Seeded: the same `rng` state
 * gives the same intervals. No cluster gives `[NaN, NaN]`; every cluster alike gives a zero-width interval.
 *
 * @param columns - One array per quantity, each with one entry per cluster (all of one length).
 * @param statistics - Functions of the column totals.
 * @returns One interval per statistic, in order.
 * @throws {@link dantinox!DantinoxError} with code `INVALID_INPUT` when a value is not finite or the columns differ in
 * length, or `INVALID_OPTION` when `resamples` is not a positive integer or `confidence` is not in (0, 1).
 *
 * @example
 * ```ts
 * // Σ KL and tokens of three windows: the 95% interval of the token-weighted mean KL.
 * const [ci] = bootstrapClusters([[0.2, 0.5, 0.1], [100, 100, 50]], [(t) => t[0] / t[1]], { rng: new Rng(0) });
 * ```
 */
export function bootstrapClusters(
  columns: readonly ArrayLike<number>[],
  statistics: readonly TotalsStatistic[],
  options: BootstrapOptions,
): Interval[] {
  const { resamples, confidence } = checkBootstrapOptions(options);
  const n = columns[0]?.length ?? 0;
  for (const column of columns) {
    checkFinite(column);
    if (column.length !== n)
      throw new DantinoxError('INVALID_INPUT', messages.bootstrapColumnsDiffer(columns.map((c) => c.length)));
  }
  if (n === 0) return statistics.map(() => [Number.NaN, Number.NaN] as const);
  const data = columns.map((c) => Float64Array.from(c));
  const totals = new Float64Array(columns.length);
  const replicates = statistics.map(() => new Float64Array(resamples));
  const index = indexSource(options.rng);
  for (let r = 0; r < resamples; r++) {
    totals.fill(0);
    for (let i = 0; i < n; i++) {
      const k = index(n);
      for (let j = 0; j < data.length; j++)
        totals[j] = (totals[j] as number) + ((data[j] as Float64Array)[k] as number);
    }
    statistics.forEach((stat, s) => {
      (replicates[s] as Float64Array)[r] = stat(totals);
    });
  }
  return replicates.map((values) => percentileInterval(values, confidence));
}

/** How the quality tasks' intervals are computed, for reports: `percentile bootstrap over <unit>s, …`. */
export function clusterBootstrapMethod(unit: string, confidence: number, resamples: number): string {
  return `${+(confidence * 100).toPrecision(6)}% percentile bootstrap over ${unit}s (${resamples} resamples, seeded)`;
}
