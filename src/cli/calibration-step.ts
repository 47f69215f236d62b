/**
 * The calibration step shared by `dantinox calibrate` and `dantinox bench`: load this machine's cached ceilings or
 * measure them (telling the user on stderr), and print them as a table.
 *
 * @packageDocumentation
 */
import os from 'node:os';
import type { Calibration, CalibrationOutcome, Logger } from '../benchmarking/index.js';
import type { CliWriter } from './cli-io.js';

/** Default time budget of a calibration, in ms. */
export const DEFAULT_CALIBRATION_MS = 20_000;

/** Options of {@link runCalibration}. */
export interface CalibrationStepOptions {
  /** Engine threads. */
  readonly threads: number;
  /** Engine label of the fingerprint (the model's `info.engine`). */
  readonly engine?: string;
  /** Measure even when cached. */
  readonly recalibrate?: boolean;
  /** Budget of a measurement in ms. */
  readonly budgetMs?: number;
  /** Where warnings go. */
  readonly logger: Logger;
  /** Where "Calibrating…" notes go (undefined: quiet). */
  readonly notes?: CliWriter;
}

/** Loads or measures the calibration, noting on `notes` when it measures and where it caches. */
export async function runCalibration(options: CalibrationStepOptions): Promise<CalibrationOutcome> {
  const { loadOrCalibrate } = await import('../benchmarking/index.js');
  const budgetMs = options.budgetMs ?? DEFAULT_CALIBRATION_MS;
  let announced = false;
  const outcome = await loadOrCalibrate({
    threads: options.threads,
    budgetMs,
    logger: options.logger,
    ...(options.engine === undefined ? {} : { engine: options.engine }),
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
  if (!outcome.cached) options.notes?.write(`Calibration cached in ${outcome.path}\n`);
  return outcome;
}

const fixed = (v: number | undefined, digits = 1): string => (v === undefined ? '—' : v.toFixed(digits));

/** The calibration as text: fingerprint, one line per probe, the ceilings and the theoretical peak. */
export function formatCalibration(outcome: CalibrationOutcome): string {
  const c: Calibration = outcome.calibration;
  const f = c.fingerprint;
  const lines = [
    `Machine: ${f.cpuModel}, ${f.logicalCpus} logical CPUs, ${(f.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB, ${f.platform}`,
    `Engine: ${f.engine}, ${f.threads} threads`,
    `Measured: ${c.measuredAt} in ${(c.durationMs / 1000).toFixed(1)} s, load average ${c.loadAverage.map((l) => l.toFixed(2)).join(' ')}${outcome.cached ? ' (from the cache)' : ''}`,
    '',
    'probe              rate            median ms (p10–p90, n)  what',
  ];
  for (const p of c.probes) {
    const rate = p.value === undefined ? 'unavailable' : `${fixed(p.value)} ${p.unit}`;
    const timing =
      p.medianMs === undefined
        ? ''
        : `${fixed(p.medianMs, 2)} (${fixed(p.p10Ms, 2)}–${fixed(p.p90Ms, 2)}, ${p.n})`;
    lines.push(
      `${p.id.padEnd(18)} ${rate.padEnd(15)} ${timing.padEnd(24)} ${p.unavailable ?? p.description}`,
    );
  }
  lines.push('', 'Calibrated ceilings (medians):');
  for (const [dtype, g] of Object.entries(c.ceilings.gemmGflops))
    lines.push(`  GEMM ${dtype}: ${fixed(g)} GFLOP/s`);
  lines.push(`  memory bandwidth: ${fixed(c.ceilings.bandwidthGbs)} GB/s`);
  if (c.theoretical !== undefined) {
    const t = Object.entries(c.theoretical.ceilings.gemmGflops).map(([d, g]) => `${d} ${fixed(g)} GFLOP/s`);
    lines.push(`Theoretical peak: ${t.join(', ')} (${c.theoretical.basis})`);
  } else if (c.theoreticalUnavailable !== undefined)
    lines.push(`Theoretical peak: ${c.theoreticalUnavailable}`);
  lines.push(`Cache: ${outcome.path}`);
  return `${lines.join('\n')}\n`;
}

/** Intra-op threads when none are given: every CPU this process may use. */
export const defaultThreads = (): number => os.availableParallelism();
