/**
 * The Pareto frontier of 2-D points under chosen directions, as a pure function.
 *
 * @packageDocumentation
 */

/** Whether larger (`'max'`) or smaller (`'min'`) values of an axis are better. */
export type Direction = 'max' | 'min';

/** The optimisation direction of each axis. */
export interface ParetoDirections {
  /** Direction of the x axis. */
  readonly x: Direction;
  /** Direction of the y axis. */
  readonly y: Direction;
}

/** A 2-D point; extra fields are carried through untouched. */
export interface ParetoPoint {
  /** The x coordinate (any unit). */
  readonly x: number;
  /** The y coordinate (any unit). */
  readonly y: number;
}

/**
 * True when `a` dominates `b`: at least as good on both axes and strictly better on one, under `directions`.
 */
export function dominates(a: ParetoPoint, b: ParetoPoint, directions: ParetoDirections): boolean {
  const ax = directions.x === 'max' ? a.x : -a.x;
  const bx = directions.x === 'max' ? b.x : -b.x;
  const ay = directions.y === 'max' ? a.y : -a.y;
  const by = directions.y === 'max' ? b.y : -b.y;
  return ax >= bx && ay >= by && (ax > bx || ay > by);
}

/**
 * The non-dominated points of `points` (the Pareto frontier) for the given directions, sorted by x ascending
 * (ties by y ascending). A point is kept iff no other point is at least as good on both axes and strictly
 * better on one; exact duplicates of a frontier point are all kept. Points with a non-finite coordinate are
 * ignored. O(n log n): sort by x from best to worst and sweep, keeping a point when its y beats every point
 * with a strictly better x.
 *
 * The seed's ParetoChart sorted by x ascending and kept falling y, which is the (min x, min y) frontier even
 * when x was to be maximised; here the directions are explicit.
 *
 * @example
 * ```ts
 * paretoFrontier([{ x: 100, y: 20 }, { x: 50, y: 10 }, { x: 40, y: 30 }], { x: 'max', y: 'min' });
 * // → [{ x: 50, y: 10 }, { x: 100, y: 20 }]
 * ```
 */
export function paretoFrontier<P extends ParetoPoint>(
  points: readonly P[],
  directions: ParetoDirections,
): P[] {
  const sx = directions.x === 'max' ? 1 : -1;
  const sy = directions.y === 'max' ? 1 : -1;
  const finite = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  // Transform to "larger is better" on both axes, then sort best x first, best y first within equal x.
  const sorted = finite.map((p) => ({ p, a: sx * p.x, b: sy * p.y })).sort((u, v) => v.a - u.a || v.b - u.b);
  const kept: P[] = [];
  let bestPrevious = Number.NEGATIVE_INFINITY; // best b among points with a strictly larger a
  let i = 0;
  while (i < sorted.length) {
    const a = sorted[i]!.a;
    const groupMax = sorted[i]!.b; // sorted: first of the group has the largest b
    let j = i;
    while (j < sorted.length && sorted[j]!.a === a) {
      // Within equal a only the largest b survives; it survives iff no better-a point reaches its b.
      if (sorted[j]!.b === groupMax && groupMax > bestPrevious) kept.push(sorted[j]!.p);
      j++;
    }
    bestPrevious = Math.max(bestPrevious, groupMax);
    i = j;
  }
  return kept.sort((u, v) => u.x - v.x || u.y - v.y);
}
