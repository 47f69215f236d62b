/**
 * `compareReports`: a baseline and a candidate run side by side, metric by metric, with a relative change, a
 * bootstrap confidence interval of that change and a significance test on the raw per-call samples, and a
 * verdict. Pure: no I/O, no clock, seeded randomness.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import {
  bootstrapRelativeChange,
  type Interval,
  MANN_WHITNEY_METHOD,
  mannWhitneyU,
  type SortedStatistic,
} from '../../profiling/index.js';
import { Rng } from '../../rng.js';
import { describeMetric } from '../metric-schema.js';
import type { SuiteReport } from '../report.js';
import type { BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from '../task.js';
import { LATENCY_METRICS } from '../tasks/latency-task.js';
import { PERPLEXITY_METRICS } from '../tasks/perplexity-task.js';
import { THROUGHPUT_METRICS } from '../tasks/throughput-task.js';
import { CELL_METRICS, cellSampleStatistic } from './cell-metrics.js';

/**
 * What a comparison concludes about one metric:
 * - `improved` / `regressed`: the change is significant (the test rejects at `alpha` and the metric's interval
 *   excludes 0; or untestable, see {@link MetricComparison.pValue}) and larger than the threshold, in the good /
 *   bad direction of the metric;
 * - `within noise`: significant (or untestable) but not larger than the threshold;
 * - `no significant change`: the test on the samples does not reject "same distribution" at level `alpha`, or
 *   the interval of this metric's change contains 0;
 * - `not judged`: the metric has no better direction (a count, a spread) or is a single observation (the cold
 *   first call), so it never gates.
 */
export type Verdict = 'improved' | 'regressed' | 'within noise' | 'no significant change' | 'not judged';

/** Every {@link Verdict}, in the order reports list them. */
export const VERDICTS: readonly Verdict[] = [
  'regressed',
  'improved',
  'within noise',
  'no significant change',
  'not judged',
];

/** Options of {@link compareReports}. */
export interface CompareOptions {
  /**
   * Smallest relative change (a fraction: 0.05 = 5%) that counts as an improvement or a regression. Below it a
   * significant change is reported `within noise`. 5% by default: on shared or laptop CPUs, run-to-run drifts of
   * a few percent (frequency scaling, page placement) are common even when each run's samples are tight.
   * @default 0.05
   */
  readonly threshold?: number;
  /** Significance level of the Mann–Whitney U test. @default 0.05 */
  readonly alpha?: number;
  /** Coverage of the bootstrap interval of the change. @default 0.95 */
  readonly confidence?: number;
  /** Bootstrap resamples per cell. @default 2000 */
  readonly resamples?: number;
  /** Seed of the bootstrap: the same seed gives the same intervals. @default 0 */
  readonly seed?: number;
  /** Compare runs whose model identity differs (architecture, name) instead of throwing. @default false */
  readonly allowDifferentModels?: boolean;
  /** Name of the baseline in reports. @default its run id, else `baseline` */
  readonly baselineLabel?: string;
  /** Name of the candidate in reports. @default its run id, else `candidate` */
  readonly candidateLabel?: string;
}

/** One metric of one task row (`cell` null) or of one measurement cell, compared. */
export interface MetricComparison {
  /** Task name. */
  readonly task: string;
  /** Cell id, or `null` for the task's own metrics (the report row). */
  readonly cell: string | null;
  /** Metric key. */
  readonly metric: string;
  /** Unit, when a descriptor declares one. */
  readonly unit: string | null;
  /** Direction from the metric descriptor; `null` when neither direction is better. */
  readonly higherIsBetter: boolean | null;
  /** Value in the baseline. */
  readonly baseline: number;
  /** Value in the candidate. */
  readonly candidate: number;
  /** Relative change `candidate / baseline − 1` (0.05 = +5%); 0 when both are equal, ±∞ from a zero baseline. */
  readonly change: number;
  /** Percentile-bootstrap interval of `change` from the raw samples; `[NaN, NaN]` when unavailable. */
  readonly changeCi: Interval;
  /** Two-sided p-value of the test on the samples; `NaN` when no samples exist (then the threshold alone decides). */
  readonly pValue: number;
  /** Samples behind the test and interval, `[baseline, candidate]`; `null` without samples. */
  readonly samples: readonly [number, number] | null;
  /** Where the samples came from when the metric is a task metric equal to a cell metric (`cell/metric`). */
  readonly samplesFrom: string | null;
  /** The conclusion. */
  readonly verdict: Verdict;
}

/** A row, cell or metric present (or usable) on one side only: listed, never dropped silently. */
export interface UnmatchedEntry {
  /** The side that has it (`both` when it failed or was skipped in both runs). */
  readonly side: 'baseline' | 'candidate' | 'both';
  /** Task name. */
  readonly task: string;
  /** Cell id, or `null` for a task row. */
  readonly cell: string | null;
  /** Metric key, or `null` when the whole task/cell is unmatched. */
  readonly metric: string | null;
  /** Why it is not compared (missing on the other side, failed, skipped…). */
  readonly reason: string;
}

/** One side of a comparison. */
export interface ComparedRun {
  /** Display name. */
  readonly label: string;
  /** Run id, when known. */
  readonly runId: string | null;
  /** Model identity and configuration columns of the run. */
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
}

/** The result of {@link compareReports}: plain data, ready for JSON. */
export interface ReportComparison {
  /** The baseline run. */
  readonly baseline: ComparedRun;
  /** The candidate run. */
  readonly candidate: ComparedRun;
  /** Threshold used (fraction). */
  readonly threshold: number;
  /** Significance level used. */
  readonly alpha: number;
  /** Interval coverage used. */
  readonly confidence: number;
  /** Bootstrap resamples. */
  readonly resamples: number;
  /** Bootstrap seed. */
  readonly seed: number;
  /** The significance test, named. */
  readonly test: string;
  /** How the interval is computed, named. */
  readonly interval: string;
  /** Model identity columns that differ (empty when the same model is compared). */
  readonly modelDifferences: readonly string[];
  /** Compared metrics: task rows first, then cells, in the baseline's order. */
  readonly rows: readonly MetricComparison[];
  /** What could not be compared. */
  readonly unmatched: readonly UnmatchedEntry[];
  /** Number of rows per verdict. */
  readonly counts: Readonly<Record<Verdict, number>>;
}

/** Columns of a report's model metadata that identify the model (the rest is configuration, e.g. threads, dtype). */
export const MODEL_IDENTITY_KEYS: readonly string[] = [
  'model',
  'paradigm',
  'params',
  'dim',
  'num_blocks',
  'n_heads',
  'kv_heads',
  'vocab_size',
  'max_context',
  'attention',
  'ffn',
];

/** How {@link compareReports} computes intervals, as printed in reports. */
export const BOOTSTRAP_METHOD = 'percentile bootstrap of the relative change, both samples resampled';

interface Resolved {
  readonly threshold: number;
  readonly alpha: number;
  readonly confidence: number;
  readonly resamples: number;
  readonly seed: number;
}

/** Cell statistics keyed by metric: interval, p-value, sample counts. */
interface SampleStats {
  readonly ci: Interval;
  readonly pValue: number;
  readonly samples: readonly [number, number];
}

/** Descriptors of the built-in tasks' metrics: the fallback for reports that do not carry theirs (CSV files). */
const BUILTIN_TASK_METRICS: readonly MetricDescriptor[] = [
  ...THROUGHPUT_METRICS,
  ...LATENCY_METRICS,
  ...PERPLEXITY_METRICS,
];

/** What {@link Comparer} needs to know about a row or cell's outcome. */
interface StatusOf {
  readonly status?: string | undefined;
  readonly error?: string | undefined;
}

const NO_CI: Interval = [Number.NaN, Number.NaN];

/** The raw per-call samples of a cell, when the run recorded them. */
function samplesOf(cell: CellRecord): readonly number[] | undefined {
  const s = cell.samplesMs;
  return s !== undefined && s.length > 0 ? s : undefined;
}

function relativeChange(baseline: number, candidate: number): number {
  return baseline === candidate ? 0 : candidate / baseline - 1;
}

function verdictOf(
  change: number,
  ci: Interval,
  pValue: number,
  higherIsBetter: boolean | null,
  opts: Resolved,
): Verdict {
  if (higherIsBetter === null) return 'not judged';
  // Significant = the test rejects "same distribution" and this statistic's interval excludes no change.
  const ciHasZero = ci[0] <= 0 && ci[1] >= 0;
  if (!Number.isNaN(pValue) && (pValue >= opts.alpha || ciHasZero)) return 'no significant change';
  if (!(Math.abs(change) > opts.threshold)) return 'within noise';
  return higherIsBetter === change > 0 ? 'improved' : 'regressed';
}

/** FNV-1a of a string: a per-cell seed offset so that cells draw independent resamples in any order. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function resolve(options: CompareOptions): Resolved {
  const threshold = options.threshold ?? 0.05;
  const alpha = options.alpha ?? 0.05;
  const confidence = options.confidence ?? 0.95;
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 0;
  const bad = (name: string, value: number, allowed: string): never => {
    throw new DantinoxError('INVALID_OPTION', messages.invalidNumberOption(name, value, allowed));
  };
  if (!(threshold >= 0 && Number.isFinite(threshold))) bad('threshold', threshold, 'a fraction ≥ 0');
  if (!(alpha > 0 && alpha < 1)) bad('alpha', alpha, 'a number in (0, 1)');
  if (!(confidence > 0 && confidence < 1)) bad('confidence', confidence, 'a number in (0, 1)');
  if (!(Number.isInteger(resamples) && resamples >= 1)) bad('resamples', resamples, 'a positive integer');
  if (!Number.isSafeInteger(seed)) bad('seed', seed, 'a safe integer');
  return { threshold, alpha, confidence, resamples, seed };
}

/** The model identity columns whose values differ, as `key: a ≠ b`. */
function identityDifferences(a: SuiteReport, b: SuiteReport): string[] {
  const out: string[] = [];
  for (const key of MODEL_IDENTITY_KEYS) {
    const x = a.modelMeta[key];
    const y = b.modelMeta[key];
    if (x !== undefined && y !== undefined && x !== y) out.push(`${key}: ${String(x)} ≠ ${String(y)}`);
  }
  return out;
}

class Comparer {
  readonly rows: MetricComparison[] = [];
  readonly unmatched: UnmatchedEntry[] = [];
  /** Sample statistics per `task\0cell\0metric`, for linking task metrics to the cell they copy. */
  readonly #cellStats = new Map<string, SampleStats>();

  constructor(
    readonly base: SuiteReport,
    readonly cand: SuiteReport,
    readonly opts: Resolved,
  ) {}

  #descriptor(metric: string, cell: boolean): MetricDescriptor | undefined {
    return cell
      ? describeMetric(metric, CELL_METRICS)
      : describeMetric(metric, [...this.base.descriptors, ...this.cand.descriptors, ...BUILTIN_TASK_METRICS]);
  }

  #push(
    task: string,
    cell: string | null,
    metric: string,
    b: number,
    c: number,
    stats: SampleStats | undefined,
    samplesFrom: string | null,
  ): void {
    const d = this.#descriptor(metric, cell !== null);
    const higherIsBetter = d?.higherIsBetter ?? null;
    const change = relativeChange(b, c);
    const pValue = stats?.pValue ?? Number.NaN;
    const changeCi = stats?.ci ?? NO_CI;
    this.rows.push({
      task,
      cell,
      metric,
      unit: d?.unit ?? null,
      higherIsBetter,
      baseline: b,
      candidate: c,
      change,
      changeCi,
      pValue,
      samples: stats?.samples ?? null,
      samplesFrom,
      verdict: verdictOf(change, changeCi, pValue, higherIsBetter, this.opts),
    });
  }

  #unmatched(
    side: UnmatchedEntry['side'],
    task: string,
    cell: string | null,
    metric: string | null,
    reason: string,
  ): void {
    this.unmatched.push({ side, task, cell, metric, reason });
  }

  /** Compares two metric maps; metrics missing or not finite on one side are listed. */
  #metrics(
    task: string,
    cell: string | null,
    b: Readonly<Record<string, number>>,
    c: Readonly<Record<string, number>>,
    statsFor: (metric: string, b: number, c: number) => [SampleStats | undefined, string | null],
  ): void {
    for (const [metric, bv] of Object.entries(b)) {
      const cv = c[metric];
      if (cv === undefined) {
        if (Number.isFinite(bv)) this.#unmatched('baseline', task, cell, metric, 'not in the candidate');
        continue;
      }
      if (!Number.isFinite(bv) || !Number.isFinite(cv)) {
        // Not a number on both sides is a metric that does not apply to either: nothing to list.
        if (Number.isFinite(bv) || Number.isFinite(cv)) {
          const side = Number.isFinite(bv) ? 'baseline' : 'candidate';
          this.#unmatched(side, task, cell, metric, 'not a number in the other run');
        }
        continue;
      }
      const [stats, from] = statsFor(metric, bv, cv);
      this.#push(task, cell, metric, bv, cv, stats, from);
    }
    for (const metric of Object.keys(c)) {
      if (!(metric in b) && Number.isFinite(c[metric] as number)) {
        this.#unmatched('candidate', task, cell, metric, 'not in the baseline');
      }
    }
  }

  /** Tests and bootstraps one cell's samples once, for every metric that is a statistic of them. */
  #cellStatsFor(task: string, bc: CellRecord, cc: CellRecord): Map<string, SampleStats> {
    const out = new Map<string, SampleStats>();
    const bs = samplesOf(bc);
    const cs = samplesOf(cc);
    if (bs === undefined || cs === undefined) return out;
    const metrics: string[] = [];
    const statistics: SortedStatistic[] = [];
    for (const metric of Object.keys(bc.metrics)) {
      const stat = cellSampleStatistic(metric);
      if (stat !== undefined && metric in cc.metrics) {
        metrics.push(metric);
        statistics.push(stat);
      }
    }
    const { pValue } = mannWhitneyU(bs, cs);
    const rng = new Rng(BigInt(this.opts.seed) * 2n ** 32n + BigInt(hash32(`${task}\0${bc.cell}`)));
    const cis = bootstrapRelativeChange(bs, cs, statistics, {
      rng,
      resamples: this.opts.resamples,
      confidence: this.opts.confidence,
    });
    metrics.forEach((metric, i) => {
      const stats = { ci: cis[i] ?? NO_CI, pValue, samples: [bs.length, cs.length] as const };
      out.set(metric, stats);
      this.#cellStats.set(`${task}\0${bc.cell}\0${metric}`, stats);
    });
    return out;
  }

  cells(task: string, bCells: readonly CellRecord[], cCells: readonly CellRecord[]): void {
    const cById = new Map(cCells.map((c) => [c.cell, c]));
    const bIds = new Set(bCells.map((c) => c.cell));
    for (const bc of bCells) {
      const cc = cById.get(bc.cell);
      if (cc === undefined) {
        this.#unmatched('baseline', task, bc.cell, null, 'cell not in the candidate');
        continue;
      }
      if (!this.#completed(task, bc.cell, bc, cc)) continue;
      const stats = this.#cellStatsFor(task, bc, cc);
      this.#metrics(task, bc.cell, bc.metrics, cc.metrics, (m) => [stats.get(m), null]);
    }
    for (const cc of cCells) {
      if (!bIds.has(cc.cell)) this.#unmatched('candidate', task, cc.cell, null, 'cell not in the baseline');
    }
  }

  /**
   * The sample statistics of a task metric that is a copy of one cell metric on both sides (e.g. `tps_seq128`
   * is the `tps` of cell `seq=128,batch=1`): same cell, same metric, equal values in both runs.
   */
  #linkedStats(
    task: string,
    bv: number,
    cv: number,
    bCells: readonly CellRecord[],
    cCells: readonly CellRecord[],
  ): [SampleStats | undefined, string | null] {
    for (const bc of bCells) {
      const cc = cCells.find((c) => c.cell === bc.cell);
      if (cc === undefined) continue;
      for (const [m, v] of Object.entries(bc.metrics)) {
        if (v !== bv || cc.metrics[m] !== cv) continue;
        const stats = this.#cellStats.get(`${task}\0${bc.cell}\0${m}`);
        if (stats !== undefined) return [stats, `${bc.cell}/${m}`];
      }
    }
    return [undefined, null];
  }

  tasks(): void {
    const cByTask = new Map(this.cand.results.map((r) => [r.task, r]));
    const bTasks = new Set(this.base.results.map((r) => r.task));
    const cellRows: (() => void)[] = [];
    const taskRows: (() => void)[] = [];
    for (const br of this.base.results) {
      const cr = cByTask.get(br.task);
      if (cr === undefined) {
        this.#unmatched('baseline', br.task, null, null, 'task not in the candidate');
        continue;
      }
      const bCells = br.cells ?? [];
      const cCells = cr.cells ?? [];
      cellRows.push(() => this.cells(br.task, bCells, cCells));
      if (!this.#bothCompleted(br, cr)) continue;
      taskRows.push(() =>
        this.#metrics(br.task, null, br.metrics, cr.metrics, (_m, bv, cv) =>
          this.#linkedStats(br.task, bv, cv, bCells, cCells),
        ),
      );
    }
    for (const cr of this.cand.results) {
      if (!bTasks.has(cr.task)) this.#unmatched('candidate', cr.task, null, null, 'task not in the baseline');
    }
    // Cells first (their statistics are what task metrics link to), but task rows come first in the output.
    const before = this.rows.length;
    for (const run of cellRows) run();
    const cellPart = this.rows.splice(before);
    for (const run of taskRows) run();
    this.rows.push(...cellPart);
  }

  #bothCompleted(br: BenchmarkResult, cr: BenchmarkResult): boolean {
    return this.#completed(br.task, null, br, cr);
  }

  /** Whether both sides completed; otherwise lists the row (or cell) with the failure. */
  #completed(task: string, cell: string | null, b: StatusOf, c: StatusOf): boolean {
    const bOk = (b.status ?? 'completed') === 'completed';
    const cOk = (c.status ?? 'completed') === 'completed';
    if (bOk && cOk) return true;
    const why = (r: StatusOf): string => `${r.status}${r.error ? `: ${r.error}` : ''}`;
    if (!bOk && !cOk) this.#unmatched('both', task, cell, null, `${why(b)} in both runs`);
    else if (bOk) this.#unmatched('baseline', task, cell, null, `${why(c)} in the candidate`);
    else this.#unmatched('candidate', task, cell, null, `${why(b)} in the baseline`);
    return false;
  }
}

function describeRun(report: SuiteReport, label: string | undefined, fallback: string): ComparedRun {
  return {
    label: label ?? report.runId ?? fallback,
    runId: report.runId ?? null,
    modelMeta: report.modelMeta,
  };
}

/**
 * Compares a candidate run with a baseline run, metric by metric. Task rows are matched by task name, cells by
 * task and cell id; for every metric present on both sides it gives the relative change, and when both cells
 * carry their raw per-call samples (`CellRecord.samplesMs`) a {@link mannWhitneyU} test of the two samples and
 * a seeded {@link bootstrapRelativeChange} interval of the change. A task metric that copies a cell metric
 * (same value as that cell's metric in both runs) inherits that cell's test and interval. Without samples the
 * interval is unavailable (`NaN`) and the threshold alone decides, as asv does. The direction of "better" comes
 * from the metric descriptors. Rows, cells and metrics present on one side only are listed in `unmatched`.
 *
 * @example
 * ```ts
 * const result = compareReports(SuiteReport.load('main/results.json'), SuiteReport.load('pr/results.json'), {
 *   threshold: 0.05,
 * });
 * if (result.counts.regressed > 0) process.exitCode = 1;
 * ```
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_INPUT` when the runs measure different models (see
 * {@link MODEL_IDENTITY_KEYS}) and `allowDifferentModels` is not set, or `INVALID_OPTION` for an out-of-range
 * option.
 */
export function compareReports(
  baseline: SuiteReport,
  candidate: SuiteReport,
  options: CompareOptions = {},
): ReportComparison {
  const opts = resolve(options);
  const modelDifferences = identityDifferences(baseline, candidate);
  if (modelDifferences.length > 0 && options.allowDifferentModels !== true) {
    throw new DantinoxError('INVALID_INPUT', messages.compareDifferentModels(modelDifferences));
  }
  const comparer = new Comparer(baseline, candidate, opts);
  comparer.tasks();
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const row of comparer.rows) counts[row.verdict]++;
  return {
    baseline: describeRun(baseline, options.baselineLabel, 'baseline'),
    candidate: describeRun(candidate, options.candidateLabel, 'candidate'),
    ...opts,
    test: MANN_WHITNEY_METHOD,
    interval: BOOTSTRAP_METHOD,
    modelDifferences,
    rows: comparer.rows,
    unmatched: comparer.unmatched,
    counts,
  };
}
