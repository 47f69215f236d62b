/**
 * `dantinox compare`: a baseline run against one or more candidate runs, metric by metric, with a significance
 * test and a confidence interval of each change; `--fail-on-regression` turns it into a CI gate.
 *
 * @packageDocumentation
 */
import { isAbsolute, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import {
  COMPARISON_FORMATS,
  type ComparisonFormat,
  compareReports,
  comparisonRows,
  formatComparisons,
  type ReportComparison,
  RunDirectory,
} from '../../benchmarking/index.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Visualizer } from '../../visualization/index.js';
import type { CliWriter } from '../cli-io.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { type LoadedReport, loadReport } from '../load-report.js';
import { parseNonNegativeInt } from '../option-parsers.js';

/** Parsed options of `dantinox compare`. */
interface CompareCliOptions {
  readonly threshold: number;
  readonly format: ComparisonFormat;
  readonly failOnRegression?: boolean;
  readonly allowDifferentModels?: boolean;
  readonly seed: number;
  readonly out?: string;
}

/** The default of `--threshold`, in percent. */
export const DEFAULT_THRESHOLD_PERCENT = 5;

const EXAMPLES = `
Examples:
  $ dantinox compare results/main results/pr-42
  $ dantinox compare results/main results/pr-42 --format markdown > comment.md
  $ dantinox compare base.json cand-a.json cand-b.json --threshold 2% --fail-on-regression
  $ dantinox compare results/main results/pr-42 --out compare/   # + chart (SVG, PNG) and HTML report

For every metric of every matched task and cell: baseline, candidate, relative change, a 95% bootstrap
interval of the change and a Mann–Whitney U test on the raw per-call samples (when both runs recorded them),
and a verdict: regressed / improved (significant and beyond the threshold, in the metric's bad / good
direction), within noise (significant but smaller), no significant change, or not judged (counts, spreads,
single observations: the cold first call, the fastest and the slowest call). Without samples the threshold
alone decides. Rows, cells and metrics on one side only are listed.
Exit codes: 0 done, 1 a metric regressed and --fail-on-regression was given, 2 bad input.
`;

/**
 * Parses a `--threshold` percentage: `5%`, `5` and `2.5%` are 5%, 5% and 2.5% (the result is a fraction).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for anything else.
 */
export function parseThreshold(value: string): number {
  const text = value.trim().replace(/%$/, '');
  const n = text === '' ? Number.NaN : Number(text);
  if (!(Number.isFinite(n) && n >= 0))
    throw new DantinoxError('INVALID_OPTION', messages.badThreshold(value));
  return n / 100;
}

function parseFormat(value: string): ComparisonFormat {
  if (!(COMPARISON_FORMATS as readonly string[]).includes(value)) {
    throw new DantinoxError('INVALID_OPTION', messages.unknownComparisonFormat(value, COMPARISON_FORMATS));
  }
  return value as ComparisonFormat;
}

/** Display names: run ids, else folder names; made unique with the path when two runs share one. */
function runLabels(runs: readonly LoadedReport[]): string[] {
  const names = runs.map((r) => r.report.runId ?? RunDirectory.nameOf(r.path));
  return names.map((n, i) =>
    names.indexOf(n) === i && names.lastIndexOf(n) === i ? n : `${n} (${runs[i]?.path})`,
  );
}

/** Registers `dantinox compare` on `program`. */
export function registerCompareCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('compare')
    .summary('compare runs: changes, intervals, significance, verdicts')
    .description(
      'Compares candidate runs with a baseline run, metric by metric: relative change, bootstrap confidence interval, Mann–Whitney U test and a verdict.',
    )
    .argument('<baseline>', 'the baseline run: a directory written by "dantinox bench" or its results file')
    .argument('<candidates...>', 'one or more candidate runs (directories or results.json / .jsonl / .csv)')
    .addOption(
      new Option('--threshold <percent>', 'smallest change that counts as a regression or improvement')
        .argParser(parseThreshold)
        .default(DEFAULT_THRESHOLD_PERCENT / 100, `${DEFAULT_THRESHOLD_PERCENT}%`),
    )
    .option('--format <format>', `output on stdout: ${COMPARISON_FORMATS.join(', ')}`, parseFormat, 'text')
    .option('--fail-on-regression', 'exit 1 when any metric regressed (for CI)')
    .option('--allow-different-models', 'compare runs of different models (architecture or name) anyway')
    .option('--seed <n>', 'seed of the bootstrap intervals', parseNonNegativeInt, 0)
    .option(
      '-o, --out <dir>',
      'also write comparison.md, comparison.json, the compare chart (SVG, PNG) and an HTML report',
    )
    .addHelpText('after', EXAMPLES)
    .action(async (baseline: string, candidates: string[], options: CompareCliOptions) => {
      ctx.exitCode = await runCompare(baseline, candidates, options, ctx);
    });
}

/**
 * Loads the runs, compares every candidate with the baseline, prints the result and writes `--out` files.
 * Exposed for `bench --compare-last`, which compares a fresh run with the latest one in its history.
 */
export async function runCompare(
  baselinePath: string,
  candidatePaths: readonly string[],
  options: CompareCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  const runs = [baselinePath, ...candidatePaths].map((p) => loadReport(p, ctx.io.cwd));
  const labels = runLabels(runs);
  const [base, ...cands] = runs as [LoadedReport, ...LoadedReport[]];
  const comparisons = cands.map((c, i) =>
    compareReports(base.report, c.report, {
      threshold: options.threshold,
      seed: options.seed,
      allowDifferentModels: options.allowDifferentModels === true,
      baselineLabel: labels[0] as string,
      candidateLabel: labels[i + 1] as string,
    }),
  );
  return writeComparisons(comparisons, options, ctx);
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
  const outDir = isAbsolute(dir) ? dir : resolve(ctx.io.cwd, dir);
  const { mkdir, writeFile } = await import('node:fs/promises');
  try {
    await mkdir(outDir, { recursive: true });
    await writeFile(join(outDir, 'comparison.md'), formatComparisons(comparisons, 'markdown'));
    await writeFile(join(outDir, 'comparison.json'), formatComparisons(comparisons, 'json'));
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotWrite(outDir, cause), { cause });
  }
  const results = await new Visualizer().render(comparisonRows(comparisons), {
    charts: ['compare'],
    outDir,
    formats: ['svg', 'png', 'html'],
    runName: 'comparison',
    overwrite: true,
    title: `dantinox compare: ${comparisons.map((c) => c.candidate.label).join(', ')} vs ${comparisons[0]?.baseline.label ?? ''}`,
  });
  const chart = results['compare'];
  if (chart !== undefined && chart.status !== 'rendered')
    ctx.io.stderr.write(`note: compare chart not drawn: ${chart.reason}\n`);
  ctx.io.stderr.write(
    `wrote ${outDir}/comparison.{md,json}, comparison-compare.{svg,png}, comparison-report.html\n`,
  );
}
