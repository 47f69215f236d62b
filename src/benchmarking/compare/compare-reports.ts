/**
 * `compareReports`: baseline runs and candidate runs side by side, metric by metric. The statistical unit is the
 * run: each metric's per-run values are tested (a t-test on them with several runs per side; a noise floor or
 * the spread of earlier runs with one run per side), never the pooled per-call samples, which share their run's
 * machine state. Gives a relative change, its interval, a verdict, the method that decided it, and when the runs
 * cannot decide, how many runs per side would. Pure: no I/O, no clock, seeded randomness.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import {
  bootstrapRelativeChange,
  type Interval,
  mannWhitneyU,
  type RunSpread,
  runSpreadOf,
  type SortedStatistic,
  sortedMean,
} from '../../profiling/index.js';
import { Rng } from '../../rng.js';
import { describeMetric } from '../metric-schema.js';
import type { SuiteReport } from '../report.js';
import type { BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from '../task.js';
import { LATENCY_METRICS } from '../tasks/latency-task.js';
import { PERPLEXITY_METRICS } from '../tasks/perplexity-task.js';
import { THROUGHPUT_METRICS } from '../tasks/throughput-task.js';
import {
  formatDifferences,
  type IdentityDifference,
  identityDifferences,
  variantIdentity,
} from '../variant-identity.js';
import { CELL_METRICS, cellSampleStatistic } from './cell-metrics.js';
import { fdrRejected } from './familywise.js';
import {
  type CallEvidence,
  type ComparisonMethod,
  type Judgement,
  judgeMetric,
  METHOD_DESCRIPTIONS,
  VERDICTS,
  type Verdict,
} from './judge-metric.js';

export {
  type CallEvidence,
  type ComparisonMethod,
  type DecidedJudgement,
  type InconclusiveJudgement,
  type JudgeInput,
  type Judgement,
  type JudgeSettings,
  judgeMetric,
  METHOD_DESCRIPTIONS,
  METHOD_LABELS,
  VERDICTS,
  type Verdict,
} from './judge-metric.js';

/** Options of {@link compareReports}. */
export interface CompareOptions {
  /**
   * Smallest relative change (a fraction: 0.05 = 5%) that counts as an improvement or a regression, and the
   * change the runs-per-side estimate aims to detect. Below it a significant change is `within noise`.
   * @default 0.05
   */
  readonly threshold?: number;
  /** Significance level of the tests. @default 0.05 */
  readonly alpha?: number;
  /** Coverage of the intervals of the change. @default 0.95 */
  readonly confidence?: number;
  /** Probability of detecting a change of `threshold` that the runs-per-side estimate aims at. @default 0.8 */
  readonly power?: number;
  /**
   * Noise floor of one run per side, a fraction (0.03 = 3%): the largest relative change two single runs of
   * the same code show. With one run per side a metric is significant only when |change| exceeds it; without it
   * (and without `earlierRuns`) every judged metric of a one-run comparison is `inconclusive`. Ignored when a
   * side has several runs: their spread decides. Takes precedence over `earlierRuns`.
   */
  readonly noiseFloor?: number;
  /**
   * Earlier runs of the baseline's variant on the same machine (e.g. from a results history, oldest first): the
   * spread of each metric over them (SD of the logs, ≥ 2 runs) is the run-to-run noise a one-run-per-side
   * comparison is tested against (method `earlier-runs`; the noise floor it implies is reported). Must measure
   * the same model, engine, threads and dtype as the baseline.
   */
  readonly earlierRuns?: readonly SuiteReport[];
  /** Bootstrap resamples of the per-call interval (one run per side with a noise floor). @default 2000 */
  readonly resamples?: number;
  /** Seed of that bootstrap: the same seed gives the same intervals. @default 0 */
  readonly seed?: number;
  /**
   * Compare runs of different variants (another model, weights, dtype or quantization plan, engine, threads or
   * machine: see {@link variantIdentity}) instead of throwing; the comparison lists the differences. @default false
   */
  readonly allowDifferent?: boolean;
  /** Name of the baseline in reports. @default its run id (and the number of runs), else `baseline` */
  readonly baselineLabel?: string;
  /** Name of the candidate in reports. @default its run id (and the number of runs), else `candidate` */
  readonly candidateLabel?: string;
}

/** Fields of a {@link MetricComparison} whatever its verdict. */
interface MetricComparisonBase {
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
  /** The baseline's value: the run's value, or the geometric mean over its runs (arithmetic if a value is ≤ 0). */
  readonly baseline: number;
  /** The candidate's value, like `baseline`. */
  readonly candidate: number;
  /** Relative change `candidate / baseline − 1` (0.05 = +5%); 0 when both are equal, ±∞ from a zero baseline. */
  readonly change: number;
  /** Interval of `change` from the method (t interval, or change ± noise floor); `[NaN, NaN]` when none. */
  readonly changeCi: Interval;
  /** Two-sided p-value of the method's test; `NaN` when it has none. */
  readonly pValue: number;
  /** The method that decided the verdict. */
  readonly method: ComparisonMethod;
  /** Runs with a value of this metric, `[baseline, candidate]`. */
  readonly runs: readonly [number, number];
  /** The noise floor used (given, or learned from earlier runs), a fraction; `null` when none. */
  readonly noiseFloor: number | null;
  /** Per-call samples of the first run of each side behind the metric, `[baseline, candidate]`; `null` without. */
  readonly samples: readonly [number, number] | null;
  /** Where the per-call samples came from when the metric is a task metric equal to a cell metric (`cell/metric`). */
  readonly samplesFrom: string | null;
}

/** A metric the runs decided, or one that is not judged. */
export interface DecidedComparison extends MetricComparisonBase {
  /** The conclusion. */
  readonly verdict: Exclude<Verdict, 'inconclusive'>;
  /** Always `null`. */
  readonly runsNeeded: null;
}

/** A metric the runs could not decide: more runs per side are needed. */
export interface InconclusiveComparison extends MetricComparisonBase {
  /** The conclusion. */
  readonly verdict: 'inconclusive';
  /** Estimated runs per side to decide (formula: {@link InconclusiveJudgement.runsNeeded}); `null` when unknown. */
  readonly runsNeeded: number | null;
}

/** One metric of one task row (`cell` null) or of one measurement cell, compared: a union on `verdict`. */
export type MetricComparison = DecidedComparison | InconclusiveComparison;

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

/** One side of a comparison: one run or several repeated runs of the same variant. */
export interface ComparedRun {
  /** Display name. */
  readonly label: string;
  /** Run id of the first run, when known. */
  readonly runId: string | null;
  /** Run ids of every run of the side, in the order given (`null` when unknown). */
  readonly runIds: readonly (string | null)[];
  /** Number of runs. */
  readonly runs: number;
  /** Model identity and configuration columns of the first run. */
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
}

/** The result of {@link compareReports}: plain data, ready for JSON. */
export interface ReportComparison {
  /** The baseline side. */
  readonly baseline: ComparedRun;
  /** The candidate side. */
  readonly candidate: ComparedRun;
  /** Threshold used (fraction). */
  readonly threshold: number;
  /** Significance level used. */
  readonly alpha: number;
  /** Interval coverage used. */
  readonly confidence: number;
  /** Power the runs-per-side estimates aim at. */
  readonly power: number;
  /** The given noise floor (fraction), `null` when none. */
  readonly noiseFloor: number | null;
  /** Number of earlier runs given to learn the run-to-run spread from. */
  readonly earlierRuns: number;
  /** Bootstrap resamples (per-call interval with a noise floor). */
  readonly resamples: number;
  /** Bootstrap seed. */
  readonly seed: number;
  /** The methods that decided the rows, described (`; `-separated), e.g. Welch's t-test on per-run values. */
  readonly test: string;
  /** How the intervals are computed, named. */
  readonly interval: string;
  /** The methods that decided at least one row, in {@link ComparisonMethod} order. */
  readonly methods: readonly ComparisonMethod[];
  /** Variant identity fields that differ between the sides (empty unless `allowDifferent` let them through). */
  readonly variantDifferences: readonly IdentityDifference[];
  /** Compared metrics: task rows first, then cells, in the first baseline run's order. */
  readonly rows: readonly MetricComparison[];
  /** What could not be compared. */
  readonly unmatched: readonly UnmatchedEntry[];
  /** Number of rows per verdict. */
  readonly counts: Readonly<Record<Verdict, number>>;
}

/** How {@link compareReports} computes the per-call interval of one run per side with a noise floor. */
export const BOOTSTRAP_METHOD = 'percentile bootstrap of the relative change, both samples resampled';

/** How {@link compareReports} computes the intervals of the change, as printed in reports. */
export const INTERVAL_METHOD =
  't interval of the relative change from per-run values; change ± noise floor with one run per side';

/** The order methods are listed in. */
const METHOD_ORDER: readonly ComparisonMethod[] = ['welch', 'pooled', 'earlier-runs', 'noise-floor', 'none'];

interface Resolved {
  readonly threshold: number;
  readonly alpha: number;
  readonly confidence: number;
  readonly power: number;
  readonly noiseFloor: number | null;
  readonly resamples: number;
  readonly seed: number;
}

/** Per-call samples of a cell metric, and the per-call test of one run per side when it was needed. */
interface CallStats {
  readonly samples: readonly [number, number];
  readonly evidence?: CallEvidence;
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

const completed = (r: StatusOf): boolean => (r.status ?? 'completed') === 'completed';

/**
 * The per-call samples a cell metric is a statistic of: its own list in `metricSamples` (the metric is their
 * mean, e.g. `ttft_ms`), else the cell's per-call wall times when the metric is a statistic of them.
 */
function callSamplesOf(
  cell: CellRecord,
  metric: string,
): { key: string; samples: readonly number[]; statistic: SortedStatistic } | undefined {
  const own = cell.metricSamples?.[metric];
  if (own !== undefined && own.length > 0) return { key: metric, samples: own, statistic: sortedMean };
  const statistic = cellSampleStatistic(metric);
  const s = cell.samplesMs;
  if (statistic === undefined || s === undefined || s.length === 0) return undefined;
  return { key: 'samplesMs', samples: s, statistic };
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
  const power = options.power ?? 0.8;
  const noiseFloor = options.noiseFloor ?? null;
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 0;
  const bad = (name: string, value: number, allowed: string): never => {
    throw new DantinoxError('INVALID_OPTION', messages.invalidNumberOption(name, value, allowed));
  };
  if (!(threshold >= 0 && Number.isFinite(threshold))) bad('threshold', threshold, 'a fraction ≥ 0');
  if (!(alpha > 0 && alpha < 1)) bad('alpha', alpha, 'a number in (0, 1)');
  if (!(confidence > 0 && confidence < 1)) bad('confidence', confidence, 'a number in (0, 1)');
  if (!(power > 0 && power < 1)) bad('power', power, 'a number in (0, 1)');
  if (noiseFloor !== null && !(noiseFloor >= 0 && Number.isFinite(noiseFloor)))
    bad('noiseFloor', noiseFloor, 'a fraction ≥ 0');
  if (!(Number.isInteger(resamples) && resamples >= 1)) bad('resamples', resamples, 'a positive integer');
  if (!Number.isSafeInteger(seed)) bad('seed', seed, 'a safe integer');
  return { threshold, alpha, confidence, power, noiseFloor, resamples, seed };
}

/** Throws when runs that should repeat one variant differ in their variant identity (see {@link variantIdentity}). */
function checkRepeats(runs: readonly SuiteReport[], what: string): void {
  const identities = runs.map((r) => variantIdentity(r));
  for (const [i, later] of identities.entries())
    for (const earlier of identities.slice(0, i)) {
      const diff = identityDifferences(earlier, later);
      if (diff.length > 0)
        throw new DantinoxError(
          'INVALID_INPUT',
          messages.compareRunsNotRepeats(what, formatDifferences(diff)),
        );
    }
}

/** Every finite value of each metric in completed rows and cells of `runs`, keyed `task\0cell\0metric`. */
class ValueIndex {
  readonly #values = new Map<string, number[]>();

  constructor(runs: readonly SuiteReport[]) {
    for (const run of runs) {
      for (const r of run.results) {
        if (completed(r)) this.#add(r.task, null, r.metrics);
        for (const c of r.cells ?? []) if (completed(c)) this.#add(r.task, c.cell, c.metrics);
      }
    }
  }

  #add(task: string, cell: string | null, metrics: Readonly<Record<string, number>>): void {
    for (const [metric, v] of Object.entries(metrics)) {
      if (!Number.isFinite(v)) continue;
      const key = ValueIndex.key(task, cell, metric);
      const list = this.#values.get(key);
      if (list === undefined) this.#values.set(key, [v]);
      else list.push(v);
    }
  }

  static key(task: string, cell: string | null, metric: string): string {
    return `${task}\0${cell ?? ''}\0${metric}`;
  }

  values(task: string, cell: string | null, metric: string): readonly number[] {
    return this.#values.get(ValueIndex.key(task, cell, metric)) ?? [];
  }
}

class Comparer {
  readonly rows: MetricComparison[] = [];
  readonly unmatched: UnmatchedEntry[] = [];
  /** Per-call statistics per `task\0cell\0metric`, for linking task metrics to the cell they copy. */
  readonly #cellStats = new Map<string, CallStats>();
  readonly #base: SuiteReport;
  readonly #cand: SuiteReport;
  readonly #baseValues: ValueIndex;
  readonly #candValues: ValueIndex;
  readonly #earlier: ValueIndex | undefined;
  /** The per-call test is only needed with one run per side and a noise floor. */
  readonly #needCallTest: boolean;

  constructor(
    readonly baseRuns: readonly SuiteReport[],
    readonly candRuns: readonly SuiteReport[],
    earlierRuns: readonly SuiteReport[],
    readonly opts: Resolved,
  ) {
    this.#base = baseRuns[0] as SuiteReport;
    this.#cand = candRuns[0] as SuiteReport;
    this.#baseValues = new ValueIndex(baseRuns);
    this.#candValues = new ValueIndex(candRuns);
    this.#earlier = earlierRuns.length >= 2 ? new ValueIndex(earlierRuns) : undefined;
    this.#needCallTest = baseRuns.length === 1 && candRuns.length === 1 && opts.noiseFloor !== null;
  }

  /** Descriptor lookups, memoised: patterns are matched by regular expressions. */
  readonly #descriptors = new Map<string, MetricDescriptor | undefined>();

  #descriptor(metric: string, cell: boolean): MetricDescriptor | undefined {
    const key = `${cell ? 'cell' : 'task'}\0${metric}`;
    if (this.#descriptors.has(key)) return this.#descriptors.get(key);
    // A cell metric the built-in cells do not have (a serving point's `itl_p99_ms`) is described by its run.
    const d = cell
      ? (describeMetric(metric, CELL_METRICS) ??
        describeMetric(metric, [...this.#base.descriptors, ...this.#cand.descriptors]))
      : describeMetric(metric, [
          ...this.#base.descriptors,
          ...this.#cand.descriptors,
          ...BUILTIN_TASK_METRICS,
        ]);
    this.#descriptors.set(key, d);
    return d;
  }

  #push(
    task: string,
    cell: string | null,
    metric: string,
    stats: CallStats | undefined,
    from: string | null,
  ) {
    const d = this.#descriptor(metric, cell !== null);
    const higherIsBetter = d?.higherIsBetter ?? null;
    const baseline = this.#baseValues.values(task, cell, metric);
    const candidate = this.#candValues.values(task, cell, metric);
    const earlier = this.#earlier?.values(task, cell, metric);
    const spread: RunSpread | undefined = earlier === undefined ? undefined : runSpreadOf(earlier);
    const judgement: Judgement = judgeMetric(
      {
        baseline,
        candidate,
        higherIsBetter,
        ...(stats?.evidence === undefined ? {} : { calls: stats.evidence }),
        ...(spread === undefined ? {} : { earlierSpread: spread }),
      },
      this.opts,
    );
    const common = {
      task,
      cell,
      metric,
      unit: d?.unit ?? null,
      higherIsBetter,
      baseline: judgement.baseline,
      candidate: judgement.candidate,
      change: judgement.change,
      changeCi: judgement.changeCi,
      pValue: judgement.pValue,
      method: judgement.method,
      runs: [baseline.length, candidate.length] as const,
      noiseFloor: judgement.noiseFloor,
      samples: stats?.samples ?? null,
      samplesFrom: from,
    };
    this.rows.push(
      judgement.verdict === 'inconclusive'
        ? { ...common, verdict: 'inconclusive', runsNeeded: judgement.runsNeeded }
        : { ...common, verdict: judgement.verdict, runsNeeded: null },
    );
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

  /** Compares two metric maps (the first run of each side); metrics missing or not finite on one side are listed. */
  #metrics(
    task: string,
    cell: string | null,
    b: Readonly<Record<string, number>>,
    c: Readonly<Record<string, number>>,
    statsFor: (metric: string, b: number, c: number) => [CallStats | undefined, string | null],
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
      this.#push(task, cell, metric, stats, from);
    }
    for (const metric of Object.keys(c)) {
      if (!(metric in b) && Number.isFinite(c[metric] as number)) {
        this.#unmatched('candidate', task, cell, metric, 'not in the baseline');
      }
    }
  }

  /**
   * The per-call statistics of one cell's metrics (first run of each side): sample counts, and with one run per
   * side and a noise floor the Mann–Whitney test and a seeded bootstrap interval per sample list.
   */
  #cellStatsFor(task: string, bc: CellRecord, cc: CellRecord): Map<string, CallStats> {
    const out = new Map<string, CallStats>();
    const groups = new Map<
      string,
      { bs: readonly number[]; cs: readonly number[]; metrics: string[]; stats: SortedStatistic[] }
    >();
    for (const metric of Object.keys(bc.metrics)) {
      if (!(metric in cc.metrics)) continue;
      const b = callSamplesOf(bc, metric);
      const c = callSamplesOf(cc, metric);
      if (b === undefined || c === undefined || b.key !== c.key) continue;
      const group = groups.get(b.key) ?? { bs: b.samples, cs: c.samples, metrics: [], stats: [] };
      group.metrics.push(metric);
      group.stats.push(b.statistic);
      groups.set(b.key, group);
    }
    for (const [key, g] of groups) {
      const samples = [g.bs.length, g.cs.length] as const;
      let cis: Interval[] | undefined;
      let pValue = Number.NaN;
      if (this.#needCallTest) {
        pValue = mannWhitneyU(g.bs, g.cs).pValue;
        const rng = new Rng(
          BigInt(this.opts.seed) * 2n ** 32n + BigInt(hash32(`${task}\0${bc.cell}\0${key}`)),
        );
        cis = bootstrapRelativeChange(g.bs, g.cs, g.stats, {
          rng,
          resamples: this.opts.resamples,
          confidence: this.opts.confidence,
        });
      }
      g.metrics.forEach((metric, i) => {
        const ci = cis?.[i];
        const stats: CallStats = ci === undefined ? { samples } : { samples, evidence: { pValue, ci } };
        out.set(metric, stats);
        this.#cellStats.set(`${task}\0${bc.cell}\0${metric}`, stats);
      });
    }
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
   * The per-call statistics of a task metric that is a copy of one cell metric in the first run of both sides
   * (e.g. `tps_seq128` is the `tps` of cell `seq=128,batch=1`): same cell, same metric, equal values.
   */
  #linkedStats(
    task: string,
    bv: number,
    cv: number,
    bCells: readonly CellRecord[],
    cCells: readonly CellRecord[],
  ): [CallStats | undefined, string | null] {
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
    const cByTask = new Map(this.#cand.results.map((r) => [r.task, r]));
    const bTasks = new Set(this.#base.results.map((r) => r.task));
    const cellRows: (() => void)[] = [];
    const taskRows: (() => void)[] = [];
    for (const br of this.#base.results) {
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
    for (const cr of this.#cand.results) {
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
    const bOk = completed(b);
    const cOk = completed(c);
    if (bOk && cOk) return true;
    const why = (r: StatusOf): string => `${r.status}${r.error ? `: ${r.error}` : ''}`;
    if (!bOk && !cOk) this.#unmatched('both', task, cell, null, `${why(b)} in both runs`);
    else if (bOk) this.#unmatched('baseline', task, cell, null, `${why(c)} in the candidate`);
    else this.#unmatched('candidate', task, cell, null, `${why(b)} in the baseline`);
    return false;
  }
}

function describeSide(
  runs: readonly SuiteReport[],
  label: string | undefined,
  fallback: string,
): ComparedRun {
  const first = runs[0] as SuiteReport;
  const id = first.runId ?? null;
  const name = id ?? fallback;
  return {
    label: label ?? (runs.length === 1 ? name : `${name} (${runs.length} runs)`),
    runId: id,
    runIds: runs.map((r) => r.runId ?? null),
    runs: runs.length,
    modelMeta: first.modelMeta,
  };
}

const asRuns = (x: SuiteReport | readonly SuiteReport[]): readonly SuiteReport[] =>
  Array.isArray(x) ? (x as readonly SuiteReport[]) : [x as SuiteReport];

/**
 * Compares candidate runs with baseline runs, metric by metric. Task rows are matched by task name, cells by task
 * and cell id (on the first run of each side); every metric present on both sides gets its per-run values from
 * every run of each side, and {@link judgeMetric} decides:
 *
 * - several runs on a side: a t-test on the per-run values (Welch's when both sides have ≥ 2 runs, pooled when
 *   one has a single run), on their logs when all are > 0, with the t interval of the ratio of geometric means;
 * - one run per side: the change must exceed `noiseFloor` (and, when both runs recorded per-call samples, the
 *   Mann–Whitney U test and a seeded bootstrap interval on them must agree), or, without a floor, a t-test with
 *   the spread of `earlierRuns`; with neither, every judged metric is `inconclusive`.
 *
 * No metric is ever judged by the threshold alone: without samples of runs (or a noise floor) it is
 * `inconclusive`, with the number of runs per side a decision would need. Per-call samples are the cell's
 * `samplesMs`, or its `metricSamples` list for metrics such as `ttft_ms` (the latency task's generations); a
 * task metric that copies a cell metric links to that cell's samples. Rows, cells and metrics present on one
 * side only are listed in `unmatched`.
 *
 * @param baseline - One run, or repeated runs of one variant.
 * @param candidate - One run, or repeated runs of one variant.
 *
 * @example
 * ```ts
 * const load = (dirs: string[]) => dirs.map((d) => RunDirectory.load(d));
 * const result = compareReports(load(['base-1', 'base-2', 'base-3']), load(['pr-1', 'pr-2', 'pr-3']));
 * if (result.counts.regressed > 0) process.exitCode = 1;
 * ```
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when a side has no run, when the sides are different
 * variants (see {@link variantIdentity}) and `allowDifferent` is not set, or when the runs of one side (or the
 * earlier runs) are not repeats of one variant; `INVALID_OPTION` for an out-of-range option.
 */
export function compareReports(
  baseline: SuiteReport | readonly SuiteReport[],
  candidate: SuiteReport | readonly SuiteReport[],
  options: CompareOptions = {},
): ReportComparison {
  const opts = resolve(options);
  const baseRuns = asRuns(baseline);
  const candRuns = asRuns(candidate);
  const earlierRuns = options.earlierRuns ?? [];
  if (baseRuns.length === 0 || candRuns.length === 0)
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.compareNoRuns(baseRuns.length === 0 ? 'baseline' : 'candidate'),
    );
  checkRepeats(baseRuns, 'baseline runs');
  checkRepeats(candRuns, 'candidate runs');
  if (earlierRuns.length > 0) checkRepeats([baseRuns[0] as SuiteReport, ...earlierRuns], 'earlier runs');
  const variantDifferences = identityDifferences(
    variantIdentity(baseRuns[0] as SuiteReport),
    variantIdentity(candRuns[0] as SuiteReport),
  );
  if (variantDifferences.length > 0 && options.allowDifferent !== true) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.compareDifferentVariants(formatDifferences(variantDifferences)),
    );
  }
  const comparer = new Comparer(baseRuns, candRuns, earlierRuns, opts);
  comparer.tasks();
  // Dozens of metrics are judged at once: the Benjamini–Hochberg correction keeps the gate's false-failure rate at α.
  const demoted = fdrRejected(comparer.rows, opts.alpha);
  const rows: MetricComparison[] = comparer.rows.map((row, i) =>
    demoted.has(i) ? { ...row, verdict: 'inconclusive', runsNeeded: null } : row,
  );
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const row of rows) counts[row.verdict]++;
  const used = new Set(comparer.rows.map((r) => r.method));
  const methods = METHOD_ORDER.filter((m) => used.has(m));
  return {
    baseline: describeSide(baseRuns, options.baselineLabel, 'baseline'),
    candidate: describeSide(candRuns, options.candidateLabel, 'candidate'),
    threshold: opts.threshold,
    alpha: opts.alpha,
    confidence: opts.confidence,
    power: opts.power,
    noiseFloor: opts.noiseFloor,
    earlierRuns: earlierRuns.length,
    resamples: opts.resamples,
    seed: opts.seed,
    test: [
      ...methods.map((m) => METHOD_DESCRIPTIONS[m]),
      `Benjamini–Hochberg correction across the ${rows.filter((r) => Number.isFinite(r.pValue)).length} tested metrics (α = ${opts.alpha})`,
    ].join('; '),
    interval: INTERVAL_METHOD,
    methods,
    variantDifferences,
    rows,
    unmatched: comparer.unmatched,
    counts,
  };
}
