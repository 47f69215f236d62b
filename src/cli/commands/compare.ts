/**
 * `dantinox compare`: baseline runs against candidate runs, metric by metric. A verdict is decided on runs: a
 * t-test on per-run values with several runs per side, a noise floor with one; `--fail-on-regression` turns it
 * into a CI gate that fails only on a `regressed` verdict.
 *
 * @packageDocumentation
 */
import { type Command, Option } from 'commander';
import {
  COMPARISON_FORMATS,
  type ComparisonFormat,
  formatComparisons,
  formatNoiseWarnings,
  type ReportComparison,
} from '../../benchmarking/index.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { compareRuns, writeComparison } from '../../runs/index.js';
import type { CliWriter } from '../cli-io.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { parseNonNegativeInt } from '../option-parsers.js';
import { RUN_SEPARATOR } from '../run-separator.js';

/** Parsed options of `dantinox compare`. */
interface CompareCliOptions {
  readonly threshold: number;
  readonly noiseFloor?: number;
  readonly format: ComparisonFormat;
  readonly failOnRegression?: boolean;
  readonly allowDifferent?: boolean;
  readonly seed: number;
  readonly out?: string;
}

/** The default of `--threshold`, in percent. */
export const DEFAULT_THRESHOLD_PERCENT = 5;

const EXAMPLES = `
Examples:
  $ dantinox compare runs/base-1 runs/base-2 runs/base-3 -- runs/pr-1 runs/pr-2 runs/pr-3
  $ dantinox compare runs/base runs/pr --fail-on-regression   # folders of runs: runs/base/1, 2, …
  $ dantinox compare results/main results/pr-42 --noise-floor 8%   # one run per side
  $ dantinox compare runs/base runs/pr --format markdown --out compare/ > comment.md

Runs: the baseline runs, "--", the candidate runs; or a baseline then one or more candidates (each compared
with it). Each is a run directory, its results file, or a folder of repeated runs of one variant.
For every metric of every matched task and cell: baseline and candidate (geometric mean over runs), relative
change, its 95% interval, a p-value, the runs, the method that decided and a verdict. The unit is the run:
calls of one run share its machine state, so they cannot show run-to-run drift.
- Several runs per side: Welch's t-test on the per-run values (their logs).
- One run per side: the change must exceed --noise-floor (and the per-call samples must agree); without it
  every metric is inconclusive, and says how many runs per side would decide it.
Verdicts: regressed / improved (significant and beyond --threshold, in the metric's bad / good direction),
inconclusive (N runs per side needed), within noise (significant but smaller), no significant change (the
interval lies within ±threshold), not judged (counts, spreads, single observations). TTFT, TPOT and E2E are
judged from their per-generation samples like every other metric; no metric is judged by the threshold alone.
Exit codes: 0 done, 1 a metric regressed and --fail-on-regression was given, 2 bad input.
`;

/** Parses a percentage option: `5%`, `5` and `2.5%` are 5%, 5% and 2.5% (the result is a fraction). */
function parsePercent(value: string, bad: (value: string) => string): number {
  const text = value.trim().replace(/%$/, '');
  const n = text === '' ? Number.NaN : Number(text);
  if (!(Number.isFinite(n) && n >= 0)) throw new DantinoxError('INVALID_OPTION', bad(value));
  return n / 100;
}

/**
 * Parses a `--threshold` percentage: `5%`, `5` and `2.5%` are 5%, 5% and 2.5% (the result is a fraction).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for anything else.
 */
export function parseThreshold(value: string): number {
  return parsePercent(value, messages.badThreshold);
}

/**
 * Parses a `--noise-floor` percentage like {@link parseThreshold} (the result is a fraction).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for anything but a percentage ≥ 0.
 */
export function parseNoiseFloor(value: string): number {
  return parsePercent(value, messages.badNoiseFloor);
}

function parseFormat(value: string): ComparisonFormat {
  if (!(COMPARISON_FORMATS as readonly string[]).includes(value)) {
    throw new DantinoxError('INVALID_OPTION', messages.unknownComparisonFormat(value, COMPARISON_FORMATS));
  }
  return value as ComparisonFormat;
}

/** The sides of a comparison as given: paths per side, the baseline first. */
interface SidePaths {
  readonly baseline: readonly string[];
  readonly candidates: readonly (readonly string[])[];
}

/**
 * Splits the positional runs: `A1 A2 -- B1 B2` is one baseline side and one candidate side; without `--`, the
 * first path is the baseline and each other path a candidate.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for an empty side, several `--` or fewer than two runs.
 */
export function splitRunArguments(args: readonly string[]): SidePaths {
  const at = args.indexOf(RUN_SEPARATOR);
  if (at >= 0) {
    const baseline = args.slice(0, at);
    const candidate = args.slice(at + 1);
    if (candidate.includes('--') || candidate.includes(RUN_SEPARATOR))
      throw new DantinoxError('INVALID_INPUT', messages.compareTwoSeparators());
    if (baseline.length === 0)
      throw new DantinoxError('INVALID_INPUT', messages.compareEmptySide('baseline'));
    if (candidate.length === 0)
      throw new DantinoxError('INVALID_INPUT', messages.compareEmptySide('candidate'));
    return { baseline, candidates: [candidate] };
  }
  if (args.length < 2) throw new DantinoxError('INVALID_INPUT', messages.compareNeedsTwoRuns());
  const [first, ...rest] = args as [string, ...string[]];
  return { baseline: [first], candidates: rest.map((p) => [p]) };
}

/** Registers `dantinox compare` on `program`. */
export function registerCompareCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('compare')
    .summary('compare runs: changes, intervals, significance, verdicts')
    .description(
      'Compares candidate runs with baseline runs, metric by metric: relative change, its interval, a test on per-run values (Welch with several runs per side, a noise floor with one), the method that decided and a verdict.',
    )
    .argument(
      '<runs...>',
      'baseline runs, "--", candidate runs (or a baseline then candidates): run directories, results files, or folders of repeated runs',
    )
    .addOption(
      new Option('--threshold <percent>', 'smallest change that counts as a regression or improvement')
        .argParser(parseThreshold)
        .default(DEFAULT_THRESHOLD_PERCENT / 100, `${DEFAULT_THRESHOLD_PERCENT}%`),
    )
    .addOption(
      new Option(
        '--noise-floor <percent>',
        'with one run per side: the largest change two runs of the same code show (e.g. 8%)',
      ).argParser(parseNoiseFloor),
    )
    .option('--format <format>', `output on stdout: ${COMPARISON_FORMATS.join(', ')}`, parseFormat, 'text')
    .option('--fail-on-regression', 'exit 1 when a metric is regressed (for CI)')
    .option(
      '--allow-different',
      'compare different variants on purpose (another model, weights, dtype, quantization plan, engine, threads or machine); the report lists the differences',
    )
    .option('--seed <n>', 'seed of the per-call bootstrap (with --noise-floor)', parseNonNegativeInt, 0)
    .option(
      '-o, --out <dir>',
      'also write comparison.md, comparison.json, the compare chart (SVG, PNG) and an HTML report',
    )
    .addHelpText('after', EXAMPLES)
    .action(async (runs: string[], options: CompareCliOptions) => {
      ctx.exitCode = await runCompare(runs, options, ctx);
    });
}

/**
 * Loads the runs (`A1 A2 -- B1 B2`, or a baseline then candidates; folders of repeated runs expanded), compares
 * every candidate side with the baseline side, prints the result and writes `--out` files.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` or `IO` for bad runs (see {@link splitRunArguments} and
 * `compareRuns`).
 */
export async function runCompare(
  runArgs: readonly string[],
  options: CompareCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  // Commander drops a second "--" (the first became RUN_SEPARATOR): count them in the raw arguments.
  if (ctx.argv.filter((a) => a === '--').length > 1)
    throw new DantinoxError('INVALID_INPUT', messages.compareTwoSeparators());
  const { baseline, candidates } = splitRunArguments(runArgs);
  const { comparisons, notes, warnings } = compareRuns([baseline, ...candidates], {
    cwd: ctx.io.cwd,
    threshold: options.threshold,
    seed: options.seed,
    ...(options.noiseFloor === undefined ? {} : { noiseFloor: options.noiseFloor }),
    allowDifferent: options.allowDifferent === true,
  });
  for (const note of notes) ctx.io.stderr.write(`note: ${note}\n`);
  const code = await writeComparisons(comparisons, options, ctx);
  // Beside a text comparison on stdout; on stderr when stdout is a document (json, markdown).
  const where = options.format === 'text' ? ctx.io.stdout : ctx.io.stderr;
  if (warnings.length > 0) where.write(`\n${formatNoiseWarnings(warnings)}\n`);
  return code;
}

/** Prints comparisons in the chosen format, writes the `--out` files, and decides the exit code. */
export async function writeComparisons(
  comparisons: readonly ReportComparison[],
  options: Pick<CompareCliOptions, 'format' | 'failOnRegression' | 'out'>,
  ctx: CommandContext,
  out: CliWriter = ctx.io.stdout,
): Promise<ExitCode> {
  out.write(formatComparisons(comparisons, options.format, { color: out.isTTY === true }));
  if (options.out !== undefined) await writeOutDir(comparisons, options.out, ctx);
  const regressed = comparisons.some((c) => c.counts.regressed > 0);
  return regressed && options.failOnRegression === true ? ExitCode.regression : ExitCode.ok;
}

async function writeOutDir(
  comparisons: readonly ReportComparison[],
  dir: string,
  ctx: CommandContext,
): Promise<void> {
  const written = await writeComparison(comparisons, dir, ctx.io.cwd);
  if (written.chart !== undefined && written.chart.status !== 'rendered')
    ctx.io.stderr.write(`note: compare chart not drawn: ${written.chart.reason}\n`);
  ctx.io.stderr.write(`wrote ${written.dir}/{${written.files.join(',')}}\n`);
}
