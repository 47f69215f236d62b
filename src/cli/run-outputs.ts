/**
 * The charts and HTML report `dantinox bench` writes next to its results.
 *
 * @packageDocumentation
 */
import { relative } from 'node:path';
import type { Logger, RunDirectory, SuiteReport } from '../benchmarking/index.js';
import { messages } from '../messages.js';
import { type ChartRegistry, Visualizer } from '../visualization/index.js';
import { safeRunName } from './chart-output.js';

/** Options of {@link writeRunOutputs}. */
export interface RunOutputOptions {
  /** Write `charts/` and `report.html`. */
  readonly charts: boolean;
  /** Where notes about skipped charts go. */
  readonly logger: Logger;
  /** Charts to draw: every one the data supports. */
  readonly registry: ChartRegistry;
}

/** What {@link writeRunOutputs} wrote. */
export interface RunOutputs {
  /** Every file of the run directory, relative to it, results first. */
  readonly files: string[];
  /** Charts that threw while rendering (a bug or a broken install, unlike charts skipped for lack of data). */
  readonly failedCharts: string[];
}

/**
 * Renders every chart the report's data supports into the run directory's `charts/` (SVG and PNG) and writes its
 * `report.html`. Charts the data cannot feed (e.g. a training curve from a benchmark) are skipped with a debug
 * note; charts that fail are logged as warnings and listed. The files listed start with the results files present.
 */
export async function writeRunOutputs(
  report: SuiteReport,
  runDir: RunDirectory,
  options: RunOutputOptions,
): Promise<RunOutputs> {
  const written = runDir.resultFiles();
  const failedCharts: string[] = [];
  if (!options.charts) return { files: written, failedCharts };
  const rows = report.toRows();
  const visualizer = new Visualizer({ registry: options.registry });
  const model = typeof report.modelMeta['model'] === 'string' ? report.modelMeta['model'] : 'run';
  const results = await visualizer.render(rows, {
    outDir: runDir.chartsDir,
    formats: ['svg', 'png'],
    runName: safeRunName(model),
    overwrite: true,
  });
  for (const [chart, result] of Object.entries(results)) {
    if (result.status === 'rendered')
      written.push(...Object.values(result.paths).map((p) => relative(runDir.path, p)));
    else {
      if (result.status === 'failed') failedCharts.push(chart);
      options.logger.log(
        result.status === 'failed' ? 'warn' : 'debug',
        messages.chartNotDrawn(chart, result.status, result.reason),
      );
    }
  }
  await visualizer.report(
    [
      {
        name: report.runId ?? model,
        rows,
        ...(report.environment === undefined ? {} : { environment: { ...report.environment } }),
      },
    ],
    { path: runDir.reportPath, title: `dantinox bench: ${model}`, overwrite: true },
  );
  written.push(relative(runDir.path, runDir.reportPath));
  return { files: written, failedCharts };
}
