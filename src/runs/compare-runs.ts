/**
 * `compareRuns`: sides of runs given as paths — runs, folders of repeated runs, matrix folders — loaded, named and
 * compared: every candidate side with the baseline side, a matrix variant by variant (matched by id, each a whole
 * variant identity), with one run per side the noise learned from the baseline's earlier runs in a results history.
 * What `dantinox compare` runs.
 *
 * @packageDocumentation
 */
import { isAbsolute, join, resolve } from 'node:path';
import {
  type CompareOptions,
  compareReports,
  type ReportComparison,
} from '../benchmarking/compare/compare-reports.js';
import { ResultsHistory } from '../benchmarking/history/results-history.js';
import { type NoiseWarning, noiseWarnings } from '../benchmarking/noise-warnings.js';
import type { SuiteReport } from '../benchmarking/report.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type LoadedReport, loadRunGroup } from './load-report.js';
import { EARLIER_RUNS } from './record-history.js';

/** One side as loaded: its runs, and the paths it was given as. */
interface LoadedSide {
  readonly runs: readonly LoadedReport[];
  readonly paths: readonly string[];
}

/** The name of one run: its id, else its folder's name. */
const runName = (r: LoadedReport): string => r.report.runId ?? RunDirectory.nameOf(r.path);

/**
 * The display name of a side: a run's name; a folder of runs' name; or the first and last of several runs. A matrix
 * side is named by its folder, with the runs per variant when it repeats the matrix.
 */
function sideName(side: LoadedSide): string {
  const { runs, paths } = side;
  const first = runs[0] as LoadedReport;
  const perVariant = runs.filter((r) => r.variant === first.variant).length;
  const folder =
    paths.length === 1 ? RunDirectory.nameOf(join(paths[0] as string, 'results.json')) : undefined;
  if (first.variant !== undefined && folder !== undefined)
    return perVariant === 1 ? folder : `${folder} (${perVariant} runs)`;
  if (runs.length === 1) return runName(first);
  const span = folder ?? `${runName(first)} … ${runName(runs.at(-1) as LoadedReport)}`;
  return `${span} (${runs.length} runs)`;
}

/** Display names of the sides, made unique with their paths when two sides share one. */
function sideLabels(sides: readonly LoadedSide[]): string[] {
  const names = sides.map(sideName);
  return names.map((n, i) =>
    names.indexOf(n) === i && names.lastIndexOf(n) === i ? n : `${n} (${sides[i]?.paths.join(' ')})`,
  );
}

/**
 * Options of {@link compareRuns}: those of `compareReports` but the labels and the earlier runs (read from
 * `history`), and where relative paths start.
 */
export type CompareRunsOptions = Omit<CompareOptions, 'baselineLabel' | 'candidateLabel' | 'earlierRuns'> & {
  /** Directory relative paths are resolved against. @default process.cwd() */
  readonly cwd?: string;
  /**
   * A results history (DuckDB file, relative to `cwd`): a variant compared one run per side without a
   * `noiseFloor` is tested against the spread of the baseline's earlier runs there — the up to
   * {@link EARLIER_RUNS} latest runs of its variant on its machine that started before it (at least 2), as
   * `bench --compare-last` does. @default none
   */
  readonly history?: string;
};

/** What {@link compareRuns} found. */
export interface RunsComparison {
  /** One comparison per candidate side (per variant for matrix folders). */
  readonly comparisons: readonly ReportComparison[];
  /** Things a person should know (a noise floor that did not decide, a variant one side lacks). */
  readonly notes: readonly string[];
  /**
   * Reasons not to trust the timings of some run of a side (busy machine, extreme tails, repeats that disagree;
   * see `noiseWarnings`), each side checked on its own.
   */
  readonly warnings: readonly NoiseWarning[];
}

/**
 * The earlier runs of each baseline in `history` that a one-run comparison learns its noise from (see
 * {@link CompareRunsOptions.history}), by baseline; a note for each baseline with fewer than 2.
 */
async function earlierRunsOf(
  baselines: readonly LoadedReport[],
  historyPath: string,
  notes: string[],
): Promise<Map<LoadedReport, SuiteReport[]>> {
  const out = new Map<LoadedReport, SuiteReport[]>();
  const history = await ResultsHistory.open(historyPath, { readOnly: true });
  try {
    for (const base of baselines) {
      const ids = await history.runsBefore(base.report, EARLIER_RUNS);
      const reports = (await Promise.all(ids.map((id) => history.report(id)))).filter(
        (r): r is SuiteReport => r !== undefined,
      );
      if (reports.length >= 2) out.set(base, reports.reverse());
      else notes.push(messages.historyTooFewEarlierRuns(runName(base), reports.length));
    }
  } finally {
    history.close();
  }
  return out;
}

/**
 * Loads the sides (the first is the baseline; each a list of paths) and compares every candidate side with it,
 * saying which runs' timings are not to be trusted.
 *
 * @throws {@link dantinox!DantinoxError} `IO` for runs or a history that cannot be read; `INVALID_INPUT` when no
 * variant is in common, and the errors of `compareReports` (different variants, runs of one side that are not
 * repeats).
 */
export async function compareRuns(
  sides: readonly (readonly string[])[],
  options: CompareRunsOptions = {},
): Promise<RunsComparison> {
  const { cwd = process.cwd(), history, ...compareOptions } = options;
  const loaded = sides.map(
    (paths): LoadedSide => ({ runs: paths.flatMap((p) => loadRunGroup(p, cwd)), paths }),
  );
  const labels = sideLabels(loaded);
  const [base, ...cands] = loaded as [LoadedSide, ...LoadedSide[]];
  // A folder read from its stream because its results.json was unreadable says so first.
  const notes: string[] = loaded.flatMap((side) => side.runs.flatMap((r) => r.note ?? []));
  // The floor only decides a comparison of one run per side.
  const floorUsed = base.runs.length === 1 && cands.some((c) => c.runs.length === 1);
  if (options.noiseFloor !== undefined && !floorUsed) notes.push(messages.noiseFloorUnused());
  const variants = [...new Set(base.runs.map((r) => r.variant ?? ''))];
  const ofVariant = (side: LoadedSide, variant: string) =>
    side.runs.filter((r) => (r.variant ?? '') === variant);
  // The history decides only a variant with one baseline run, compared with one candidate run, without a floor.
  const single = variants.flatMap((v) => {
    const runs = ofVariant(base, v);
    return runs.length === 1 && cands.some((c) => ofVariant(c, v).length === 1) ? runs : [];
  });
  let learned = new Map<LoadedReport, SuiteReport[]>();
  if (history !== undefined) {
    if (single.length === 0 || options.noiseFloor !== undefined)
      notes.push(messages.historyUnused(options.noiseFloor !== undefined));
    else learned = await earlierRunsOf(single, isAbsolute(history) ? history : resolve(cwd, history), notes);
  }
  const comparisons = cands.flatMap((c, i) =>
    variants.flatMap((variant) => {
      const candidateRuns = ofVariant(c, variant);
      if (candidateRuns.length === 0) {
        notes.push(messages.variantNotInCandidate(variant, labels[i + 1] as string));
        return [];
      }
      const suffix = variant === '' ? '' : ` · ${variant}`;
      const baseRuns = ofVariant(base, variant);
      const earlierRuns = candidateRuns.length === 1 ? learned.get(baseRuns[0] as LoadedReport) : undefined;
      return [
        compareReports(
          baseRuns.map((r) => r.report),
          candidateRuns.map((r) => r.report),
          {
            ...compareOptions,
            ...(earlierRuns === undefined ? {} : { earlierRuns }),
            baselineLabel: `${labels[0]}${suffix}`,
            candidateLabel: `${labels[i + 1]}${suffix}`,
          },
        ),
      ];
    }),
  );
  if (comparisons.length === 0) throw new DantinoxError('INVALID_INPUT', messages.noVariantInCommon());
  // Per side: a baseline and a candidate of one variant are meant to differ, repeats of one side are not.
  const warnings = loaded.flatMap((side) => noiseWarnings(side.runs.map((r) => r.report)));
  return { comparisons, notes, warnings };
}
