/**
 * The learning-rate schedule: linear warm-up to the peak, then cosine decay to a floor.
 *
 * @packageDocumentation
 */

/** The schedule's settings. */
export interface LrSchedule {
  /** Peak learning rate (after warm-up). */
  readonly lr: number;
  /** Learning rate at the last step (the cosine's floor). */
  readonly minLr: number;
  /** Steps of linear warm-up. */
  readonly warmupSteps: number;
  /** Steps of the whole run. */
  readonly steps: number;
}

/**
 * The learning rate of update `step` (0-based: the first update is step 0):
 *
 * - warm-up, `step < warmupSteps`: `lr · (step + 1) / warmupSteps` (the first update already moves; the last
 *   warm-up step reaches the peak);
 * - then cosine decay over the remaining updates: with `p = (step − warmupSteps) / (steps − 1 − warmupSteps)`
 *   (0 at the first decay step, 1 at the last update), `minLr + (lr − minLr) · (1 + cos(π·p)) / 2`. A run with no
 *   decay step (`steps − 1 ≤ warmupSteps`) holds the peak after warm-up.
 */
export function learningRate(schedule: LrSchedule, step: number): number {
  const { lr, minLr, warmupSteps, steps } = schedule;
  if (step < warmupSteps) return (lr * (step + 1)) / warmupSteps;
  const span = steps - 1 - warmupSteps;
  if (span <= 0) return lr;
  const p = Math.min(1, (step - warmupSteps) / span);
  return minLr + ((lr - minLr) * (1 + Math.cos(Math.PI * p))) / 2;
}
