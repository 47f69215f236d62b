import { describe, expect, it } from 'vitest';
import { fitLine } from '../../src/profiling/linear-fit.js';

describe('fitLine', () => {
  it('recovers an exact line', () => {
    const fit = fitLine([0, 512, 1024, 2048], [10, 12, 14, 18]);
    expect(fit).toEqual({ intercept: 10, slope: 1 / 256, r2: 1, n: 4 });
  });

  it('matches a hand-computed least-squares fit', () => {
    // x = 0,1,2,3; y = 1,3,2,5: x̄ = 1.5, ȳ = 2.75, Sxy = 5.5, Sxx = 5 → slope 1.1, intercept 1.1;
    // residuals −0.1, 0.8, −1.3, 0.6 → SS_res = 2.7, SS_tot = 8.75, r² = 1 − 2.7/8.75.
    const fit = fitLine([0, 1, 2, 3], [1, 3, 2, 5]);
    expect(fit?.slope).toBeCloseTo(1.1, 12);
    expect(fit?.intercept).toBeCloseTo(1.1, 12);
    expect(fit?.r2).toBeCloseTo(1 - 2.7 / 8.75, 12);
  });

  it('leaves out non-finite points and needs two distinct x', () => {
    expect(fitLine([0, 1, 2], [1, Number.NaN, 5])).toMatchObject({ intercept: 1, slope: 2, n: 2 });
    expect(fitLine([3, 3], [1, 2])).toBeUndefined();
    expect(fitLine([1], [1])).toBeUndefined();
  });

  it('gives r² = 1 for a flat line', () => {
    expect(fitLine([0, 1, 2], [4, 4, 4])).toEqual({ intercept: 4, slope: 0, r2: 1, n: 3 });
  });
});
