import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import {
  logGamma,
  normalQuantile,
  normalSf,
  regularizedIncompleteBeta,
  studentTQuantile,
  studentTSf,
} from '../../src/profiling/index.js';

// Reference values from SciPy 1.17 (scipy.stats.norm / t, scipy.special.gammaln / betainc): another implementation.
const close = (actual: number, expected: number, rel: number) =>
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(
    rel * Math.abs(expected),
  );

describe('logGamma / regularizedIncompleteBeta', () => {
  it.each([
    [0.5, 0.5723649429247],
    [10, 12.801827480081469],
    [0.1, 2.252712651734206],
    [100.5, 361.43554046777757],
  ])('logGamma(%d)', (x, expected) => close(logGamma(x), expected, 1e-12));

  it('is ln((n − 1)!) at integers', () => {
    expect(logGamma(1)).toBeCloseTo(0, 12);
    expect(logGamma(2)).toBeCloseTo(0, 12);
    close(logGamma(6), Math.log(120), 1e-13);
  });

  it.each([
    [0.3, 2, 5, 0.5798250000000003],
    [0.9, 0.5, 0.5, 0.7951672353008665],
  ])('I_%d(%d, %d)', (x, a, b, expected) => close(regularizedIncompleteBeta(x, a, b), expected, 1e-12));

  it('is 0 at x ≤ 0 and 1 at x ≥ 1', () => {
    expect(regularizedIncompleteBeta(0, 2, 3)).toBe(0);
    expect(regularizedIncompleteBeta(-1, 2, 3)).toBe(0);
    expect(regularizedIncompleteBeta(1, 2, 3)).toBe(1);
  });

  it('satisfies I_x(a, b) = 1 − I_{1−x}(b, a)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.double({ min: 0.1, max: 50, noNaN: true }),
        fc.double({ min: 0.1, max: 50, noNaN: true }),
        (x, a, b) => {
          const lhs = regularizedIncompleteBeta(x, a, b);
          expect(lhs).toBeGreaterThanOrEqual(0);
          expect(lhs).toBeLessThanOrEqual(1);
          expect(lhs).toBeCloseTo(1 - regularizedIncompleteBeta(1 - x, b, a), 10);
        },
      ),
    );
  });
});

describe('normalQuantile', () => {
  it.each([
    [0.975, 1.959963984540054],
    [0.8, 0.8416212335729143],
    [0.9, 1.2815515655446004],
    [0.001, -3.090232306167813],
    [0.01, -2.3263478740408408],
    [0.99999, 4.264890793923841],
  ])('z(%d)', (p, expected) => close(normalQuantile(p), expected, 1.2e-9));

  it('is exactly 0 at ½ and antisymmetric', () => {
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0.3)).toBeCloseTo(-normalQuantile(0.7), 12);
  });

  it('inverts the normal tail', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true }), (p) => {
        expect(Math.abs(normalSf(normalQuantile(p)) - (1 - p))).toBeLessThan(1e-7);
      }),
    );
  });

  it('refuses p outside (0, 1)', () => {
    for (const p of [0, 1, -0.1, Number.NaN]) expect(() => normalQuantile(p)).toThrow(DantinoxError);
  });
});

describe('studentTSf / studentTQuantile', () => {
  it.each([
    [2, 5, 0.050969739414929174],
    [-1, 3, 0.8044988905221148],
    [0, 7, 0.5],
    [40, 2, 0.0003122073360923703],
    [1000, 1, 0.0003183097800805589],
    [1.5, 3.7, 0.10679908460100675],
  ])('P(T > %d), df %d', (t, df, expected) => close(studentTSf(t, df), expected, 1e-10));

  it.each([
    [0.975, 1, 12.706204736174694],
    [0.975, 2, 4.302652729749462],
    [0.975, 4, 2.7764451051977934],
    [0.975, 10, 2.228138851986274],
    [0.975, 2.5, 3.5746548420036817],
    [0.025, 3, -3.1824463052837086],
    [0.999, 3, 10.214531852407383],
  ])('t(%d, df %d)', (p, df, expected) => close(studentTQuantile(p, df), expected, 1e-10));

  it('is the normal distribution at df = Infinity, and ±∞ tails are 0 and 1', () => {
    expect(studentTSf(1.5, Number.POSITIVE_INFINITY)).toBe(normalSf(1.5));
    expect(studentTQuantile(0.975, Number.POSITIVE_INFINITY)).toBe(normalQuantile(0.975));
    expect(studentTSf(Number.POSITIVE_INFINITY, 3)).toBe(0);
    expect(studentTSf(Number.NEGATIVE_INFINITY, 3)).toBe(1);
    expect(studentTQuantile(0.5, 3)).toBe(0);
  });

  it('quantile and tail invert each other, and the tail decreases in t', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        (p, df) => {
          const t = studentTQuantile(p, df);
          expect(Math.abs(studentTSf(t, df) - (1 - p))).toBeLessThan(1e-9);
          expect(studentTSf(t + 0.1, df)).toBeLessThan(studentTSf(t, df));
          // Heavier tails than the normal: |t quantile| ≥ |z quantile|.
          expect(Math.abs(t)).toBeGreaterThanOrEqual(Math.abs(normalQuantile(p)) - 1e-9);
        },
      ),
    );
  });

  it('refuses df ≤ 0', () => {
    expect(() => studentTSf(1, 0)).toThrow(DantinoxError);
    expect(() => studentTQuantile(0.9, -1)).toThrow(DantinoxError);
  });
});
