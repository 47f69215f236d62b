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

/**
 * Renders every chart the report's data supports into `outDir/charts/` (SVG and PNG) and writes
 * `outDir/report.html`. Charts the data cannot feed (e.g. a training curve from a benchmark) are skipped
 * with a debug note. Returns every file of the run directory, relative to `outDir`, results first.
 */
export async function writeRunOutputs(
  report: SuiteReport,
  outDir: string,
  options: RunOutputOptions,
): Promise<string[]> {
  const written = ['results.csv', 'results.json', 'results.jsonl'];
  if (!options.charts) return written;
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
    else
      options.logger.log(
        result.status === 'failed' ? 'warn' : 'debug',
        `chart ${chart} ${result.status}: ${result.reason}`,
      );
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
  return written;
}
