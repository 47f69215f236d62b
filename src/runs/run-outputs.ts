/**
 * The charts and HTML report `dantinox bench` (and `merge`) write next to their results.
 *
 * @packageDocumentation
 */
import { relative } from 'node:path';
import type { Logger, RunDirectory, SuiteReport } from '../benchmarking/index.js';
import type { MatrixReport } from '../benchmarking/matrix/matrix-report.js';
import { noiseWarningLines, noiseWarnings } from '../benchmarking/noise-warnings.js';
import { messages } from '../messages.js';
import { type RequestLine, readRequestLines } from '../serving/index.js';
import {
  type ChartRegistry,
  type ChartRow,
  chartRowsOf,
  type ReportRun,
  Visualizer,
} from '../visualization/index.js';
import { chartRowsField } from './serving-chart-rows.js';

/** A file-name-safe version of `name` (letters, digits, `.`, `_`, `-`). */
export function safeRunName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return safe === '' ? 'run' : safe;
}

/** Options of {@link writeRunOutputs}. */
export interface RunOutputOptions {
  /** Write `charts/` and `report.html`. */
  readonly charts: boolean;
  /** Where notes about skipped charts go. */
  readonly logger: Logger;
  /** The charts to draw (the built-ins plus `--plugin` charts). */
  readonly registry: ChartRegistry;
  /** The command whose run it is, for report.html's title (`dantinox <command>: <model>`); `bench` when absent. */
  readonly command?: 'bench' | 'load';
}

/** What {@link writeRunOutputs} wrote. */
export interface RunOutputs {
  /** Every file of the run directory, relative to it, results first. */
  readonly files: string[];
  /** Charts that threw while rendering (a bug or a broken install, unlike charts skipped for lack of data). */
  readonly failedCharts: string[];
}

/** What {@link writeChartsAndReport} draws: the rows of every chart, and the runs the report lists. */
export interface ChartsInput {
  /** Rows every chart is drawn from (one series per model or variant). */
  readonly rows: readonly ChartRow[];
  /** The runs, each with its rows and environment (one per variant of a matrix). */
  readonly runs: readonly ReportRun[];
  /** Prefix of the chart files (`<runName>-<chart>.svg`). */
  readonly runName: string;
  /** Title of report.html. */
  readonly title: string;
  /** The suite reports behind the rows: their noise warnings make report.html's banner. */
  readonly reports: readonly SuiteReport[];
}

/**
 * Renders every chart the rows support into the run directory's `charts/` (SVG and PNG) and writes its
 * `report.html`. Charts the data cannot feed (e.g. a training curve from a benchmark) are skipped with a debug
 * note; charts that fail are logged as warnings and listed. Returns the files written, relative to the directory.
 */
export async function writeChartsAndReport(
  input: ChartsInput,
  runDir: RunDirectory,
  options: Pick<RunOutputOptions, 'logger' | 'registry'>,
): Promise<RunOutputs> {
  const written: string[] = [];
  const failedCharts: string[] = [];
  const visualizer = new Visualizer({ registry: options.registry });
  const results = await visualizer.render(input.rows, {
    outDir: runDir.chartsDir,
    formats: ['svg', 'png'],
    runName: safeRunName(input.runName),
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
  await visualizer.report(input.runs, {
    path: runDir.reportPath,
    title: input.title,
    overwrite: true,
    warnings: noiseWarningLines(noiseWarnings(input.reports)),
  });
  written.push(relative(runDir.path, runDir.reportPath));
  return { files: written, failedCharts };
}

/**
 * Writes the charts and report.html of one suite run into its run directory (see {@link writeChartsAndReport});
 * the files listed start with the results files present.
 */
export async function writeRunOutputs(
  report: SuiteReport,
  runDir: RunDirectory,
  options: RunOutputOptions,
): Promise<RunOutputs> {
  const results = runDir.resultFiles();
  if (!options.charts) return { files: results, failedCharts: [] };
  const run = reportRun(report, readRequestLines(runDir.requestsJsonlPath));
  const model = modelName(report);
  const written = await writeChartsAndReport(
    {
      rows: chartRowsOf([run]),
      runs: [run],
      runName: model,
      title: `dantinox ${options.command ?? 'bench'}: ${model}`,
      reports: [report],
    },
    runDir,
    options,
  );
  return { files: [...results, ...written.files], failedCharts: written.failedCharts };
}

/** The model name of a report (`run` when it has none). */
function modelName(report: SuiteReport): string {
  return typeof report.modelMeta['model'] === 'string' ? report.modelMeta['model'] : 'run';
}

/** A report as one run of report.html: its run id (else model name), rows, chart rows (of `requests` too) and environment. */
function reportRun(report: SuiteReport, requests: readonly RequestLine[] = []): ReportRun {
  return {
    name: report.runId ?? modelName(report),
    rows: report.toRows(),
    ...chartRowsField(report, requests),
    ...(report.environment === undefined ? {} : { environment: { ...report.environment } }),
  };
}

/**
 * The charts and report.html at the top of a repeated run (`bench --repeat`): every run of every round, each its
 * own series (`run` column), as `dantinox report run-1 run-2 …` would draw them.
 */
export async function writeRepeatCharts(
  reports: readonly SuiteReport[],
  dir: RunDirectory,
  options: Pick<RunOutputOptions, 'logger' | 'registry'>,
  what: string,
): Promise<RunOutputs> {
  const runs = reports.map((report) => reportRun(report));
  const first = reports[0];
  return writeChartsAndReport(
    {
      rows: chartRowsOf(runs),
      runs,
      runName: first === undefined ? 'run' : modelName(first),
      title: `dantinox bench: ${what}`,
      reports,
    },
    dir,
    options,
  );
}

/** The combined charts and report.html of a matrix folder: one series per variant. */
export async function writeMatrixCharts(
  combined: MatrixReport,
  dir: RunDirectory,
  options: Pick<RunOutputOptions, 'logger' | 'registry'>,
  what: string,
): Promise<RunOutputs> {
  // Each variant's rows only charts read (its per-operator table), with its variant column.
  const runs = combined.toRuns().map((run, i) => {
    const extra = (chartRowsField(combined.variants[i]?.report as SuiteReport).chartRows ?? []).map((r) => ({
      variant: run.name,
      ...r,
    }));
    return extra.length === 0 ? run : { ...run, chartRows: extra };
  });
  return writeChartsAndReport(
    {
      rows: [...combined.toRows(), ...runs.flatMap((r) => ('chartRows' in r ? r.chartRows : []))],
      runs,
      runName: 'matrix',
      title: `dantinox bench: ${what}`,
      reports: combined.variants.map((v) => v.report),
    },
    dir,
    options,
  );
}
