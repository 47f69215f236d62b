import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Direction,
  dominates,
  type ParetoPoint,
  paretoFrontier,
} from '../../src/visualization/pareto-frontier.js';

/** O(n²) reference: a point is on the frontier iff no other point dominates it. */
const bruteForce = (points: readonly ParetoPoint[], d: { x: Direction; y: Direction }): ParetoPoint[] =>
  points.filter((p) => !points.some((q) => q !== p && dominates(q, p, d)));

const direction = fc.constantFrom<Direction>('max', 'min');
// Small integer grids make ties and duplicates frequent; doubles cover the general case.
const gridPoint = fc.record({ x: fc.integer({ min: -5, max: 5 }), y: fc.integer({ min: -5, max: 5 }) });
const doublePoint = fc.record({
  x: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
  y: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
});

describe('paretoFrontier', () => {
  it('keeps the (max x, min y) optimum, not the seed’s (min, min) one', () => {
    const fast = { x: 100, y: 20 };
    const good = { x: 50, y: 10 };
    const dominated = { x: 40, y: 30 };
    expect(paretoFrontier([fast, good, dominated], { x: 'max', y: 'min' })).toEqual([good, fast]);
    // The seed's algorithm (sort by x ascending, keep falling y) would have kept `dominated` and dropped `fast`.
    expect(paretoFrontier([fast, good, dominated], { x: 'min', y: 'min' })).toEqual([dominated, good]);
  });

  it('handles all four direction pairs on a known set', () => {
    const pts = [
      { x: 0, y: 0 },
      { x: 1, y: 1 },
      { x: 0, y: 1 },
      { x: 1, y: 0 },
    ];
    expect(paretoFrontier(pts, { x: 'max', y: 'max' })).toEqual([{ x: 1, y: 1 }]);
    expect(paretoFrontier(pts, { x: 'min', y: 'min' })).toEqual([{ x: 0, y: 0 }]);
    expect(paretoFrontier(pts, { x: 'max', y: 'min' })).toEqual([{ x: 1, y: 0 }]);
    expect(paretoFrontier(pts, { x: 'min', y: 'max' })).toEqual([{ x: 0, y: 1 }]);
  });

  it('keeps exact duplicates of a frontier point and ignores non-finite points', () => {
    const a = { x: 1, y: 1 };
    const b = { x: 1, y: 1 };
    expect(
      paretoFrontier([a, b, { x: Number.NaN, y: 9 }, { x: Number.POSITIVE_INFINITY, y: 9 }], {
        x: 'max',
        y: 'max',
      }),
    ).toEqual([a, b]);
    expect(paretoFrontier([], { x: 'max', y: 'max' })).toEqual([]);
  });

  for (const [label, arb] of [
    ['integer grid', gridPoint],
    ['doubles', doublePoint],
  ] as const) {
    it(`is exactly the set of non-dominated points (${label}, vs O(n²) brute force)`, () => {
      fc.assert(
        fc.property(fc.array(arb, { maxLength: 40 }), direction, direction, (points, x, y) => {
          const got = paretoFrontier(points, { x, y });
          const want = bruteForce(points, { x, y });
          expect(new Set(got)).toEqual(new Set(want));
          expect(got).toHaveLength(want.length);
          // Sorted by x ascending, and no frontier point dominates another.
          for (let i = 1; i < got.length; i++) expect(got[i]!.x).toBeGreaterThanOrEqual(got[i - 1]!.x);
          for (const p of got) for (const q of got) expect(dominates(p, q, { x, y })).toBe(false);
        }),
        { numRuns: 400, seed: 42 },
      );
    });
  }

  it('is invariant under permutation of the input', () => {
    fc.assert(
      fc.property(
        fc.array(gridPoint, { maxLength: 30 }),
        direction,
        direction,
        fc.integer(),
        (points, x, y, seed) => {
          const shuffled = [...points].sort(
            (a, b) => ((a.x * 31 + a.y + seed) % 7) - ((b.x * 31 + b.y + seed) % 7),
          );
          expect(new Set(paretoFrontier(shuffled, { x, y }))).toEqual(
            new Set(paretoFrontier(points, { x, y })),
          );
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });
});
