/**
 * Recording a finished run in a results history, and comparing it with the previous run of the same model on the
 * same machine.
 *
 * @packageDocumentation
 */
import { isAbsolute, resolve } from 'node:path';
import { compareReports, type ReportComparison } from '../benchmarking/compare/compare-reports.js';
import { ResultsHistory } from '../benchmarking/history/results-history.js';
import type { SuiteReport } from '../benchmarking/report.js';
import { gitInfo } from './git-info.js';

/** Where and how a run is recorded (`--history`, `--compare-last`). */
export type HistoryOptions = {
  /** DuckDB file to append the run to (relative paths against `cwd`); absent: nothing is recorded. */
  readonly history?: string;
  /** Compare the run with the previous one of the same model and machine in the history. */
  readonly compareLast?: boolean;
};

/** What {@link recordHistory} did. */
export type HistoryRecord =
  | { readonly status: 'not-recorded' }
  | { readonly status: 'recorded'; readonly runId: string; readonly path: string }
  | {
      readonly status: 'compared';
      readonly runId: string;
      readonly path: string;
      readonly comparison: ReportComparison;
    }
  | { readonly status: 'no-previous-run'; readonly runId: string; readonly path: string };

/**
 * Appends `report` to the history file (with the git commit and branch of `cwd`) and, with `compareLast`, compares
 * it with the previous run of the same model on the same machine.
 *
 * @throws the errors of {@link ResultsHistory.open} and {@link ResultsHistory.add}.
 */
export async function recordHistory(
  report: SuiteReport,
  options: HistoryOptions,
  cwd: string,
): Promise<HistoryRecord> {
  if (options.history === undefined) return { status: 'not-recorded' };
  const path = isAbsolute(options.history) ? options.history : resolve(cwd, options.history);
  const history = await ResultsHistory.open(path);
  try {
    await history.add(report, gitInfo(cwd));
    const recorded = { runId: report.runId ?? '', path: options.history };
    if (options.compareLast !== true || report.runId === undefined)
      return { status: 'recorded', ...recorded };
    const previous = await history.previousRun(report.runId);
    const baseline = previous === undefined ? undefined : await history.report(previous);
    if (previous === undefined || baseline === undefined) return { status: 'no-previous-run', ...recorded };
    return {
      status: 'compared',
      ...recorded,
      comparison: compareReports(baseline, report, { baselineLabel: previous }),
    };
  } finally {
    history.close();
  }
}
