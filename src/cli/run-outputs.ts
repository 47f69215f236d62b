/**
 * The charts and HTML report `dantinox bench` writes next to its results.
 *
 * @packageDocumentation
 */
import { join, relative } from 'node:path';
import type { Logger, SuiteReport } from '../benchmarking/index.js';
import { Visualizer } from '../visualization/index.js';

/** Options of {@link writeRunOutputs}. */
export interface RunOutputOptions {
  /** Write `charts/` and `report.html`. */
  readonly charts: boolean;
  /** Where notes about skipped charts go. */
  readonly logger: Logger;
}

/** A file-name-safe version of `name` (letters, digits, `.`, `_`, `-`). */
export function safeRunName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return safe === '' ? 'run' : safe;
}

/** What {@link writeRunOutputs} wrote. */
export interface RunOutputs {
  /** Every file of the run directory, relative to it, results first. */
  readonly files: string[];
  /** Charts that threw while rendering (a bug or a broken install, unlike charts skipped for lack of data). */
  readonly failedCharts: string[];
}

/**
 * Renders every chart the report's data supports into `outDir/charts/` (SVG and PNG) and writes
 * `outDir/report.html`. Charts the data cannot feed (e.g. a training curve from a benchmark) are skipped
 * with a debug note; charts that fail are logged as warnings and listed.
 */
export async function writeRunOutputs(
  report: SuiteReport,
  outDir: string,
  options: RunOutputOptions,
): Promise<RunOutputs> {
  const written = ['results.csv', 'results.json', 'results.jsonl'];
  const failedCharts: string[] = [];
  if (!options.charts) return { files: written, failedCharts };
  const rows = report.toRows();
  const visualizer = new Visualizer();
  const model = typeof report.modelMeta['model'] === 'string' ? report.modelMeta['model'] : 'run';
  const results = await visualizer.render(rows, {
    outDir: join(outDir, 'charts'),
    formats: ['svg', 'png'],
    runName: safeRunName(model),
    overwrite: true,
  });
  for (const [chart, result] of Object.entries(results)) {
    if (result.status === 'rendered')
      written.push(...Object.values(result.paths).map((p) => relative(outDir, p)));
    else {
      if (result.status === 'failed') failedCharts.push(chart);
      options.logger.log(
        result.status === 'failed' ? 'warn' : 'debug',
        `chart ${chart} ${result.status}: ${result.reason}`,
      );
    }
  }
  const reportPath = join(outDir, 'report.html');
  await visualizer.report(
    [
      {
        name: report.runId ?? model,
        rows,
        ...(report.environment === undefined ? {} : { environment: { ...report.environment } }),
      },
    ],
    { path: reportPath, title: `dantinox bench: ${model}`, overwrite: true },
  );
  written.push('report.html');
  return { files: written, failedCharts };
}
