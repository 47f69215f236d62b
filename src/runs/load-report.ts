/**
 * Reading runs as {@link SuiteReport}s for `compare` and `history`: a run directory or a results file, refusing
 * files that hold no results; and for `compare`, a folder of repeated runs (one run folder per repetition).
 *
 * @packageDocumentation
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RUN_FILES, RunDirectory, type SuiteReport } from '../benchmarking/index.js';
import { isMatrixDirectory, readMatrixManifest } from '../benchmarking/matrix/matrix-manifest.js';
import { readVariantRun } from '../benchmarking/matrix/matrix-report.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** A run read from disk as a report, with the file it came from. */
export interface LoadedReport {
  /** The report. */
  readonly report: SuiteReport;
  /** The results file read. */
  readonly path: string;
  /** The variant id, for a run read from a matrix folder. */
  readonly variant?: string;
  /** Set when the folder's `results.json` could not be read and its stream was read instead: one line for stderr. */
  readonly note?: string;
}

/** The completed variants of a matrix folder, each as a run (its `variant` set), in the matrix's order. */
function loadMatrix(path: string, cwd: string): LoadedReport[] {
  const dir = resolve(cwd, path);
  const reports = readMatrixManifest(dir).assigned.flatMap((id) => {
    const run = readVariantRun(dir, id);
    return run === undefined || run.report.results.length === 0 ? [] : [{ ...run, variant: id }];
  });
  if (reports.length === 0) throw new DantinoxError('IO', messages.runFolderEmpty(path));
  return reports;
}

/**
 * Loads the run at `path` (a directory written by `dantinox bench`, or its results.json / .jsonl / .csv); a directory
 * whose results.json cannot be read is read from its stream, with a `note` (see `RunDirectory.read`).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it is missing, unreadable, not a report, or holds no results.
 */
export function loadReport(path: string, cwd: string): LoadedReport {
  const run = RunDirectory.read(path, cwd);
  if (run.report.results.length === 0) throw new DantinoxError('IO', messages.reportHasNoResults(path));
  return run;
}

const RESULT_FILES = [RUN_FILES.json, RUN_FILES.jsonl, RUN_FILES.csv];

const holdsResults = (dir: string): boolean => RESULT_FILES.some((f) => existsSync(join(dir, f)));

/** Names in natural order: `2` before `10`, `base-2` before `base-10`. */
const naturalOrder = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/**
 * The runs at `path`: one run (a run directory or a results file), or — for a directory that holds no results
 * file of its own but whose subdirectories are run directories — each of those runs, in natural name order
 * (`1`, `2`, …, `10`): a folder of repeated runs of one variant, such as `bench --out runs/base/$i` writes. A matrix
 * folder (or a folder of repeated matrix runs) gives each completed variant as a run with its `variant` id.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the path is missing, holds neither results nor run folders, or a run
 * cannot be read.
 */
export function loadRunGroup(path: string, cwd: string): LoadedReport[] {
  const full = resolve(cwd, path);
  if (isMatrixDirectory(full)) return loadMatrix(path, cwd);
  if (existsSync(full) && statSync(full).isDirectory() && !holdsResults(full)) {
    const runs = readdirSync(full, { withFileTypes: true })
      .filter((e) => e.isDirectory() && holdsResults(join(full, e.name)))
      .map((e) => e.name)
      .sort(naturalOrder);
    if (runs.length === 0) throw new DantinoxError('IO', messages.runFolderEmpty(path));
    return runs.flatMap((name) =>
      isMatrixDirectory(join(full, name))
        ? loadMatrix(join(path, name), cwd)
        : [loadReport(join(path, name), cwd)],
    );
  }
  return [loadReport(path, cwd)];
}
