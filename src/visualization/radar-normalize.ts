/**
 * Per-spoke normalisation for radar charts, as a pure function.
 *
 * @packageDocumentation
 */

/**
 * Min-max normalises one metric across models into [0, 1] so that 1 is always the best value: with
 * `lowerIsBetter` the scale is inverted (`(max − v) / (max − min)`), otherwise `(v − min) / (max − min)`.
 * A metric that is constant across the defined values maps to 0.5 (no model is better); `undefined` (a
 * missing or non-finite value) stays `undefined`.
 *
 * @example
 * ```ts
 * normalizeMetric([10, 20, 30], true); // → [1, 0.5, 0]  (e.g. latency in ms)
 * ```
 */
export function normalizeMetric(
  values: readonly (number | undefined)[],
  lowerIsBetter: boolean,
): (number | undefined)[] {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (defined.length === 0) return values.map(() => undefined);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of defined) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  // Halved differences cannot overflow to Infinity, even for values near ±Number.MAX_VALUE.
  const halfRange = max / 2 - min / 2;
  return values.map((v) => {
    if (v === undefined || !Number.isFinite(v)) return undefined;
    if (!(halfRange > 0)) return 0.5;
    const t = lowerIsBetter ? (max / 2 - v / 2) / halfRange : (v / 2 - min / 2) / halfRange;
    return Math.min(1, Math.max(0, t));
  });
}
