/**
 * Reading one run as a {@link SuiteReport} for `compare` and `history`: a run directory or a results file,
 * refusing files that hold no results.
 *
 * @packageDocumentation
 */
import { RunDirectory, SuiteReport } from '../benchmarking/index.js';
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
