/**
 * When timings cannot be trusted, say so: a busy machine, a clock that fell during the run, a cell whose slowest
 * calls are far from its typical one, two measurements of the same computation that disagree beyond their
 * spread (the same prefill shape timed by two tasks, or the same variant measured twice), and a cell whose own
 * self-checks failed (a load whose client and server disagree on token counts, or that missed its schedule).
 *
 * @packageDocumentation
 */
import { messages } from '../messages.js';
import { type SampleSummary, summarize } from '../profiling/statistics.js';
import { busyCalibration } from './calibration.js';
import { busyMachine, type Environment } from './environment.js';
import { type BenchmarkResult, type CellRecord, type MetaValue, SERVING_PHASE } from './task.js';
import { variantIdentity } from './variant-identity.js';

/** Ratio of p99 to median above which a cell's calls are flagged: its slowest calls took 3× a typical one. */
export const TAIL_RATIO_LIMIT = 3;

/** Relative gap between two measurements of one computation above which they are flagged (when also beyond spread). */
export const SIBLING_GAP_LIMIT = 0.25;

/** Standard errors the gap between two sibling means must exceed to be beyond their spread. */
export const SIBLING_SE_LIMIT = 4;

/** Fraction of its starting clock below which a CPU's clock at the end of a run is flagged. */
export const CLOCK_DROP_LIMIT = 0.9;

/** What the warnings need of a report (a {@link SuiteReport} has it). */
export interface NoiseSource {
  /** Id of the run. */
  readonly runId: string | undefined;
  /** One result per task, with their cells. */
  readonly results: readonly BenchmarkResult[];
  /** Model identity columns: which runs measured the same variant. */
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
  /** Where it was measured: load average, clock. */
  readonly environment: Environment | undefined;
}

/** One reason not to trust some timings, with the run it is about. */
export interface NoiseWarning {
  /**
   * `busy`: load above half the CPUs; `calibration`: the ceilings were measured on a busy machine; `clock`: the
   * clock fell; `tail`: p99 ≫ median; `siblings`: one computation timed twice disagrees; `validation`: a cell's
   * self-check failed (see `CellRecord.validation`).
   */
  readonly kind: 'busy' | 'calibration' | 'clock' | 'tail' | 'siblings' | 'validation';
  /** The run (variant) id; empty when unknown. */
  readonly variant: string;
  /** The sentence to show. */
  readonly message: string;
}

/** Per-call samples of one measure of a cell. */
interface Measure {
  readonly cell: CellRecord;
  readonly measure: string;
  readonly samples: readonly number[];
}

/** The per-call samples of a completed cell: its generation measures, else its call times. */
function measures(cell: CellRecord): Measure[] {
  if (cell.status !== 'completed') return [];
  const perCall = Object.entries(cell.metricSamples ?? {}).filter(([, xs]) => xs.length > 0);
  if (perCall.length > 0) return perCall.map(([measure, samples]) => ({ cell, measure, samples }));
  return (cell.samplesMs?.length ?? 0) > 0
    ? [{ cell, measure: cell.phase, samples: cell.samplesMs ?? [] }]
    : [];
}

/** The profiler's summary of a sample, or `undefined` for a damaged one (a value that is not a finite number). */
const summary = (xs: readonly number[]): SampleSummary | undefined =>
  xs.every(Number.isFinite) ? summarize(xs) : undefined;

/**
 * Cells whose p99 exceeds {@link TAIL_RATIO_LIMIT} × the median (at least 5 calls); not a {@link SERVING_PHASE} cell,
 * whose tail is the server's queueing it set out to measure.
 */
function tailWarnings(source: NoiseSource, variant: string): NoiseWarning[] {
  return source.results.flatMap((r) =>
    (r.cells ?? [])
      .filter((cell) => cell.phase !== SERVING_PHASE)
      .flatMap(measures)
      .flatMap(({ cell, measure, samples }) => {
        const s = samples.length < 5 ? undefined : summary(samples);
        if (s === undefined) return [];
        const ratio = s.p99 / s.p50;
        if (!(s.p50 > 0 && ratio > TAIL_RATIO_LIMIT)) return [];
        return [
          {
            kind: 'tail' as const,
            variant,
            message: messages.noisyCellTail(`${r.task} ${cell.cell} ${measure}`, ratio),
          },
        ];
      }),
  );
}

/** The computation a prefill cell times, whatever task timed it: one shape of one variant. */
function computationKey(source: NoiseSource, cell: CellRecord): string | undefined {
  if (cell.phase !== 'prefill' || cell.batch === undefined || cell.seqLen === undefined) return undefined;
  return JSON.stringify([variantIdentity(source), cell.batch, cell.seqLen]);
}

/**
 * Pairs of measurements of one computation — a prefill shape timed by two tasks, or by two runs of one variant —
 * whose means differ by more than {@link SIBLING_GAP_LIMIT} and by more than {@link SIBLING_SE_LIMIT} standard
 * errors: the machine's speed changed between them.
 */
function siblingWarnings(sources: readonly NoiseSource[]): NoiseWarning[] {
  const groups = new Map<string, { variant: string; where: string; calls: SampleSummary }[]>();
  for (const source of sources)
    for (const r of source.results)
      for (const cell of r.cells ?? []) {
        const key = computationKey(source, cell);
        const samples = cell.samplesMs ?? [];
        const calls = samples.length < 2 ? undefined : summary(samples);
        if (key === undefined || cell.status !== 'completed' || calls === undefined) continue;
        const variant = source.runId ?? '';
        const where = `${sources.length > 1 ? `${variant} ` : ''}${r.task} ${cell.cell}`;
        groups.set(key, [...(groups.get(key) ?? []), { variant, where, calls }]);
      }
  const out: NoiseWarning[] = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const byMean = [...group].sort((a, b) => a.calls.mean - b.calls.mean);
    const fast = byMean[0];
    const slow = byMean[byMean.length - 1];
    if (fast === undefined || slow === undefined) continue;
    const [mf, ms] = [fast.calls.mean, slow.calls.mean];
    const se = Math.sqrt(fast.calls.std ** 2 / fast.calls.n + slow.calls.std ** 2 / slow.calls.n);
    if (mf > 0 && ms / mf - 1 > SIBLING_GAP_LIMIT && ms - mf > SIBLING_SE_LIMIT * se)
      out.push({
        kind: 'siblings',
        variant: slow.variant,
        message: messages.siblingsDisagree(fast.where, mf, slow.where, ms),
      });
  }
  return out;
}

/** The failed self-checks of a run's cells, one warning each, in cell order. */
function validationWarnings(source: NoiseSource, variant: string): NoiseWarning[] {
  return source.results.flatMap((r) =>
    (r.cells ?? []).flatMap((cell) =>
      (cell.validation ?? [])
        .filter((c) => !c.ok)
        .map((c) => ({ kind: 'validation' as const, variant, message: c.message })),
    ),
  );
}

/** A run whose CPUs ended at less than {@link CLOCK_DROP_LIMIT} of the clock they started at. */
function clockWarning(environment: Environment | undefined): string | undefined {
  const mhz = environment?.cpuMhz;
  if (mhz?.end === undefined || mhz.start.length === 0 || mhz.end.length === 0) return undefined;
  const [start, end] = [summary(mhz.start)?.mean, summary(mhz.end)?.mean];
  if (start === undefined || end === undefined) return undefined;
  return end < CLOCK_DROP_LIMIT * start ? messages.clockFell(start, end) : undefined;
}

/**
 * Every reason not to trust the timings of `sources`, in run order: per run a busy machine, ceilings measured on a
 * busy machine, a falling clock, cells with an extreme tail and failed self-checks; then disagreements between measurements of one computation across all of them.
 */
export function noiseWarnings(sources: readonly NoiseSource[]): NoiseWarning[] {
  const perRun = sources.flatMap((source) => {
    const variant = source.runId ?? '';
    const busy = source.environment === undefined ? undefined : busyMachine(source.environment);
    const clock = clockWarning(source.environment);
    const calibration = source.environment?.calibration;
    const lowCeilings = calibration === undefined ? undefined : busyCalibration(calibration);
    return [
      ...(busy === undefined ? [] : [{ kind: 'busy' as const, variant, message: busy }]),
      ...(lowCeilings === undefined ? [] : [{ kind: 'calibration' as const, variant, message: lowCeilings }]),
      ...(clock === undefined ? [] : [{ kind: 'clock' as const, variant, message: clock }]),
      ...tailWarnings(source, variant),
      ...validationWarnings(source, variant),
    ];
  });
  return [...perRun, ...siblingWarnings(sources)];
}

/** One sentence per warning, prefixed by its run when the warnings are about several. */
export function noiseWarningLines(warnings: readonly NoiseWarning[]): string[] {
  const many = new Set(warnings.map((w) => w.variant)).size > 1;
  return warnings.map((w) => `${many && w.variant !== '' ? `${w.variant}: ` : ''}${w.message}`);
}

/** The warnings as lines under a `Warnings:` heading (see {@link noiseWarningLines}); empty when none. */
export function formatNoiseWarnings(warnings: readonly NoiseWarning[]): string {
  if (warnings.length === 0) return '';
  return [
    'Warnings (timings to read with care):',
    ...noiseWarningLines(warnings).map((l) => `  - ${l}`),
  ].join('\n');
}
