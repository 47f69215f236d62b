/**
 * Reading runs as {@link SuiteReport}s for `compare` and `history`: a run directory or a results file, refusing
 * files that hold no results; and for `compare`, a folder of repeated runs (one run folder per repetition).
 *
 * @packageDocumentation
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RUN_FILES, RunDirectory, SuiteReport } from '../benchmarking/index.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** A run read from disk as a report, with the file it came from. */
export interface LoadedReport {
  /** The report. */
  readonly report: SuiteReport;
  /** The results file read. */
  readonly path: string;
}

/**
 * Loads the run at `path` (a directory written by `dantinox bench`, or its results.json / .jsonl / .csv).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it is missing, unreadable, not a report, or holds no results.
 */
export function loadReport(path: string, cwd: string): LoadedReport {
  const file = RunDirectory.locate(path, cwd);
  const report = SuiteReport.load(file);
  if (report.results.length === 0) throw new DantinoxError('IO', messages.reportHasNoResults(path));
  return { report, path: file };
}

const RESULT_FILES = [RUN_FILES.json, RUN_FILES.jsonl, RUN_FILES.csv];

const holdsResults = (dir: string): boolean => RESULT_FILES.some((f) => existsSync(join(dir, f)));

/** Names in natural order: `2` before `10`, `base-2` before `base-10`. */
const naturalOrder = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/**
 * The runs at `path`: one run (a run directory or a results file), or — for a directory that holds no results
 * file of its own but whose subdirectories are run directories — each of those runs, in natural name order
 * (`1`, `2`, …, `10`): a folder of repeated runs of one variant, such as `bench --out runs/base/$i` writes.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the path is missing, holds neither results nor run folders, or a run
 * cannot be read.
 */
export function loadRunGroup(path: string, cwd: string): LoadedReport[] {
  const full = resolve(cwd, path);
  if (existsSync(full) && statSync(full).isDirectory() && !holdsResults(full)) {
    const runs = readdirSync(full, { withFileTypes: true })
      .filter((e) => e.isDirectory() && holdsResults(join(full, e.name)))
      .map((e) => e.name)
      .sort(naturalOrder);
    if (runs.length === 0) throw new DantinoxError('IO', messages.runFolderEmpty(path));
    return runs.map((name) => loadReport(join(path, name), cwd));
  }
  return [loadReport(path, cwd)];
}
