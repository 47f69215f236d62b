/**
 * `--no-calibrate`, `--recalibrate` and `--calibration-ms` of the commands that report MFU (`bench`, `train`): the
 * calibration of this machine's ceilings, cached, that MFU is a fraction of.
 *
 * @packageDocumentation
 */
import type { Command } from 'commander';
import { DEFAULT_CALIBRATION_MS } from '../runs/index.js';
import { parseCalibrationMs } from './option-parsers.js';

/** The calibration flags as parsed. */
export type CalibrationFlags = {
  /** `false` with `--no-calibrate`. */
  readonly calibrate: boolean;
  /** `--recalibrate`. */
  readonly recalibrate?: boolean;
  /** `--calibration-ms`. */
  readonly calibrationMs: number;
};

/** Adds the calibration flags to `command`; `skipped` says what `--no-calibrate` costs the command's output. */
export function addCalibrationOptions(command: Command, skipped: string): Command {
  return command
    .option('--no-calibrate', `skip the ceilings calibration (${skipped})`)
    .option('--recalibrate', "measure this machine's ceilings again instead of using the cache")
    .option(
      '--calibration-ms <ms>',
      'time budget of a calibration in ms (500 to 600000)',
      parseCalibrationMs,
      DEFAULT_CALIBRATION_MS,
    );
}

/** The run's calibration plan of the flags: `undefined` with `--no-calibrate`. */
export function calibrationPlan(
  flags: CalibrationFlags,
): { readonly budgetMs: number; readonly recalibrate: boolean } | undefined {
  return flags.calibrate
    ? { budgetMs: flags.calibrationMs, recalibrate: flags.recalibrate === true }
    : undefined;
}
