/**
 * `dantinox calibrate`: measures (or shows the cached) ceilings of this machine — dense GEMM per weight dtype and
 * memory bandwidth — with the engine and thread count a benchmark uses.
 *
 * @packageDocumentation
 */
import type { Command } from 'commander';
import { DEFAULT_CALIBRATION_MS, defaultThreads, runCalibration } from '../../runs/index.js';
import type { CommandContext } from '../command-context.js';
import { formatCalibration } from '../format-calibration.js';
import { parseCalibrationMs, parsePositiveInt } from '../option-parsers.js';

/** Parsed options of `dantinox calibrate`. */
interface CalibrateCliOptions {
  readonly threads?: number;
  readonly recalibrate?: boolean;
  readonly calibrationMs: number;
  readonly json?: boolean;
  readonly verbose?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox calibrate                       # all cores; measured once, then read from the cache
  $ dantinox calibrate --threads 2 --recalibrate
  $ dantinox calibrate --json > ceilings.json

"dantinox bench" runs the same step automatically before throughput and latency tasks. The cache lives in
$DANTINOX_CACHE_DIR/calibration, else $XDG_CACHE_HOME/dantinox/calibration or ~/.cache/dantinox/calibration
(macOS: ~/Library/Caches/dantinox, Windows: %LOCALAPPDATA%\\dantinox\\Cache), one file per machine
fingerprint + ONNX Runtime version + thread count, shared by every engine. Measure on an idle machine: the load average is recorded.
`;

/** Registers `dantinox calibrate` on `program`. */
export function registerCalibrateCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('calibrate')
    .summary("measure this machine's GEMM and memory-bandwidth ceilings (cached) for MFU/MBU")
    .description(
      'Times small ONNX Runtime graphs at the benchmark thread count: dense GEMM per weight dtype (fp32 MatMul, fp16 MatMul, int8 MatMulInteger and DynamicQuantizeMatMul, 4-bit MatMulNBits), a GEMV streaming a weight much larger than the last-level cache, and a plain copy; each timed after a time-based warm-up, its rate from the 10th percentile of its run times (the median also holds the moments another process took the cores). Prints the ceilings and the theoretical peak from the ISA flags, and caches them.',
    )
    .option('--threads <n>', 'ONNX Runtime intra-op threads (default: all cores)', parsePositiveInt)
    .option('--recalibrate', 'measure again even when a cached calibration exists')
    .option(
      '--calibration-ms <ms>',
      'time budget of the measurement in ms (500 to 600000)',
      parseCalibrationMs,
      DEFAULT_CALIBRATION_MS,
    )
    .option('--json', 'print the calibration as JSON')
    .option('--verbose', 'print stack traces on errors')
    .addHelpText('after', EXAMPLES)
    .action(async (options: CalibrateCliOptions) => {
      const { createWriterLogger } = await import('../../benchmarking/index.js');
      const outcome = await runCalibration({
        threads: options.threads ?? defaultThreads(),
        budgetMs: options.calibrationMs,
        logger: createWriterLogger(ctx.io.stderr, 'warn'),
        notes: ctx.io.stderr,
        ...(options.recalibrate === true ? { recalibrate: true } : {}),
      });
      ctx.io.stdout.write(
        options.json === true
          ? `${JSON.stringify({ ...outcome.calibration, cached: outcome.cached, path: outcome.path }, null, 2)}\n`
          : formatCalibration(outcome),
      );
    });
}
