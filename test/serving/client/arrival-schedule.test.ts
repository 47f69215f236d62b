import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/rng.js';
import { arrivalTimesMs, gammaDraw } from '../../../src/serving/client/arrival-schedule.js';

const gaps = (times: readonly number[]): number[] =>
  times.map((t, i) => t - (i === 0 ? 0 : (times[i - 1] as number)));
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const cv2 = (xs: readonly number[]): number => {
  const m = mean(xs);
  return mean(xs.map((x) => (x - m) ** 2)) / (m * m);
};

describe('arrivalTimesMs', () => {
  it('Poisson: mean gap 1/rate and squared coefficient of variation 1 (20,000 draws, seeded)', () => {
    const g = gaps(arrivalTimesMs({ rate: 4, rng: new Rng(1), count: 20_000 }));
    // Standard error of the mean is 250/√20000 ≈ 1.8 ms: 2% is > 2.5 standard errors.
    expect(mean(g)).toBeGreaterThan(245);
    expect(mean(g)).toBeLessThan(255);
    expect(cv2(g)).toBeGreaterThan(0.9);
    expect(cv2(g)).toBeLessThan(1.1);
  });

  it('gamma gaps of shape k keep the mean and have CV² = 1/k', () => {
    for (const k of [0.25, 4]) {
      const g = gaps(arrivalTimesMs({ rate: 10, burstiness: k, rng: new Rng(2), count: 20_000 }));
      // Within 4 standard errors of the mean (SD of a gap = 100/√k ms): a seeded draw, far from the edge.
      expect(Math.abs(mean(g) - 100)).toBeLessThan((4 * 100) / Math.sqrt(k * 20_000));
      expect(cv2(g)).toBeGreaterThan(0.85 / k);
      expect(cv2(g)).toBeLessThan(1.15 / k);
    }
    expect(gammaDraw(new Rng(3), 2)).toBeGreaterThan(0);
  });

  it('is the same for the same seed, and stops at the count or the duration', () => {
    expect(arrivalTimesMs({ rate: 2, rng: new Rng(7), count: 50 })).toEqual(
      arrivalTimesMs({ rate: 2, rng: new Rng(7), count: 50 }),
    );
    expect(arrivalTimesMs({ rate: 2, rng: new Rng(7), count: 5 })).toHaveLength(5);
    const timed = arrivalTimesMs({ rate: 100, rng: new Rng(7), durationMs: 1000 });
    expect(timed.every((t) => t <= 1000)).toBe(true);
    expect(timed.length).toBeGreaterThan(70);
    expect(timed.length).toBeLessThan(130);
    expect(arrivalTimesMs({ rate: Number.POSITIVE_INFINITY, rng: new Rng(0), count: 3 })).toEqual([0, 0, 0]);
  });

  it('a linear ramp: a quarter of the ramp’s arrivals in its first half', () => {
    const t = arrivalTimesMs({ rate: 1000, rampMs: 10_000, rng: new Rng(4), durationMs: 10_000 });
    // Expected 5,000 arrivals in the ramp, 1,250 in its first half (√1250 ≈ 35 standard deviation).
    expect(t.length).toBeGreaterThan(4800);
    expect(t.length).toBeLessThan(5200);
    const firstHalf = t.filter((x) => x < 5000).length;
    expect(firstHalf).toBeGreaterThan(1100);
    expect(firstHalf).toBeLessThan(1400);
  });

  it('rejects a rate ≤ 0, a shape ≤ 0 and no end, naming the flag', () => {
    expect(() => arrivalTimesMs({ rate: 0, rng: new Rng(0), count: 1 })).toThrow(/--rate/);
    expect(() => arrivalTimesMs({ rate: 1, burstiness: 0, rng: new Rng(0), count: 1 })).toThrow(
      /--burstiness/,
    );
    expect(() => arrivalTimesMs({ rate: 1, rng: new Rng(0) })).toThrow(/--requests N or --duration/);
  });
});
