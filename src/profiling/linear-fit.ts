/**
 * Ordinary least-squares fit of a straight line, `y ≈ intercept + slope · x`: how a cost (ms per call) grows
 * with a size (tokens of context).
 *
 * @packageDocumentation
 */

/** A fitted line `y ≈ intercept + slope · x`, in the units of the data it was fitted to. */
export interface LinearFit {
  /** y at x = 0 (units of y). */
  readonly intercept: number;
  /** Change of y per unit of x (units of y per unit of x). */
  readonly slope: number;
  /** Coefficient of determination 1 − SS_res / SS_tot; 1 when every y is equal (the line is exact). */
  readonly r2: number;
  /** Points fitted. */
  readonly n: number;
}

/**
 * Least-squares line through the points (`xs[i]`, `ys[i]`), in the units of `ys` per unit of `xs`: slope
 * Σ(x − x̄)(y − ȳ) / Σ(x − x̄)², intercept ȳ − slope · x̄ (centred sums, so large x lose no precision). Points
 * with a non-finite coordinate are left out.
 *
 * @returns the fit, or `undefined` with fewer than two distinct finite x values (no line is determined).
 *
 * @example
 * ```ts
 * fitLine([0, 512, 1024], [10, 12, 14]); // { intercept: 10, slope: 0.00390625, r2: 1, n: 3 }
 * ```
 */
export function fitLine(xs: readonly number[], ys: readonly number[]): LinearFit | undefined {
  const points: [number, number][] = [];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const x = xs[i] as number;
    const y = ys[i] as number;
    if (Number.isFinite(x) && Number.isFinite(y)) points.push([x, y]);
  }
  const n = points.length;
  if (n < 2) return undefined;
  const xMean = points.reduce((s, [x]) => s + x, 0) / n;
  const yMean = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [x, y] of points) {
    sxx += (x - xMean) ** 2;
    sxy += (x - xMean) * (y - yMean);
    syy += (y - yMean) ** 2;
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  const intercept = yMean - slope * xMean;
  let ssRes = 0;
  for (const [x, y] of points) ssRes += (y - intercept - slope * x) ** 2;
  return { intercept, slope, r2: syy === 0 ? 1 : 1 - ssRes / syy, n };
}
