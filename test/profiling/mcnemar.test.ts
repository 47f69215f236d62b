import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { MCNEMAR_EXACT_BELOW, mcnemarTest } from '../../src/profiling/index.js';

describe('mcnemarTest known answers', () => {
  it('exact binomial below 25 discordant pairs: hand-computed tails', () => {
    // b = 0, c = 5: 2 · P(X ≤ 0), X ~ Bin(5, ½) = 2 / 32.
    expect(mcnemarTest(0, 5)).toEqual({ b: 0, c: 5, pValue: 2 / 32, method: 'exact' });
    // b = 1, c = 9: 2 · (C(10,0) + C(10,1)) / 2¹⁰ = 22 / 1024.
    expect(mcnemarTest(1, 9).pValue).toBeCloseTo(22 / 1024, 15);
    expect(mcnemarTest(9, 1).pValue).toBeCloseTo(22 / 1024, 15);
    // b = 2, c = 10: 2 · (1 + 12 + 66) / 4096 = 158 / 4096.
    expect(mcnemarTest(2, 10).pValue).toBeCloseTo(158 / 4096, 15);
    // 24 pairs is still exact: b = 6, c = 18: 2 · Σ_{i ≤ 6} C(24, i) / 2²⁴.
    const tail = [1, 24, 276, 2024, 10626, 42504, 134596].reduce((s, x) => s + x, 0);
    expect(mcnemarTest(6, 18)).toMatchObject({ method: 'exact' });
    expect(mcnemarTest(6, 18).pValue).toBeCloseTo((2 * tail) / 2 ** 24, 14);
  });

  it('chi-square with continuity correction from 25 discordant pairs: erfc(√(χ²/2)) (1e-7)', () => {
    expect(MCNEMAR_EXACT_BELOW).toBe(25);
    // b = 10, c = 20: χ² = (10 − 1)² / 30 = 2.7; P(χ²₁ > 2.7) = 0.10034824646229074 (Python math.erfc).
    const r = mcnemarTest(10, 20);
    expect(r.method).toBe('chi-square');
    expect(r.pValue).toBeCloseTo(0.10034824646229074, 7);
    // b = 4, c = 25: χ² = 20² / 29; p = 0.00020408400998040785.
    expect(mcnemarTest(4, 25).pValue).toBeCloseTo(0.00020408400998040785, 9);
    expect(mcnemarTest(12, 13)).toMatchObject({ method: 'chi-square' });
  });

  it('b = c gives p = 1 under both methods, and so does b + c = 0', () => {
    expect(mcnemarTest(0, 0)).toEqual({ b: 0, c: 0, pValue: 1, method: 'exact' });
    expect(mcnemarTest(3, 3).pValue).toBe(1);
    expect(mcnemarTest(12, 12).pValue).toBe(1);
    expect(mcnemarTest(40, 40)).toEqual({ b: 40, c: 40, pValue: 1, method: 'chi-square' });
    // |b − c| = 1: the continuity correction takes the statistic to 0.
    expect(mcnemarTest(20, 21).pValue).toBe(1);
  });

  it('symmetric in b and c, in [0, 1], and smaller as the split gets more lopsided', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), (b, c) => {
        const p = mcnemarTest(b, c).pValue;
        expect(p).toBe(mcnemarTest(c, b).pValue);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        if (b > 0) expect(mcnemarTest(b - 1, c + 1).pValue).toBeLessThanOrEqual(p + 1e-12 + (b <= c ? 0 : 1));
      }),
      { seed: 1, numRuns: 300 },
    );
  });

  it('refuses counts that are not non-negative integers', () => {
    for (const [b, c] of [
      [-1, 2],
      [1.5, 2],
      [Number.NaN, 0],
    ] as const) {
      expect(() => mcnemarTest(b, c)).toThrow(DantinoxError);
    }
  });
});
