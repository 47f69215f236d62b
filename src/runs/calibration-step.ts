/**
 * The calibration step of a run (and of `dantinox calibrate`): load this machine's cached ceilings or measure
 * them, telling `notes` when it measures.
 *
 * @packageDocumentation
 */
import os from 'node:os';
import type { CalibrationOutcome } from '../benchmarking/calibration.js';
import type { Logger, TextWriter } from '../benchmarking/logger.js';
import { checkThreads } from '../models/engines/threads.js';

/** Default time budget of a calibration, in ms. */
export const DEFAULT_CALIBRATION_MS = 20_000;

/**
 * Accepted time budgets of a calibration, in ms: from 500 (each of the seven probes still gets its warm-up and a
 * few timed calls) to 600,000 (ten minutes; the medians settle within seconds, so a larger budget is a typo).
 */
export const CALIBRATION_MS_RANGE = Object.freeze({ min: 500, max: 600_000 });

/** Options of {@link runCalibration}. */
export interface CalibrationStepOptions {
  /** Engine threads. */
  readonly threads: number;
  /** Measure even when cached. */
  readonly recalibrate?: boolean;
  /** Budget of a measurement in ms. */
  readonly budgetMs?: number;
  /** Where warnings go. */
  readonly logger: Logger;
  /** Where "Calibrating…" notes go (undefined: quiet). */
  readonly notes?: TextWriter;
}

/**
 * Loads or measures the calibration, noting on `notes` when it measures and where it caches.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a thread count that is not a positive integer of at
 * most 4 per core, before anything is measured.
 */
export async function runCalibration(options: CalibrationStepOptions): Promise<CalibrationOutcome> {
  checkThreads(options.threads);
  const { loadOrCalibrate } = await import('../benchmarking/index.js');
  const budgetMs = options.budgetMs ?? DEFAULT_CALIBRATION_MS;
  let announced = false;
  const outcome = await loadOrCalibrate({
    threads: options.threads,
    budgetMs,
    logger: options.logger,
    ...(options.recalibrate === true ? { recalibrate: true } : {}),
    onProbe: (id, index, total) => {
      if (!announced) {
        options.notes?.write(
          `Calibrating this machine's ceilings at ${options.threads} threads (≈ ${(budgetMs / 1000).toFixed(0)} s, once; cached)…\n`,
        );
        announced = true;
      }
      options.notes?.write(`  probe ${index + 1}/${total}: ${id}\n`);
    },
  });
  if (!outcome.cached && outcome.notStored === undefined)
    options.notes?.write(`Calibration cached in ${outcome.path}\n`);
  if (outcome.busy !== undefined) options.logger.log('warn', outcome.busy);
  return outcome;
}

/** Intra-op threads when none are given: every CPU this process may use. */
export const defaultThreads = (): number => os.availableParallelism();
