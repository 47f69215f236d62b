/**
 * `dantinox plot`: renders charts from saved results; several files are several runs compared.
 *
 * @packageDocumentation
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import {
  CHART_FORMATS,
  type ChartFormat,
  combineRuns,
  type RenderResults,
  Visualizer,
} from '../../visualization/index.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { loadRun } from '../load-runs.js';
import { parseNameList } from '../option-parsers.js';
import { safeRunName } from '../run-outputs.js';

/** Parsed options of `dantinox plot`. */
interface PlotCliOptions {
  readonly charts?: string[];
  readonly out: string;
  readonly format: string[];
  readonly verbose?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox plot results/2026-01-31_14-05-09/results.csv
  $ dantinox plot results/run-a results/run-b --out comparison --format svg,png,html
  $ dantinox plot results/run-a/results.json --charts throughput,latency --format png

Inputs are results.csv / results.json / results.jsonl files or run directories written by "dantinox bench"
(any CSV/JSON/JSONL table with the same column names works too). With several inputs, each run gets a
"run" column and appears as its own series. Files are named <run>-<chart>.<ext>; existing ones are replaced.
`;

/**
 * Checks chart names against the registry (so a typo is a usage error with a did-you-mean, not a skipped chart).
 *
 * @throws {@link DantinoxError} `UNKNOWN_PLUGIN`.
 */
export function checkChartNames(names: readonly string[], available: readonly string[]): void {
  for (const name of names) {
    if (!available.includes(name))
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.unknownChart(name, available));
  }
}

/**
 * Checks `--format` values.
 *
 * @throws {@link DantinoxError} `INVALID_OPTION` for an unknown format.
 */
export function checkFormats(formats: readonly string[]): ChartFormat[] {
  for (const f of formats) {
    if (!(CHART_FORMATS as readonly string[]).includes(f)) {
      throw new DantinoxError('INVALID_OPTION', messages.unknownName('format', f, CHART_FORMATS));
    }
  }
  return formats as ChartFormat[];
}

/** Registers `dantinox plot` on `program`. */
export function registerPlotCommand(program: Command, ctx: CommandContext): Command {
  const available = new Visualizer().availableCharts();
  return program
    .command('plot')
    .summary('render charts (SVG, PNG, HTML) from saved results')
    .description(
      'Renders charts from results written by "dantinox bench" (or any table with its column names). Several inputs are compared as several runs.',
    )
    .argument('<results...>', 'results.csv / results.json / results.jsonl files or run directories')
    .option(
      '--charts <list>',
      `charts to draw (default: every chart the data supports): ${available.join(', ')}`,
      parseNameList,
    )
    .option('-o, --out <dir>', 'output directory', 'plots')
    .option('-f, --format <list>', `output formats: ${CHART_FORMATS.join(', ')}`, parseNameList, [
      'svg',
      'png',
    ])
    .option('--verbose', 'say why charts were skipped, and stack traces on errors')
    .addHelpText('after', EXAMPLES)
    .action(async (inputs: string[], options: PlotCliOptions) => {
      ctx.exitCode = await runPlot(inputs, options, ctx);
    });
}

async function runPlot(
  inputs: readonly string[],
  options: PlotCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const visualizer = new Visualizer();
  if (options.charts !== undefined) checkChartNames(options.charts, visualizer.availableCharts());
  const formats = checkFormats(options.format);
  const runs = [];
  for (const input of inputs) runs.push(await loadRun(input, io.cwd));
  const rows = combineRuns(runs);
  const runName = runs.length === 1 ? safeRunName(runs[0]?.name ?? 'run') : 'comparison';
  const outDir = isAbsolute(options.out) ? options.out : resolve(io.cwd, options.out);
  const results = await visualizer.render(rows, {
    outDir,
    formats,
    runName,
    overwrite: true,
    ...(options.charts === undefined ? {} : { charts: options.charts }),
    title: runs.length === 1 ? `dantinox: ${runName}` : `dantinox: ${runs.map((r) => r.name).join(' vs ')}`,
  });
  return reportRenderResults(results, io, {
    explicit: options.charts !== undefined,
    verbose: options.verbose === true,
    cwd: io.cwd,
    requireChart: true,
  });
}

/**
 * Prints the written files on stdout and the charts not drawn on stderr; returns the exit code: 1 when a chart
 * failed, 2 when an explicitly requested chart could not be drawn (or, with `requireChart`, nothing was drawn),
 * else 0.
 */
export function reportRenderResults(
  results: RenderResults,
  io: CommandContext['io'],
  options: {
    readonly explicit: boolean;
    readonly verbose: boolean;
    readonly cwd: string;
    readonly requireChart: boolean;
  },
): ExitCode {
  let rendered = 0;
  let failed = 0;
  const skipped: string[] = [];
  const paths = new Set<string>();
  for (const [chart, result] of Object.entries(results)) {
    if (result.status === 'rendered') {
      rendered += 1;
      for (const p of Object.values(result.paths)) paths.add(relative(options.cwd, p));
      continue;
    }
    if (result.status === 'failed') failed += 1;
    else skipped.push(chart);
    if (result.status === 'failed' || options.explicit || options.verbose) {
      io.stderr.write(`${chart}: not drawn (${result.status}): ${result.reason}\n`);
    }
  }
  for (const p of paths) io.stdout.write(`${p}\n`);
  if (skipped.length > 0 && !options.explicit && !options.verbose) {
    io.stderr.write(`Not drawn (no data for them): ${skipped.join(', ')}; --verbose says why.\n`);
  }
  if (failed > 0) return ExitCode.taskFailed;
  if ((options.requireChart && rendered === 0) || (options.explicit && skipped.length > 0))
    return ExitCode.usage;
  return ExitCode.ok;
}
