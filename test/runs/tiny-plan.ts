/**
 * Plans of real `tiny` runs for the tests of `runMatrix`: the smallest sweep that can be timed, no calibration, no
 * charts, no log; and hooks that record what a run does.
 */
import { planRun, type RunPlanInput } from '../../src/runs/plan-run.js';
import type { RunHooks, RunPlan } from '../../src/runs/run-matrix.js';

/** One throughput cell of 8 tokens, batch 1, two timed calls, no warm-up and no minimum times. */
export const TINY_CONFIG = {
  seqLens: [8],
  batchSizes: [1],
  nWarmup: 0,
  nMeasure: 2,
  minWarmupMs: 0,
  minMeasureMs: 0,
};

/** A plan of `tiny` (or of `input.axes`) with {@link TINY_CONFIG} and the throughput task, writing `dir` under `cwd`. */
export function tinyPlan(cwd: string, dir: string, input: Partial<RunPlanInput> = {}): RunPlan {
  return planRun({
    dir,
    cwd,
    axes: { config: ['tiny'] },
    config: TINY_CONFIG,
    tasks: ['throughput'],
    calibration: false,
    charts: false,
    logger: { log: () => {} },
    ...input,
  });
}

/** Hooks that log rounds and variants as `round 1/3`, `start tiny-fp32`, `skip tiny`. */
export function recorder(events: string[]): RunHooks {
  return {
    onRoundStart: ({ round, count }) => void events.push(`round ${round}/${count}`),
    onVariantStart: ({ variant }) => void events.push(`start ${variant.id}`),
    onVariantSkipped: ({ variant }) => void events.push(`skip ${variant.id}`),
  };
}
