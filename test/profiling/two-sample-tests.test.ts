import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import {
  bootstrapRatio,
  bootstrapRelativeChange,
  erfc,
  mannWhitneyU,
  normalSf,
  sortedMean,
  sortedQuantile,
} from '../../src/profiling/index.js';
import { Rng } from '../../src/rng.js';

/** Normal samples of mean `mu` and SD `sd` from a seeded generator. */
function normals(rng: Rng, n: number, mu: number, sd: number): number[] {
  return Array.from(rng.fillNormal(new Float32Array(n)), (z) => mu + sd * z);
}

/** U by its definition: pairs (a, b) with a > b, ties counting one half. */
function pairCountU(a: number[], b: number[]): number {
  let u = 0;
  for (const x of a) for (const y of b) u += x > y ? 1 : x === y ? 0.5 : 0;
  return u;
}

const sample = fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 1, maxLength: 30 });

describe('erfc / normalSf', () => {
  // Reference values from Python's math.erfc (a different implementation); the fit is good to 1.2e-7 relative.
  it.each([
    [0, 1],
    [0.5, 0.4795001221869535],
    [1, 0.15729920705028513],
    [2, 0.004677734981047266],
    [-1, 1.8427007929497148],
  ])('erfc(%d)', (x, expected) => {
    expect(Math.abs(erfc(x) - expected) / expected).toBeLessThan(1.2e-7);
  });

  it('normalSf(1.959963984540054) is 0.025', () => {
    expect(normalSf(1.959963984540054)).toBeCloseTo(0.025, 8);
  });
});

describe('mannWhitneyU', () => {
  // Known answers from SciPy 1.17.1: scipy.stats.mannwhitneyu(a, b, method='asymptotic').
  it("matches SciPy's documented example (no ties)", () => {
    const r = mannWhitneyU([19, 22, 16, 29, 24], [20, 11, 17, 12]);
    expect(r.u).toBe(17);
    expect(r.pValue).toBeCloseTo(0.11134688653314041, 7);
  });

  it('matches SciPy with ties (tie-corrected variance)', () => {
    const r = mannWhitneyU([1, 2, 2, 3], [2, 3, 4, 4, 5]);
    expect(r.u).toBe(2.5);
    expect(r.pValue).toBeCloseTo(0.07854585095119067, 7);
    expect(r.z).toBeLessThan(0);
  });

  it('matches SciPy on 30 vs 25 samples with ties', () => {
    const a = Array.from({ length: 30 }, (_, i) => Math.round((10 + ((0.37 * i) % 3.1)) * 100) / 100);
    const b = Array.from({ length: 25 }, (_, i) => Math.round((10.4 + ((0.53 * i) % 2.9)) * 100) / 100);
    const r = mannWhitneyU(a, b);
    expect(r.u).toBe(320);
    expect(r.pValue).toBeCloseTo(0.356919202731664, 6);
  });

  it('gives p = 1 when every value ties and NaN when a side is empty', () => {
    expect(mannWhitneyU([1, 1, 1], [1, 1]).pValue).toBe(1);
    expect(mannWhitneyU([], [1, 2]).pValue).toBeNaN();
  });

  it('rejects non-finite samples', () => {
    expect(() => mannWhitneyU([1, Number.NaN], [2])).toThrow(DantinoxError);
  });

  it('U equals the pair count, U1 + U2 = n1·n2, p is symmetric and in [0, 1]', () => {
    fc.assert(
      fc.property(sample, sample, (a, b) => {
        const ab = mannWhitneyU(a, b);
        const ba = mannWhitneyU(b, a);
        expect(ab.u).toBe(pairCountU(a, b));
        expect(ab.u + ba.u).toBe(a.length * b.length);
        expect(ab.pValue).toBeCloseTo(ba.pValue, 12);
        expect(ab.pValue).toBeGreaterThanOrEqual(0);
        expect(ab.pValue).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('is invariant under a strictly increasing transform of both samples', () => {
    fc.assert(
      fc.property(sample, sample, (a, b) => {
        const f = (x: number): number => Math.exp(x / 10) * 3 + 1;
        expect(mannWhitneyU(a.map(f), b.map(f)).pValue).toBeCloseTo(mannWhitneyU(a, b).pValue, 12);
      }),
    );
  });

  it('rejects at the nominal 5% rate under the null hypothesis (2000 seeded repetitions)', () => {
    const rng = new Rng(12);
    let rejections = 0;
    const reps = 2000;
    for (let i = 0; i < reps; i++) {
      if (mannWhitneyU(normals(rng, 30, 10, 1), normals(rng, 30, 10, 1)).pValue < 0.05) rejections++;
    }
    // Binomial(2000, 0.05) has SD 0.5%; the continuity correction makes the test slightly conservative.
    expect(rejections / reps).toBeGreaterThan(0.03);
    expect(rejections / reps).toBeLessThan(0.065);
  });

  it('detects a one-SD shift with 30 samples per side in at least 90% of 300 seeded repetitions', () => {
    const rng = new Rng(3);
    let rejections = 0;
    for (let i = 0; i < 300; i++) {
      if (mannWhitneyU(normals(rng, 30, 10, 1), normals(rng, 30, 11, 1)).pValue < 0.05) rejections++;
    }
    // The power of the test at this effect size is about 0.96.
    expect(rejections / 300).toBeGreaterThan(0.9);
  });
});

describe('bootstrapRelativeChange', () => {
  it('gives the exact change for constant samples', () => {
    const [ci] = bootstrapRelativeChange([5, 5, 5], [6, 6, 6], [sortedMean], { rng: new Rng(0) });
    expect(ci?.[0]).toBeCloseTo(0.2, 12);
    expect(ci?.[1]).toBeCloseTo(0.2, 12);
  });

  it('is reproducible with the same seed and differs with another', () => {
    const rng = new Rng(1);
    const a = normals(rng, 40, 10, 1);
    const b = normals(rng, 40, 10.5, 1);
    const run = (seed: number) =>
      bootstrapRelativeChange(a, b, [sortedMean, sortedQuantile(0.99)], { rng: new Rng(seed) });
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  it('is scale invariant and ordered (lower ≤ upper)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1, max: 100, noNaN: true }), { minLength: 2, maxLength: 20 }),
        fc.array(fc.double({ min: 1, max: 100, noNaN: true }), { minLength: 2, maxLength: 20 }),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        (a, b, c) => {
          const opts = () => ({ rng: new Rng(5), resamples: 200 });
          const [x] = bootstrapRelativeChange(a, b, [sortedQuantile(0.5)], opts());
          const [y] = bootstrapRelativeChange(
            a.map((v) => v * c),
            b.map((v) => v * c),
            [sortedQuantile(0.5)],
            opts(),
          );
          expect(x![0]).toBeLessThanOrEqual(x![1]);
          expect(y![0]).toBeCloseTo(x![0], 9);
          expect(y![1]).toBeCloseTo(x![1], 9);
        },
      ),
    );
  });

  it('covers the true relative change of the mean about 95% of the time', () => {
    const rng = new Rng(21);
    let covered = 0;
    const reps = 200;
    for (let i = 0; i < reps; i++) {
      const [ci] = bootstrapRelativeChange(normals(rng, 50, 10, 1), normals(rng, 50, 11, 1), [sortedMean], {
        rng,
        resamples: 400,
      });
      if (ci![0] <= 0.1 && 0.1 <= ci![1]) covered++;
    }
    expect(covered / reps).toBeGreaterThan(0.88);
    expect(covered / reps).toBeLessThanOrEqual(0.99);
  });

  it('gives NaN bounds for an empty sample and rejects bad options', () => {
    expect(bootstrapRelativeChange([], [1], [sortedMean], { rng: new Rng(0) })).toEqual([
      [Number.NaN, Number.NaN],
    ]);
    expect(() => bootstrapRelativeChange([1], [1], [sortedMean], { rng: new Rng(0), resamples: 0 })).toThrow(
      DantinoxError,
    );
    expect(() => bootstrapRelativeChange([1], [1], [sortedMean], { rng: new Rng(0), confidence: 1 })).toThrow(
      DantinoxError,
    );
  });
});

describe('two-sample tests: boundaries', () => {
  it('Mann–Whitney: an empty side gives NaN whatever the other side holds', () => {
    for (const [a, b] of [
      [[], [1, 2, 3]],
      [[1, 2, 3], []],
    ] as const) {
      const r = mannWhitneyU(a, b);
      expect(r.pValue).toBeNaN();
      expect(r.z).toBeNaN();
    }
  });

  it('Mann–Whitney: z is positive when the first sample is larger, negative when smaller', () => {
    expect(mannWhitneyU([6, 7, 8, 9], [1, 2, 3]).z).toBeGreaterThan(0);
    expect(mannWhitneyU([1, 2, 3], [6, 7, 8, 9]).z).toBeLessThan(0);
  });

  it('sortedMean is the mean (not a sum, not scaled)', () => {
    expect(sortedMean(Float64Array.of(1, 2, 6))).toBe(3);
    expect(sortedMean(Float64Array.of(-4, 4, 9))).toBe(3);
  });

  it('resamples are sorted before a statistic reads them: the median of a resample stays near the median', () => {
    const sample = Array.from({ length: 101 }, (_, i) => i + 1);
    const [ratio] = bootstrapRatio(sample, [sortedQuantile(0.5)], { rng: new Rng(3), resamples: 400 });
    // The median of 101 draws from 1..101 is within ±15 of 51 in far more than 95% of resamples; an element picked
    // from an unsorted draw is anywhere in 1..101.
    expect(ratio?.[0]).toBeGreaterThan(0.7);
    expect(ratio?.[1]).toBeLessThan(1.3);
    const [change] = bootstrapRelativeChange(sample, sample, [sortedQuantile(0.5)], {
      rng: new Rng(3),
      resamples: 400,
    });
    expect(change?.[0]).toBeGreaterThan(-0.35);
    expect(change?.[1]).toBeLessThan(0.35);
  });

  it('bootstrapRatio: a constant sample gives [1, 1]; an empty one NaN; the same seed the same interval', () => {
    expect(bootstrapRatio([4, 4, 4], [sortedMean, sortedQuantile(0.9)], { rng: new Rng(1) })).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(bootstrapRatio([], [sortedMean], { rng: new Rng(1) })).toEqual([[Number.NaN, Number.NaN]]);
    const sample = [3, 1, 4, 1, 5, 9, 2, 6];
    const once = bootstrapRatio(sample, [sortedMean], { rng: new Rng(5), resamples: 200 });
    expect(bootstrapRatio(sample, [sortedMean], { rng: new Rng(5), resamples: 200 })).toEqual(once);
    const [lo, hi] = once[0] as [number, number];
    expect(lo).toBeLessThan(1);
    expect(hi).toBeGreaterThan(1);
  });

  it('bootstrapRelativeChange: an empty baseline or candidate gives NaN', () => {
    const rng = new Rng(0);
    expect(bootstrapRelativeChange([1, 2], [], [sortedMean], { rng })).toEqual([[Number.NaN, Number.NaN]]);
    expect(bootstrapRelativeChange([], [1, 2], [sortedMean], { rng })).toEqual([[Number.NaN, Number.NaN]]);
  });

  it('options: one resample is enough; resamples and confidence refused by name outside their bounds', () => {
    expect(
      bootstrapRelativeChange([1, 2], [2, 3], [sortedMean], { rng: new Rng(0), resamples: 1 }),
    ).toHaveLength(1);
    for (const resamples of [0, -1, 1.5]) {
      expect(() => bootstrapRatio([1, 2], [sortedMean], { rng: new Rng(0), resamples })).toThrow(
        /`resamples` must be a positive integer/,
      );
    }
    for (const confidence of [0, 1, -0.5, 1.5, Number.NaN]) {
      expect(() => bootstrapRatio([1, 2], [sortedMean], { rng: new Rng(0), confidence })).toThrow(
        /`confidence` must be a number in \(0, 1\)/,
      );
    }
    expect(bootstrapRatio([1, 2], [sortedMean], { rng: new Rng(0), confidence: 0.5 })).toHaveLength(1);
  });
});
