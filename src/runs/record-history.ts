/**
 * Recording a finished run in a results history, and comparing it with the previous run of the same variant on the
 * same machine.
 *
 * @packageDocumentation
 */
import { isAbsolute, resolve } from 'node:path';
import { compareReports, type ReportComparison } from '../benchmarking/compare/compare-reports.js';
import { ResultsHistory } from '../benchmarking/history/results-history.js';
import { SuiteReport } from '../benchmarking/report.js';
import type { NearestRun } from '../benchmarking/variant-identity.js';
import { gitInfo } from './git-info.js';
import { timestampName } from './output-dir.js';

/** How many runs before the baseline `--compare-last` learns the run-to-run spread from. */
const EARLIER_RUNS = 5;

/** Where and how a run is recorded (`--history`, `--compare-last`). */
export type HistoryOptions = {
  /** DuckDB file to append the run to (relative paths against `cwd`); absent: nothing is recorded. */
  readonly history?: string;
  /** Compare the run with the previous one of the same model and machine in the history. */
  readonly compareLast?: boolean;
};

/** What {@link recordHistory} did. */
export type HistoryRecord = HistoryNotRecorded | HistoryRecorded | HistoryCompared;

/** No history file was given: nothing recorded. */
export interface HistoryNotRecorded {
  /** `not-recorded`. */
  readonly status: 'not-recorded';
}

/** The run was appended to the history file (and a comparison, when asked for, found no earlier run). */
export interface HistoryRecorded {
  /** `recorded`, or `no-previous-run` when a comparison was asked for and the history has no earlier run of it. */
  readonly status: 'recorded' | 'no-previous-run';
  /** The run id recorded. */
  readonly runId: string;
  /** The history file, as given. */
  readonly path: string;
  /** With `no-previous-run`: the last run of the same model on this machine, another variant, and how it differs. */
  readonly nearest?: NearestRun;
}

/** The run was appended and compared with the previous run of the same variant on the same machine. */
export interface HistoryCompared {
  /** `compared`. */
  readonly status: 'compared';
  /** The run id recorded. */
  readonly runId: string;
  /** The history file, as given. */
  readonly path: string;
  /** The comparison with the previous run. */
  readonly comparison: ReportComparison;
}

/**
 * Appends `report` to the history file (with the git commit and branch of `cwd`) and, with `compareLast`, compares
 * it with the previous run of the same variant on the same machine.
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
    await history.add(report, { git: gitInfo(cwd) });
    const recorded = { runId: report.runId ?? '', path: options.history };
    if (options.compareLast !== true || report.runId === undefined)
      return { status: 'recorded', ...recorded };
    // The last run of this variant is the baseline; the runs before it give the run-to-run spread (with one run
    // per side, a change is only called when it exceeds that spread).
    const [previous, ...before] = await history.previousRuns(report.runId, 1 + EARLIER_RUNS);
    const baseline = previous === undefined ? undefined : await history.report(previous);
    if (previous === undefined || baseline === undefined) {
      const nearest = await history.nearestRun(report.runId);
      return { status: 'no-previous-run', ...recorded, ...(nearest === undefined ? {} : { nearest }) };
    }
    const earlierRuns = (await Promise.all(before.map((id) => history.report(id)))).filter(
      (r): r is SuiteReport => r !== undefined,
    );
    return {
      status: 'compared',
      ...recorded,
      comparison: compareReports(baseline, report, {
        baselineLabel: previous,
        ...(earlierRuns.length >= 2 ? { earlierRuns } : {}),
      }),
    };
  } finally {
    history.close();
  }
}

/**
 * A matrix variant's report as the history records it: its run id is the variant id, the same in every run of the
 * matrix, so it gets the run's start time (`small-t2-2026-11-30_16-14-00`) to stay unique.
 */
export function variantHistoryRun(report: SuiteReport, startedAt: Date): SuiteReport {
  const runId = `${report.runId ?? 'variant'}-${timestampName(startedAt)}`;
  return new SuiteReport({
    results: report.results,
    modelMeta: { ...report.modelMeta, run_id: runId },
    totalTimeS: report.totalTimeS,
    ...(report.environment === undefined ? {} : { environment: report.environment }),
    runId,
    descriptors: report.descriptors,
  });
}
