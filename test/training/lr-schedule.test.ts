/** The warm-up + cosine schedule: its boundary values by hand, and its shape as properties. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { learningRate } from '../../src/training/lr-schedule.js';

const schedule = { lr: 1e-3, minLr: 1e-4, warmupSteps: 10, steps: 110 };

describe('learning-rate schedule', () => {
  it('warms up linearly from lr/warmup to the peak, then decays by cosine to the floor at the last step', () => {
    expect(learningRate(schedule, 0)).toBeCloseTo(1e-4, 12);
    expect(learningRate(schedule, 4)).toBeCloseTo(5e-4, 12);
    expect(learningRate(schedule, 9)).toBeCloseTo(1e-3, 12);
    expect(learningRate(schedule, 10)).toBeCloseTo(1e-3, 12);
    // Half way through the decay (p = 49.5 / 99 = 0.5): the mean of peak and floor.
    expect(learningRate({ ...schedule, steps: 111 }, 60)).toBeCloseTo(5.5e-4, 12);
    expect(learningRate(schedule, 109)).toBeCloseTo(1e-4, 12);
  });

  it('without warm-up starts at the peak; a run too short to decay holds it', () => {
    expect(learningRate({ ...schedule, warmupSteps: 0 }, 0)).toBe(1e-3);
    expect(learningRate({ ...schedule, warmupSteps: 10, steps: 11 }, 10)).toBe(1e-3);
    expect(learningRate({ ...schedule, warmupSteps: 0, steps: 1 }, 0)).toBe(1e-3);
  });

  it('rises through warm-up, falls after, and stays within [minLr, lr]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (warmupSteps, extra, ratio) => {
          const s = { lr: 1, minLr: ratio, warmupSteps, steps: warmupSteps + extra };
          let previous = 0;
          for (let step = 0; step < s.steps; step++) {
            const lr = learningRate(s, step);
            expect(lr).toBeLessThanOrEqual(1 + 1e-12);
            if (step < warmupSteps) expect(lr).toBeGreaterThan(previous);
            else {
              expect(lr).toBeGreaterThanOrEqual(ratio - 1e-12);
              if (step > warmupSteps) expect(lr).toBeLessThanOrEqual(previous + 1e-12);
            }
            previous = lr;
          }
        },
      ),
    );
  });
});
