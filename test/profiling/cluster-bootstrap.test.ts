import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { bootstrapClusters, percentileInterval, type TotalsStatistic } from '../../src/profiling/index.js';
import { Rng } from '../../src/rng.js';

const mean: TotalsStatistic = (t) => (t[0] as number) / (t[1] as number);

describe('percentileInterval', () => {
  it('takes the 2.5% and 97.5% quantiles at 0.95 (linear interpolation)', () => {
    // 1001 replicates 0..1000: the q-quantile is 1000·q exactly.
    const replicates = Float64Array.from({ length: 1001 }, (_, i) => 1000 - i);
    // (1 − 0.95) / 2 is 0.025 + 2e-17 in float64: equal to 1e-9.
    const close = ([lo, hi]: readonly [number, number], expected: readonly [number, number]) => {
      expect(lo).toBeCloseTo(expected[0], 9);
      expect(hi).toBeCloseTo(expected[1], 9);
    };
    close(percentileInterval(replicates, 0.95), [25, 975]);
    close(percentileInterval(replicates, 0.9), [50, 950]);
    expect(percentileInterval(Float64Array.from([Number.NaN, 1, 3]), 0.5)).toEqual([1.5, 2.5]);
  });
});

describe('bootstrapClusters known answers', () => {
  it('three equal-size windows with means 1, 1, 0: [0, 1] at 95%, [1/3, 1] at 90%', () => {
    // A resample of 3 windows has X ~ Binomial(3, 2/3) windows of mean 1, so its mean is X / 3 with
    // P(0) = 1/27 ≈ 0.037, P(1/3) = 6/27, P(2/3) = 12/27, P(1) = 8/27. The 2.5% quantile lies in the atom at 0
    // (0.025 < 0.037) and the 5% one in the atom at 1/3 (0.037 < 0.05 < 0.259); both upper quantiles lie in the
    // atom at 1 (CDF(2/3) = 0.704). With 10,000 resamples the share of zeros is 0.037 ± 0.002, six standard
    // errors from both 0.025 and 0.05, so the seeded result is the exact one. A quantile of 0.05 in place of
    // 0.025 would give 1/3 as the 95% interval's lower end.
    const columns = [
      [100, 100, 0],
      [100, 100, 100],
    ];
    const at = (confidence: number) =>
      bootstrapClusters(columns, [mean], { rng: new Rng(7), resamples: 10_000, confidence })[0];
    expect(at(0.95)).toEqual([0, 1]);
    expect(at(0.9)?.[0]).toBeCloseTo(1 / 3, 15);
    expect(at(0.9)?.[1]).toBe(1);
  });

  it('weights by the denominator: the statistic is a ratio of resampled totals, not a mean of ratios', () => {
    // Windows (Σ, n) = (10, 10) and (0, 90): every resample of both windows once gives 10 / 100, and the only
    // resamples are {A, A} = 20/20 = 1, {A, B} = 10/100, {B, B} = 0 — never the mean of ratios, 0.5.
    const [ci] = bootstrapClusters(
      [
        [10, 0],
        [10, 90],
      ],
      [mean],
      { rng: new Rng(1), resamples: 4000 },
    );
    expect(ci).toEqual([0, 1]);
    const [mid] = bootstrapClusters(
      [
        [10, 0],
        [10, 90],
      ],
      [mean],
      { rng: new Rng(1), resamples: 4000, confidence: 0.2 },
    );
    expect(mid).toEqual([0.1, 0.1]);
  });

  it('all windows alike: a zero-width interval at the point estimate', () => {
    const [ci] = bootstrapClusters(
      [
        [0.3, 0.3, 0.3, 0.3],
        [16, 16, 16, 16],
      ],
      [mean],
      { rng: new Rng(0), resamples: 200 },
    );
    const point = (0.3 + 0.3 + 0.3 + 0.3) / 64;
    expect(ci).toEqual([point, point]);
  });

  it('no cluster gives NaN; unequal columns and bad options are refused', () => {
    expect(bootstrapClusters([[], []], [mean], { rng: new Rng(0) })).toEqual([[Number.NaN, Number.NaN]]);
    expect(() => bootstrapClusters([[1, 2], [1]], [mean], { rng: new Rng(0) })).toThrow(DantinoxError);
    expect(() => bootstrapClusters([[1], [1]], [mean], { rng: new Rng(0), resamples: 0 })).toThrow(
      DantinoxError,
    );
    expect(() => bootstrapClusters([[1], [1]], [mean], { rng: new Rng(0), confidence: 1 })).toThrow(
      DantinoxError,
    );
  });

  it('seeded: the same seed gives the same interval, another seed (usually) another', () => {
    const columns = [Array.from({ length: 30 }, (_, i) => (i * 37) % 11), new Array(30).fill(5)];
    const run = (seed: number) => bootstrapClusters(columns, [mean], { rng: new Rng(seed), resamples: 500 });
    expect(run(3)).toEqual(run(3));
    expect(run(3)).not.toEqual(run(4));
  });

  it('property: the interval contains the point estimate (ratio of the full totals)', () => {
    const window = fc.record({
      sum: fc.integer({ min: 0, max: 1000 }),
      n: fc.integer({ min: 1, max: 50 }),
    });
    fc.assert(
      fc.property(
        fc.array(window, { minLength: 2, maxLength: 25 }),
        fc.integer({ min: 0, max: 1e6 }),
        (ws, seed) => {
          const sums = ws.map((w) => w.sum / 100);
          const ns = ws.map((w) => w.n);
          const point = sums.reduce((s, x) => s + x, 0) / ns.reduce((s, x) => s + x, 0);
          const [ci] = bootstrapClusters([sums, ns], [mean], { rng: new Rng(seed), resamples: 400 });
          const [lo, hi] = ci as [number, number];
          expect(lo).toBeLessThanOrEqual(point + 1e-12);
          expect(hi).toBeGreaterThanOrEqual(point - 1e-12);
        },
      ),
      { seed: 46, numRuns: 150 },
    );
  });
});
