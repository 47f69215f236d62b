/**
 * Reading saved results back for `plot` and `report`: a results file (`.csv`, `.json`, `.jsonl`) or a run
 * directory written by `dantinox bench`, located through {@link RunDirectory}.
 *
 * @packageDocumentation
 */
import { basename, dirname, join, resolve } from 'node:path';
import { type ReadRun, RUN_FILES, RunDirectory } from '../benchmarking/index.js';
import { isMatrixDirectory, readMatrixManifest } from '../benchmarking/matrix/matrix-manifest.js';
import { MatrixReport, readVariantRun } from '../benchmarking/matrix/matrix-report.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { readRequestLines } from '../serving/index.js';
import { type ChartRow, readChartData } from '../visualization/index.js';
import { chartRowsField } from './serving-chart-rows.js';

/** One run read from disk. */
export interface LoadedRun {
  /** Run name: the report's run id, else the directory or file name. */
  readonly name: string;
  /** Flat rows (one per task for a dantinox report). */
  readonly rows: readonly ChartRow[];
  /** Rows only the charts read (a load's sweep points and samples, see `servingChartRows`). */
  readonly chartRows?: readonly ChartRow[];
  /** The environment block, when the file has one (JSON and JSONL reports). */
  readonly environment?: Readonly<Record<string, unknown>>;
  /** The file the run was read from. */
  readonly path: string;
  /** Set when the folder's `results.json` could not be read and its stream was read instead: one line for stderr. */
  readonly note?: string;
}

/**
 * Reads the runs at `path`: one run for a results file or run directory, and one per variant for a matrix folder
 * written by `dantinox bench` or `dantinox merge` (each variant's rows carry a `variant` column).
 *
 * @throws the errors of {@link loadRun}; {@link DantinoxError} `IO` for an unreadable matrix.json.
 */
export async function loadRuns(path: string, cwd: string): Promise<LoadedRun[]> {
  const full = resolve(cwd, path);
  if (!isMatrixDirectory(full)) return [await loadRun(path, cwd)];
  const manifest = readMatrixManifest(full);
  const read = manifest.variants
    .filter((v) => manifest.assigned.includes(v.id))
    .flatMap((v) => {
      const run = readVariantRun(full, v.id);
      return run === undefined ? [] : [{ id: v.id, axes: v.axes, ...run }];
    });
  const runs = new MatrixReport(read).toRuns();
  return runs.map((run, i) => {
    const note = read[i]?.note;
    return { ...run, path: join(full, run.name), ...(note === undefined ? {} : { note }) };
  });
}

/**
 * Reads one run. A dantinox report (CSV, JSON or the JSONL stream) is read with `RunDirectory.read` (a folder whose
 * results.json cannot be read is read from its stream, with a `note`); any other CSV/JSON/JSONL table (e.g. a seed
 * CSV) is read as plain rows.
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a missing or unreadable file or one that holds no rows,
 *   `INVALID_INPUT` for an empty, binary or malformed one.
 */
export async function loadRun(path: string, cwd: string): Promise<LoadedRun> {
  const located = RunDirectory.locate(path, cwd);
  let read: ReadRun | undefined;
  try {
    read = RunDirectory.read(path, cwd);
  } catch (error) {
    // Not a dantinox report: still a table charts can read (unknown extensions fail there, clearly). An empty or
    // binary file (INVALID_INPUT) is no table either: say so as a results file.
    if (!(error instanceof DantinoxError) || error.code === 'INVALID_INPUT') throw error;
  }
  const file = read?.path ?? located;
  const fallbackName = RunDirectory.nameOf(file);
  const report = read?.report;
  const rows = report === undefined ? await readChartData(file) : report.toRows();
  if (rows.length === 0) throw new DantinoxError('IO', messages.reportHasNoResults(file));
  if (report === undefined) return { name: fallbackName, rows, path: file };
  // A run folder's results file: its load's requests (none for other runs) give the request timeline.
  const inRunFolder = ([RUN_FILES.json, RUN_FILES.jsonl, RUN_FILES.csv] as string[]).includes(basename(file));
  const requests = inRunFolder ? readRequestLines(new RunDirectory(dirname(file)).requestsJsonlPath) : [];
  return {
    name: report.runId ?? fallbackName,
    rows,
    ...chartRowsField(report, requests),
    ...(report.environment === undefined ? {} : { environment: { ...report.environment } }),
    path: file,
    ...(read?.note === undefined ? {} : { note: read.note }),
  };
}
