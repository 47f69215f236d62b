import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import {
  minSamplesForQuantileCi,
  quantileCiSorted,
  quantileRanks,
  quantileSorted,
  summarize,
} from '../../src/profiling/index.js';
import { Rng } from '../../src/rng.js';

/** Naive reference for linear interpolation: Σ x_i · max(0, 1 − |i − (n−1)q|), a different formula for the same thing. */
function naiveQuantile(sorted: number[], q: number): number {
  const h = (sorted.length - 1) * q;
  let acc = 0;
  sorted.forEach((x, i) => {
    acc += x * Math.max(0, 1 - Math.abs(i - h));
  });
  return acc;
}

/** Exact binomial CDF for small n, by direct summation of C(n, i) q^i (1 − q)^(n − i). */
function binomialCdf(k: number, n: number, q: number): number {
  let total = 0;
  let c = 1; // C(n, 0)
  for (let i = 0; i <= k; i++) {
    total += c * q ** i * (1 - q) ** (n - i);
    c = (c * (n - i)) / (i + 1);
  }
  return total;
}

// `+ 0` turns −0 into +0: a latency sample has no sign of zero, and min/max would otherwise depend on order.
const samples = fc.array(
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
  {
    minLength: 1,
    maxLength: 200,
  },
);
const sortAsc = (xs: number[]) => [...xs].sort((a, b) => a - b);
// Tolerance: interpolation a + t(b − a) vs Σ x_i·w_i differ by a few ULPs of max|x| (≤ 1e6 here).
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

describe('quantileSorted', () => {
  it('matches NumPy known answers', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5); // np.percentile([1,2,3,4], 50)
    expect(quantileSorted([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBeCloseTo(9.1, 12); // np.percentile(1..10, 90)
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(quantileSorted(twenty, 0.99)).toBeCloseTo(19.81, 12); // h = 18.81: between the two largest
    expect(quantileSorted([7], 0.99)).toBe(7);
    expect(Number.isNaN(quantileSorted([], 0.5))).toBe(true);
  });

  it('equals a naive reference, is monotone in q, bounded by min/max and permutation-invariant', () => {
    fc.assert(
      fc.property(
        samples,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (xs, q1, q2) => {
          const sorted = sortAsc(xs);
          const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1];
          const a = quantileSorted(sorted, lo);
          const b = quantileSorted(sorted, hi);
          expect(close(a, naiveQuantile(sorted, lo))).toBe(true);
          expect(a).toBeLessThanOrEqual(b);
          expect(a).toBeGreaterThanOrEqual(sorted[0] as number);
          expect(b).toBeLessThanOrEqual(sorted[sorted.length - 1] as number);
          const shuffled = sortAsc([...xs].reverse());
          expect(quantileSorted(shuffled, hi)).toBe(b);
        },
      ),
    );
  });

  it('rejects q outside [0, 1]', () => {
    expect(() => quantileSorted([1], 1.5)).toThrow(DantinoxError);
    expect(() => quantileSorted([1], Number.NaN)).toThrow('`q` must be a number in [0, 1]');
  });
});

describe('order-statistic confidence intervals', () => {
  it('gives the textbook ranks for the median: (40, 61) for n = 100, (1, 6) for n = 6', () => {
    expect(quantileRanks(100, 0.5)).toMatchObject({ lower: 40, upper: 61 });
    expect(quantileRanks(6, 0.5)).toMatchObject({ lower: 1, upper: 6 });
    expect(quantileRanks(6, 0.5)?.coverage).toBeCloseTo(62 / 64, 12); // 1 − 2 · 0.5⁶
  });

  it('refuses an interval when n is too small: 6 samples for p50 and 368 for p99 at 95%', () => {
    expect(minSamplesForQuantileCi(0.5)).toBe(6);
    expect(minSamplesForQuantileCi(0.99)).toBe(368);
    expect(quantileRanks(5, 0.5)).toBeUndefined();
    expect(quantileRanks(367, 0.99)).toBeUndefined();
    expect(quantileRanks(368, 0.99)).toBeDefined();
    expect(quantileCiSorted([1, 2, 3, 4, 5], 0.5).every(Number.isNaN)).toBe(true);
  });

  it('has exact coverage ≥ 95%, equal-tailed, matching a direct binomial sum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.constantFrom(0.1, 0.5, 0.9, 0.95, 0.99), (n, q) => {
        const r = quantileRanks(n, q);
        const available = (1 - q) ** n <= 0.025 && q ** n <= 0.025;
        expect(r !== undefined).toBe(available);
        expect(n >= minSamplesForQuantileCi(q)).toBe(available);
        if (r === undefined) return;
        expect(binomialCdf(r.lower - 1, n, q)).toBeLessThanOrEqual(0.025 + 1e-12);
        expect(binomialCdf(r.lower, n, q)).toBeGreaterThan(0.025 - 1e-12); // lower is the largest such rank
        expect(binomialCdf(r.upper - 1, n, q)).toBeGreaterThanOrEqual(0.975 - 1e-12);
        if (r.upper >= 2) expect(binomialCdf(r.upper - 2, n, q)).toBeLessThan(0.975 + 1e-12);
        const coverage = binomialCdf(r.upper - 1, n, q) - binomialCdf(r.lower - 1, n, q);
        expect(r.coverage).toBeCloseTo(coverage, 10);
        expect(r.coverage).toBeGreaterThanOrEqual(0.95 - 1e-12);
      }),
    );
  });

  it('works for large windows (n = 10 000) without underflow', () => {
    const r = quantileRanks(10_000, 0.99);
    expect(r).toBeDefined();
    // Normal approximation: 9900 ± 1.96·√(10000·0.99·0.01) ≈ 9900 ± 19.5.
    expect(r?.lower).toBeGreaterThanOrEqual(9878);
    expect(r?.upper).toBeLessThanOrEqual(9922);
    expect(r?.coverage).toBeGreaterThanOrEqual(0.95);
  });

  it('covers the true median of an exponential distribution in ≥ 95% of seeded trials', () => {
    const rng = new Rng(7);
    const trials = 2000;
    let covered = 0;
    for (let t = 0; t < trials; t++) {
      const xs = Array.from({ length: 25 }, () => -Math.log(1 - rng.next()));
      const [lo, hi] = quantileCiSorted(sortAsc(xs), 0.5);
      if (lo <= Math.LN2 && Math.LN2 <= hi) covered++;
    }
    // Exact coverage for n = 25 is ≈ 0.957; 2000 trials give a binomial SD of ≈ 0.0045, so 0.94 is > 3 SD below.
    expect(covered / trials).toBeGreaterThan(0.94);
  });
});

describe('summarize', () => {
  it('computes known answers', () => {
    const s = summarize([1, 1, 2, 2, 4, 6, 9]);
    expect(s.n).toBe(7);
    expect(s.mean).toBe(25 / 7);
    // Σ(x − mean)² = 55.714…; sample variance = 55.714…/6
    expect(s.std).toBeCloseTo(Math.sqrt((1 + 1 + 4 + 4 + 16 + 36 + 81 - 7 * (25 / 7) ** 2) / 6), 12);
    expect([s.min, s.max, s.p50]).toEqual([1, 9, 2]);
    expect(s.mad).toBe(1); // |x − 2| = 1,1,0,0,2,4,7 → median 1
    expect(s.p50Ci).toEqual([1, 9]); // n = 7: ranks (1, 7)
    expect(s.p99Ci.every(Number.isNaN)).toBe(true);
  });

  it('agrees with naive computations on random samples and ignores order', () => {
    fc.assert(
      fc.property(samples, (xs) => {
        const s = summarize(xs);
        const sorted = sortAsc(xs);
        const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
        expect(close(s.mean, mean)).toBe(true);
        if (xs.length >= 2) {
          const variance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1);
          expect(Math.abs(s.std - Math.sqrt(variance))).toBeLessThanOrEqual(
            1e-6 * Math.max(1, Math.sqrt(variance)),
          );
        } else {
          expect(Number.isNaN(s.std)).toBe(true);
        }
        expect(s.min).toBe(sorted[0]);
        expect(s.max).toBe(sorted[sorted.length - 1]);
        expect(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.max).toBe(
          true,
        );
        // Order-invariant: everything computed from the sorted sample is identical; the mean's sum may differ in the last ULPs.
        const { mean: m1, std: s1, ...rest } = summarize([...xs].reverse());
        const { mean: m0, std: s0, ...rest0 } = s;
        expect(rest).toEqual(rest0);
        expect(close(m1, m0)).toBe(true);
        expect(Number.isNaN(s0) ? Number.isNaN(s1) : Math.abs(s1 - s0) <= 1e-6 * Math.max(1, s0)).toBe(true);
      }),
    );
  });

  it('returns NaN statistics for an empty sample and rejects non-finite samples', () => {
    const s = summarize([]);
    expect(s.n).toBe(0);
    expect(Number.isNaN(s.mean) && Number.isNaN(s.p50)).toBe(true);
    expect(() => summarize([1, Number.POSITIVE_INFINITY])).toThrow('sample 1 is Infinity');
  });
});
