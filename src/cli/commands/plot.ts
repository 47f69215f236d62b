/**
 * `dantinox plot`: renders charts from saved results; several files are several runs compared.
 *
 * @packageDocumentation
 */
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadPlugins, loadRuns, safeRunName } from '../../runs/index.js';
import { CHART_FORMATS, chartRowsOf, Visualizer } from '../../visualization/index.js';
import { checkFormats, reportRenderResults } from '../chart-output.js';
import type { CommandContext } from '../command-context.js';
import type { ExitCode } from '../exit-code.js';
import { parseNameList } from '../option-parsers.js';
import { checkPluginNames, collect } from '../plugin-names.js';

/** Parsed options of `dantinox plot`. */
interface PlotCliOptions {
  readonly charts?: string[];
  readonly plugin?: string[];
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
    .option('--plugin <module>', 'ES module whose default export registers charts (repeatable)', collect)
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
  const { charts } = await loadPlugins(options.plugin ?? [], io.cwd);
  const visualizer = new Visualizer({ registry: charts });
  if (options.charts !== undefined) checkPluginNames('chart', options.charts, visualizer.availableCharts());
  const formats = checkFormats(options.format);
  const runs = [];
  for (const input of inputs) runs.push(...(await loadRuns(input, io.cwd)));
  for (const { note } of runs) if (note !== undefined) io.stderr.write(`note: ${note}\n`);
  const rows = chartRowsOf(runs);
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
