/**
 * `dantinox report`: one self-contained HTML report for one or several runs.
 *
 * @packageDocumentation
 */
import { extname, isAbsolute, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { RunDirectory } from '../../benchmarking/index.js';
import { type LoadedRun, loadPlugins, loadRuns } from '../../runs/index.js';
import { Visualizer } from '../../visualization/index.js';
import { reportRenderResults } from '../chart-output.js';
import type { CommandContext } from '../command-context.js';
import type { ExitCode } from '../exit-code.js';
import { parseNameList } from '../option-parsers.js';
import { checkPluginNames, collect } from '../plugin-names.js';

/** Parsed options of `dantinox report`. */
interface ReportCliOptions {
  readonly out: string;
  readonly title?: string;
  readonly charts?: string[];
  readonly plugin?: string[];
  readonly verbose?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox report results/2026-01-31_14-05-09
  $ dantinox report results/laptop results/server --out comparison.html --title "laptop vs server"
  $ dantinox report results/run-a/results.jsonl            # a run that crashed: its JSONL stream

The report is one offline HTML file (Vega inlined, no network): environment of each run, a summary table,
every chart the data supports (interactive), and all rows. An existing file is replaced.
`;

/** Registers `dantinox report` on `program`. */
export function registerReportCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('report')
    .summary('write one HTML report for one or several runs')
    .description(
      'Writes a self-contained HTML report (environment, summary table, interactive charts, rows) for the given runs.',
    )
    .argument(
      '<runs...>',
      'run directories written by "dantinox bench", or their results.json / .jsonl / .csv files',
    )
    .option('-o, --out <file|dir>', 'HTML file to write (a directory gets report.html)', 'report.html')
    .option('--title <text>', 'page title (default: "dantinox report: <runs>")')
    .option('--charts <list>', 'charts to include (default: every chart the data supports)', parseNameList)
    .option('--plugin <module>', 'ES module whose default export registers charts (repeatable)', collect)
    .option('--verbose', 'say why charts were skipped, and stack traces on errors')
    .addHelpText('after', EXAMPLES)
    .action(async (inputs: string[], options: ReportCliOptions) => {
      ctx.exitCode = await runReport(inputs, options, ctx);
    });
}

async function runReport(
  inputs: readonly string[],
  options: ReportCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const { charts } = await loadPlugins(options.plugin ?? [], io.cwd);
  const visualizer = new Visualizer({ registry: charts });
  if (options.charts !== undefined) checkPluginNames('chart', options.charts, visualizer.availableCharts());
  const runs: LoadedRun[] = [];
  for (const input of inputs) runs.push(...(await loadRuns(input, io.cwd)));
  for (const { note } of runs) if (note !== undefined) io.stderr.write(`note: ${note}\n`);
  const out = isAbsolute(options.out) ? options.out : resolve(io.cwd, options.out);
  const path = extname(out).toLowerCase() === '.html' ? out : new RunDirectory(out).reportPath;
  const results = await visualizer.report(
    runs.map((r) => ({
      name: r.name,
      rows: r.rows,
      ...(r.chartRows === undefined ? {} : { chartRows: r.chartRows }),
      ...(r.environment === undefined ? {} : { environment: r.environment }),
    })),
    {
      path,
      title: options.title ?? `dantinox report: ${runs.map((r) => r.name).join(', ')}`,
      overwrite: true,
      generatedAt: io.now().toISOString(),
      ...(options.charts === undefined ? {} : { charts: options.charts }),
    },
  );
  const code = reportRenderResults(
    results,
    { ...io, stdout: { write: () => true } },
    {
      explicit: options.charts !== undefined,
      verbose: options.verbose === true,
      cwd: io.cwd,
      requireChart: false,
    },
  );
  io.stdout.write(`${relative(io.cwd, path)}\n`);
  return code;
}
