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
import { loadRunGroup } from './load-report.js';
import { timestampName } from './output-dir.js';

/** How many runs before the baseline `--compare-last` learns the run-to-run spread from. */
const EARLIER_RUNS = 5;

/** Where and how a run is recorded (`--history`, `--compare-last`). */
export type HistoryOptions = {
  /** DuckDB file to append the run to (relative paths against `cwd`); absent: nothing is recorded. */
  readonly history?: string;
  /** Compare the run (the runs of every round, with `repeat`) with earlier runs of the same variant and machine in the history. */
  readonly compareLast?: boolean;
};

/** What {@link recordHistory} did. */
export type HistoryRecord = HistoryNotRecorded | HistoryRecorded | HistoryCompared;

/** No history file was given: nothing recorded. */
export interface HistoryNotRecorded {
  /** `not-recorded`. */
  readonly status: 'not-recorded';
}

/** The runs were appended to the history file (and a comparison, when asked for, found no earlier run). */
export interface HistoryRecorded {
  /** `recorded`, or `no-previous-run` when a comparison was asked for and the history has no earlier run of it. */
  readonly status: 'recorded' | 'no-previous-run';
  /** The run ids recorded, oldest first. */
  readonly runIds: readonly string[];
  /** The history file, as given. */
  readonly path: string;
  /** With `no-previous-run`: the last run of the same model on this machine, another variant, and how it differs. */
  readonly nearest?: NearestRun;
}

/** The runs were appended and compared with earlier runs of the same variant on the same machine. */
export interface HistoryCompared {
  /** `compared`. */
  readonly status: 'compared';
  /** The run ids recorded, oldest first. */
  readonly runIds: readonly string[];
  /** The history file, as given. */
  readonly path: string;
  /** The comparison of the new runs with the earlier ones. */
  readonly comparison: ReportComparison;
}

/**
 * Appends runs of one variant (one run, or the repeated runs of `bench --repeat`, oldest first) to the history file
 * (with the git commit and branch of `cwd`) and, with `compareLast`, compares them with as many earlier runs of the
 * same variant on the same machine (the latest ones before the first new run): with one run per side, the up to five
 * runs before the baseline give the run-to-run spread that decides; with several runs on a side, their spread does.
 *
 * @throws the errors of {@link ResultsHistory.open} and {@link ResultsHistory.add}.
 */
export async function recordHistory(
  runs: SuiteReport | readonly SuiteReport[],
  options: HistoryOptions,
  cwd: string,
): Promise<HistoryRecord> {
  if (options.history === undefined) return { status: 'not-recorded' };
  const reports: readonly SuiteReport[] = runs instanceof SuiteReport ? [runs] : runs;
  const path = isAbsolute(options.history) ? options.history : resolve(cwd, options.history);
  const history = await ResultsHistory.open(path);
  try {
    const runIds: string[] = [];
    for (const report of reports) runIds.push((await history.add(report, { git: gitInfo(cwd) })).runId);
    const recorded = { runIds, path: options.history };
    const first = runIds[0];
    if (options.compareLast !== true || first === undefined) return { status: 'recorded', ...recorded };
    // The latest earlier runs of this variant are the baseline, as many as the new runs; with one run per side the
    // runs before the baseline give the run-to-run spread (a change is only called when it exceeds that spread).
    const previous = await history.previousRuns(first, reports.length + EARLIER_RUNS);
    const baselineIds = previous.slice(0, reports.length).reverse();
    if (baselineIds.length === 0) {
      const nearest = await history.nearestRun(first);
      return { status: 'no-previous-run', ...recorded, ...(nearest === undefined ? {} : { nearest }) };
    }
    const load = async (ids: readonly string[]) =>
      (await Promise.all(ids.map((id) => history.report(id)))).filter(
        (r): r is SuiteReport => r !== undefined,
      );
    const baseline = await load(baselineIds);
    const earlierRuns =
      baseline.length === 1 && reports.length === 1 ? await load(previous.slice(1, 1 + EARLIER_RUNS)) : [];
    return {
      status: 'compared',
      ...recorded,
      comparison: compareReports(baseline, reports, {
        baselineLabel:
          baselineIds.length === 1 ? (baselineIds[0] as string) : `${baselineIds.length} earlier runs`,
        ...(reports.length > 1 ? { candidateLabel: `these ${reports.length} runs` } : {}),
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

/** A run added by {@link addRunsToHistory}. */
export interface AddedRun {
  /** `added`, or `exists` when the history already held it. */
  readonly status: 'added' | 'exists';
  /** The id it is stored under. */
  readonly runId: string;
  /** The results file it was read from. */
  readonly path: string;
}

/** What {@link addRunsToHistory} did. */
export interface AddedRuns {
  /** Every run, in the order read. */
  readonly added: readonly AddedRun[];
  /** Lines for a person: a folder read from its stream because its results.json could not be read. */
  readonly notes: readonly string[];
}

/**
 * Appends the runs at `paths` (run folders or results files; a matrix folder gives each variant, under an id made
 * unique by the run's start time; a folder of repeated runs each run) to the history file `history` (relative to
 * `cwd`), with the git commit and branch of `cwd`: what `dantinox history add` does. Notes (a folder read from its
 * stream because its results.json could not be read) are returned, one line each.
 *
 * @throws the errors of `loadRunGroup`, {@link ResultsHistory.open} and {@link ResultsHistory.add}.
 */
export async function addRunsToHistory(
  paths: readonly string[],
  history: string,
  cwd: string = process.cwd(),
): Promise<AddedRuns> {
  const reports = paths
    .flatMap((p) => loadRunGroup(p, cwd))
    .map((loaded) =>
      loaded.variant === undefined
        ? loaded
        : {
            ...loaded,
            report: variantHistoryRun(
              loaded.report,
              new Date(loaded.report.environment?.timestamp ?? Date.now()),
            ),
          },
    );
  const notes = reports.flatMap((r) => (r.note === undefined ? [] : [r.note]));
  const file = await ResultsHistory.open(isAbsolute(history) ? history : resolve(cwd, history));
  try {
    const git = gitInfo(cwd);
    const added: AddedRun[] = [];
    for (const { report, path } of reports) {
      const outcome = await file.add(report, { git });
      added.push({ status: outcome.status, runId: outcome.runId, path });
    }
    return { added, notes };
  } finally {
    file.close();
  }
}
