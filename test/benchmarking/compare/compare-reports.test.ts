import { describe, expect, it } from 'vitest';
import {
  type CompareOptions,
  compareReports,
  METHOD_DESCRIPTIONS,
  type MetricComparison,
  SuiteReport,
} from '../../../src/benchmarking/index.js';
import type {
  BenchmarkResult,
  CellRecord,
  MetaValue,
  MetricDescriptor,
} from '../../../src/benchmarking/task.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';
import { bootstrapRelativeChange, sortedMean } from '../../../src/profiling/index.js';
import { Rng } from '../../../src/rng.js';
import { fakeRun, fakeRuns } from './fake-runs.js';

const row = (rows: readonly MetricComparison[], task: string, cell: string | null, metric: string) => {
  const r = rows.find((x) => x.task === task && x.cell === cell && x.metric === metric);
  if (r === undefined) throw new Error(`no row ${task}/${cell}/${metric}`);
  return r;
};

const judged = (rows: readonly MetricComparison[]) => rows.filter((r) => r.higherIsBetter !== null);

describe('compareReports: several runs per side', () => {
  const base = fakeRuns(5, 'main', { seed: 100, drift: 0.03, generation: true });
  const same = fakeRuns(5, 'same', { seed: 200, drift: 0.03, generation: true });
  const slower = fakeRuns(5, 'slow', { seed: 300, drift: 0.03, generation: true, slowdown: 1.1 });

  it('decides on per-run values with Welch: a 10% slowdown regresses every timing metric, TTFT/TPOT/E2E included', () => {
    const result = compareReports(base, slower);
    expect(result.methods).toEqual(['welch', 'none']);
    expect(result.baseline).toMatchObject({ label: 'main-1 (5 runs)', runs: 5, runId: 'main-1' });
    expect(result.baseline.runIds).toEqual(['main-1', 'main-2', 'main-3', 'main-4', 'main-5']);
    for (const metric of ['ttft_ms', 'tpot_ms', 'e2e_ms', 'decode_mean_ms']) {
      const r = row(result.rows, 'latency', null, metric);
      expect(r, metric).toMatchObject({ verdict: 'regressed', method: 'welch', runs: [5, 5] });
      expect(r.pValue).toBeLessThan(0.05);
      expect(r.changeCi[0]).toBeGreaterThan(0);
    }
    expect(row(result.rows, 'latency', 'generate@32+8', 'ttft_ms').verdict).toBe('regressed');
    // Throughput is higher-is-better: lower tok/s is the regression.
    const tps = row(result.rows, 'throughput', null, 'tps_seq32');
    expect(tps.change).toBeLessThan(-0.05);
    expect(tps.verdict).toBe('regressed');
    expect(tps.samplesFrom).toBe('seq=32,batch=1/tps');
    // Perplexity is the same in every run: deterministic, so a constant "no change" (p = 1).
    expect(row(result.rows, 'perplexity', null, 'perplexity')).toMatchObject({
      verdict: 'no significant change',
      pValue: 1,
      change: 0,
    });
    expect(row(result.rows, 'throughput', 'seq=16,batch=1', 'n').verdict).toBe('not judged');
  });

  it('the same code measured again: no metric regressed, and the undecided ones say how many runs they need', () => {
    const result = compareReports(base, same);
    expect(result.counts.regressed).toBe(0);
    expect(result.counts.improved).toBe(0);
    for (const r of judged(result.rows)) {
      expect(['no significant change', 'inconclusive', 'within noise']).toContain(r.verdict);
      if (r.verdict === 'inconclusive') expect(r.runsNeeded).toBeGreaterThan(5);
    }
  });

  it('a single run against several: pooled t-test', () => {
    const result = compareReports(base[0] as SuiteReport, slower);
    expect(row(result.rows, 'latency', null, 'e2e_ms')).toMatchObject({ method: 'pooled', runs: [1, 5] });
  });

  it('uses the runs that have a value: a cell that failed in one run is left out of that run', () => {
    const broken = fakeRun({ seed: 999, drift: 0.03, generation: true, runId: 'main-x' });
    const results = broken.results.map((r) =>
      r.task === 'latency'
        ? {
            ...r,
            cells: (r.cells ?? []).map((c) =>
              c.phase === 'generate' ? { ...c, status: 'failed' as const, error: 'OOM', metrics: {} } : c,
            ),
          }
        : r,
    );
    const partial = new SuiteReport({
      ...broken.toJSON(),
      results,
      descriptors: broken.descriptors,
      runId: 'main-x',
    });
    const result = compareReports([...base, partial], slower);
    expect(row(result.rows, 'latency', 'generate@32+8', 'ttft_ms').runs).toEqual([5, 5]);
    expect(row(result.rows, 'latency', 'decode@32', 'mean_ms').runs).toEqual([6, 5]);
  });

  it('refuses runs of different variants on one side, naming the difference', () => {
    const q4 = fakeRun({ seed: 7, runId: 'q4', modelMeta: { dtype: 'q4' } });
    const fp32 = fakeRun({ seed: 8, runId: 'fp32', modelMeta: { dtype: 'fp32' } });
    expect(() => compareReports([fp32, q4], slower)).toThrow(
      /baseline runs are not repeated runs of one variant \(dtype fp32 → q4\)/,
    );
    expect(() => compareReports(base, [])).toThrow(DantinoxError);
    expect(() =>
      compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2 }), { earlierRuns: [fp32, q4] }),
    ).toThrow(/earlier runs are not repeated runs/);
  });
});

describe('compareReports: one run per side', () => {
  it('without a noise floor: every judged metric is inconclusive, with the runs per side needed; never regressed', () => {
    const result = compareReports(
      fakeRun({ seed: 1, generation: true }),
      fakeRun({ seed: 2, slowdown: 1.3, generation: true }),
    );
    expect(result.counts.regressed).toBe(0);
    for (const r of judged(result.rows)) {
      expect(r.verdict).toBe('inconclusive');
      expect(r.method).toBe('none');
      expect(r.pValue).toBeNaN();
      expect(r.runsNeeded).toBeGreaterThanOrEqual(2);
    }
    expect(result.methods).toEqual(['none']);
  });

  it('with a noise floor: per-call samples (TTFT/TPOT/E2E from the generations) must agree', () => {
    const base = fakeRun({ seed: 1, generation: true });
    const slow = fakeRun({ seed: 2, slowdown: 1.2, generation: true });
    const result = compareReports(base, slow, { noiseFloor: 0.05, resamples: 300 });
    const ttft = row(result.rows, 'latency', 'generate@32+8', 'ttft_ms');
    expect(ttft).toMatchObject({
      method: 'noise-floor',
      verdict: 'regressed',
      noiseFloor: 0.05,
      samples: [10, 10],
    });
    expect(ttft.pValue).toBeLessThan(0.05);
    const linked = row(result.rows, 'latency', null, 'tpot_ms');
    expect(linked.samplesFrom).toBe('generate@32+8/tpot_ms');
    expect(linked.verdict).toBe('regressed');
    expect(result.noiseFloor).toBe(0.05);
    // The same code again: the floor holds.
    const again = compareReports(base, fakeRun({ seed: 3, generation: true }), {
      noiseFloor: 0.05,
      resamples: 300,
    });
    expect(again.counts.regressed).toBe(0);
  });

  it('with a noise floor and no samples at all (a CSV): the floor alone, no p-value', () => {
    const result = compareReports(
      fakeRun({ seed: 1, withoutSamples: true }),
      fakeRun({ seed: 2, slowdown: 1.2, withoutSamples: true, perplexity: 11 }),
      { noiseFloor: 0.03 },
    );
    const mean = row(result.rows, 'throughput', 'seq=16,batch=1', 'mean_ms');
    expect(mean).toMatchObject({ verdict: 'regressed', method: 'noise-floor', samples: null });
    expect(mean.pValue).toBeNaN();
    expect(mean.changeCi[0]).toBeCloseTo(mean.change - 0.03, 12);
    // Perplexity is lower-is-better: 12.5 → 11 is an improvement.
    expect(row(result.rows, 'perplexity', null, 'perplexity').verdict).toBe('improved');
  });

  it('with earlier runs of the baseline: a t-test with their spread, and the floor they imply', () => {
    const earlierRuns = fakeRuns(6, 'old', { seed: 50, drift: 0.03 });
    const result = compareReports(
      fakeRun({ seed: 1, drift: 0.03 }),
      fakeRun({ seed: 2, drift: 0.03, slowdown: 1.3 }),
      {
        earlierRuns,
      },
    );
    const mean = row(result.rows, 'latency', 'decode@32', 'mean_ms');
    expect(mean.method).toBe('earlier-runs');
    expect(mean.noiseFloor).toBeGreaterThan(0.03);
    expect(mean.verdict).toBe('regressed');
    expect(result.earlierRuns).toBe(6);
    // Perplexity never varies: its earlier spread is 0, so the tiny change of 12.5 → 12.5 is none at all.
    expect(row(result.rows, 'perplexity', null, 'perplexity').verdict).toBe('no significant change');
  });
});

describe('compareReports: matching, identity, options', () => {
  it('is reproducible: the same seed gives the same comparison, another seed other per-call intervals', () => {
    const a = fakeRun({ seed: 1 });
    const b = fakeRun({ seed: 2, slowdown: 1.05 });
    const opts = { noiseFloor: 0.02, resamples: 200 };
    expect(compareReports(a, b, { ...opts, seed: 9 })).toEqual(compareReports(a, b, { ...opts, seed: 9 }));
    const ci = (seed: number) =>
      row(compareReports(a, b, { ...opts, seed }).rows, 'latency', 'decode@32', 'p99_ms').changeCi;
    expect(ci(9)).not.toEqual(ci(10));
  });

  it('refuses different variants unless allowed, naming the differences', () => {
    const other = fakeRun({ seed: 2, modelMeta: { model: 'gpt2', dim: 768 } });
    try {
      compareReports(fakeRun({ seed: 1 }), other);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DantinoxError);
      expect((e as DantinoxError).code).toBe('INVALID_INPUT');
      expect((e as Error).message).toContain('model tiny → gpt2, dim 64 → 768');
    }
    const allowed = compareReports(fakeRun({ seed: 1 }), other, { allowDifferent: true });
    expect(allowed.variantDifferences).toEqual([
      { field: 'model', baseline: 'tiny', candidate: 'gpt2' },
      { field: 'dim', baseline: 64, candidate: 768 },
    ]);
    // How the model runs is part of the variant too: a q4 run at 2 threads is no baseline of an fp32 run at 1.
    expect(() =>
      compareReports(
        fakeRun({ seed: 1, modelMeta: { dtype: 'q4', threads: 2 } }),
        fakeRun({ seed: 2, modelMeta: { dtype: 'fp32', threads: 1 } }),
      ),
    ).toThrow('dtype q4 → fp32, threads 2 → 1');
    for (const field of ['engine', 'head_dtype', 'block_size', 'weights', 'quantized_matrices'])
      expect(() =>
        compareReports(
          fakeRun({ seed: 1, modelMeta: { [field]: 'one' } }),
          fakeRun({ seed: 2, modelMeta: { [field]: 'other' } }),
        ),
      ).toThrow(`${field} one → other`);
    // A field one side does not record (a file of an older version) cannot be told apart: not a difference.
    expect(() =>
      compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, modelMeta: { head_dtype: 'q8' } })),
    ).not.toThrow();
  });

  it('lists tasks, cells and metrics present on one side only', () => {
    const base = fakeRun({ seed: 1 });
    const full = fakeRun({ seed: 2 });
    const cand = new SuiteReport({
      runId: 'partial',
      modelMeta: full.modelMeta,
      descriptors: full.descriptors,
      results: [
        {
          ...full.results[0]!,
          metrics: { tps_seq16: 1, extra: 2 },
          cells: [
            full.results[0]!.cells![0]!,
            { ...full.results[0]!.cells![1]!, status: 'failed', error: 'OOM', metrics: {} },
          ],
        },
        { task: 'mine', metrics: { x: 1 } },
      ],
    });
    const result = compareReports(base, cand);
    const unmatched = result.unmatched.map(
      (u) => `${u.side} ${u.task} ${u.cell ?? '-'} ${u.metric ?? '-'}: ${u.reason}`,
    );
    expect(unmatched).toEqual(
      [
        'baseline throughput - tps_seq32: not in the candidate',
        'baseline throughput - peak_tps: not in the candidate',
        'candidate throughput - extra: not in the baseline',
        'baseline throughput seq=32,batch=1 -: failed: OOM in the candidate',
        'baseline latency - -: task not in the candidate',
        'baseline perplexity - -: task not in the candidate',
        'candidate mine - -: task not in the baseline',
      ].sort((x, y) => unmatched.indexOf(x) - unmatched.indexOf(y)),
    );
    expect(unmatched).toHaveLength(7);
  });

  it('rejects out-of-range options', () => {
    const a = fakeRun({ seed: 1 });
    expect(() => compareReports(a, a, { threshold: -0.1 })).toThrow(DantinoxError);
    expect(() => compareReports(a, a, { alpha: 1 })).toThrow(DantinoxError);
    expect(() => compareReports(a, a, { noiseFloor: -0.01 })).toThrow(/`noiseFloor` must be a fraction ≥ 0/);
    expect(() => compareReports(a, a, { power: 1 })).toThrow(/`power`/);
  });
});

const DESCRIPTORS: readonly MetricDescriptor[] = [
  { key: 'score', unit: 'pts', description: 'Higher is better.', higherIsBetter: true },
  ...['time_ms', 'a_ms', 'b_ms', 'c_ms', 'd_ms'].map(
    (key): MetricDescriptor => ({ key, unit: 'ms', description: 'Lower is better.', higherIsBetter: false }),
  ),
];

interface HandRunOptions {
  readonly runId?: string;
  readonly cells?: readonly CellRecord[];
  /** The task row failed with this error. */
  readonly failed?: string;
  readonly modelMeta?: Record<string, MetaValue>;
  readonly descriptors?: readonly MetricDescriptor[];
}

/** A run written by hand: one task `t` with these metrics and cells. */
function handRun(metrics: Record<string, number>, o: HandRunOptions = {}): SuiteReport {
  const cells = o.cells ?? [];
  const task: BenchmarkResult =
    o.failed === undefined
      ? { task: 't', status: 'completed', metrics, cells }
      : { task: 't', status: 'failed', error: o.failed, metrics, cells };
  return new SuiteReport({
    ...(o.runId === undefined ? {} : { runId: o.runId }),
    modelMeta: { model: 'tiny', ...o.modelMeta },
    descriptors: o.descriptors ?? DESCRIPTORS,
    results: [task],
  });
}

const cellOf = (
  cell: string,
  metrics: Record<string, number>,
  more: Partial<CellRecord> = {},
): CellRecord => ({
  task: 't',
  cell,
  phase: 'prefill',
  status: 'completed',
  metrics,
  ...more,
});

/** FNV-1a (32 bits) of a string, as published: the per-cell seed offset of the per-call bootstrap. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Each option just outside its range, with what the message says is allowed. */
const OUT_OF_RANGE: readonly [string, number, string][] = [
  ['threshold', -0.01, 'a fraction ≥ 0'],
  ['threshold', Number.POSITIVE_INFINITY, 'a fraction ≥ 0'],
  ['threshold', Number.NaN, 'a fraction ≥ 0'],
  ['alpha', 0, 'a number in (0, 1)'],
  ['alpha', 1, 'a number in (0, 1)'],
  ['confidence', 0, 'a number in (0, 1)'],
  ['confidence', 1, 'a number in (0, 1)'],
  ['power', 0, 'a number in (0, 1)'],
  ['power', 1, 'a number in (0, 1)'],
  ['noiseFloor', -1e-9, 'a fraction ≥ 0'],
  ['noiseFloor', Number.NaN, 'a fraction ≥ 0'],
  ['noiseFloor', Number.POSITIVE_INFINITY, 'a fraction ≥ 0'],
  ['resamples', 0, 'a positive integer'],
  ['resamples', 2.5, 'a positive integer'],
  ['seed', 0.5, 'a safe integer'],
  ['seed', 2 ** 53, 'a safe integer'],
];

/** compareReports(base, cand) refuses each of {@link OUT_OF_RANGE} by name. */
function expectEachRefused(base: SuiteReport, cand: SuiteReport): void {
  for (const [name, value, allowed] of OUT_OF_RANGE)
    expect(
      () => compareReports(base, cand, { [name]: value } as CompareOptions),
      `${name} = ${value}`,
    ).toThrow(messages.invalidNumberOption(name, value, allowed));
}

describe('compareReports: known answers and boundaries', () => {
  it('refuses each option outside its range by name, and accepts the ends that are inside', () => {
    const a = handRun({ time_ms: 10 });
    expectEachRefused(a, a);
    const ends = {
      threshold: 0,
      alpha: 0.001,
      confidence: 0.999,
      power: 0.001,
      noiseFloor: 0,
      resamples: 1,
      seed: -1,
    };
    expect(compareReports(a, a, ends)).toMatchObject(ends);
    expect(compareReports(a, a, { seed: Number.MAX_SAFE_INTEGER }).seed).toBe(Number.MAX_SAFE_INTEGER);
    expect(compareReports(a, a)).toMatchObject({
      threshold: 0.05,
      alpha: 0.05,
      confidence: 0.95,
      power: 0.8,
      noiseFloor: null,
      earlierRuns: 0,
      resamples: 2000,
      seed: 0,
    });
  });

  it('checks every option before comparing anything: refused even when the runs have no metric in common', () => {
    // The statistics also check α, confidence, power and the noise floor when they judge a metric; here none is
    // judged, so only compareReports' own checks can refuse them.
    const a = handRun({ a_ms: 1 });
    const b = handRun({ b_ms: 1 });
    expect(compareReports(a, b).rows).toHaveLength(0);
    expectEachRefused(a, b);
  });

  it('names the side with no run, and refuses candidate or earlier runs that do not repeat the variant', () => {
    const fp32 = (runId: string) => handRun({ time_ms: 10 }, { runId, modelMeta: { dtype: 'fp32' } });
    const q4 = (runId: string) => handRun({ time_ms: 10 }, { runId, modelMeta: { dtype: 'q4' } });
    expect(() => compareReports([], fp32('a'))).toThrow(messages.compareNoRuns('baseline'));
    expect(() => compareReports(fp32('a'), [])).toThrow(messages.compareNoRuns('candidate'));
    expect(() => compareReports(fp32('a'), [fp32('b'), q4('c')])).toThrow(
      messages.compareRunsNotRepeats('candidate runs', 'dtype fp32 → q4'),
    );
    // Earlier runs that repeat each other but not the baseline are no measure of its noise.
    expect(() => compareReports(fp32('a'), fp32('b'), { earlierRuns: [q4('c'), q4('d')] })).toThrow(
      messages.compareRunsNotRepeats('earlier runs', 'dtype fp32 → q4'),
    );
    expect(compareReports(fp32('a'), fp32('b'), { earlierRuns: [fp32('c'), fp32('d')] }).earlierRuns).toBe(2);
  });

  it('labels a side by its first run id as given (not sorted), with the number of runs; by the side without ids', () => {
    const r = (runId?: string) => handRun({ time_ms: 10 }, runId === undefined ? {} : { runId });
    const result = compareReports([r('b-2'), r('b-1')], r('c-7'));
    expect(result.baseline).toEqual({
      label: 'b-2 (2 runs)',
      runId: 'b-2',
      runIds: ['b-2', 'b-1'],
      runs: 2,
      modelMeta: { model: 'tiny' },
    });
    expect(result.candidate).toMatchObject({ label: 'c-7', runId: 'c-7', runIds: ['c-7'], runs: 1 });
    const anonymous = compareReports(r(), [r(), r()]);
    expect(anonymous.baseline).toMatchObject({ label: 'baseline', runId: null, runIds: [null] });
    expect(anonymous.candidate).toMatchObject({
      label: 'candidate (2 runs)',
      runId: null,
      runIds: [null, null],
    });
    expect(compareReports(r('x'), r('y'), { baselineLabel: 'main', candidateLabel: 'pr' })).toMatchObject({
      baseline: { label: 'main' },
      candidate: { label: 'pr' },
    });
  });

  it('learns the run-to-run spread from two earlier runs or more; one earlier run gives none', () => {
    const base = handRun({ time_ms: 10 });
    const cand = handRun({ time_ms: 13 });
    const earlier = [handRun({ time_ms: 10 }), handRun({ time_ms: 10.2 })];
    const two = row(compareReports(base, cand, { earlierRuns: earlier }).rows, 't', null, 'time_ms');
    expect(two.method).toBe('earlier-runs');
    // The floor two runs imply: exp(t₀.₉₇₅,₁ · sd · √2) − 1, where sd · √2 = ln 1.02 is the difference of their logs.
    expect(two.noiseFloor).toBeCloseTo(Math.exp(12.706204736174698 * Math.log(1.02)) - 1, 9);
    const one = compareReports(base, cand, { earlierRuns: earlier.slice(0, 1) });
    expect(row(one.rows, 't', null, 'time_ms')).toMatchObject({
      method: 'none',
      verdict: 'inconclusive',
      noiseFloor: null,
    });
    expect(one.earlierRuns).toBe(1);
  });

  it('lists a metric that is a number on one side only for that side; not a number on both, or absent, it is not', () => {
    const nan = Number.NaN;
    const base = handRun({ a_ms: 1, b_ms: nan, c_ms: 1, d_ms: nan, gone_nan: nan, gone: 1 });
    const cand = handRun({ a_ms: nan, b_ms: 1, c_ms: 1, d_ms: nan, new: 1, new_nan: nan });
    const result = compareReports(base, cand);
    expect(result.rows.map((r) => r.metric)).toEqual(['c_ms']);
    expect(result.unmatched).toEqual([
      { side: 'baseline', task: 't', cell: null, metric: 'a_ms', reason: 'not a number in the other run' },
      { side: 'candidate', task: 't', cell: null, metric: 'b_ms', reason: 'not a number in the other run' },
      { side: 'baseline', task: 't', cell: null, metric: 'gone', reason: 'not in the candidate' },
      { side: 'candidate', task: 't', cell: null, metric: 'new', reason: 'not in the baseline' },
    ]);
  });

  it("a side's value is the geometric mean over the runs where the metric is a number in a completed row or cell", () => {
    const cell = (v: number, more: Partial<CellRecord> = {}) => [cellOf('c', { time_ms: v }, more)];
    const base = [
      handRun({ time_ms: 10, score: 5 }, { cells: cell(4) }),
      handRun({ time_ms: Number.NaN, score: 5.2 }, { cells: cell(99, { status: 'failed', error: 'OOM' }) }),
      handRun({ time_ms: 99, score: 99 }, { failed: 'boom', cells: cell(4.4) }),
      handRun({ time_ms: 10.4, score: 5.1 }, { cells: cell(4.2) }),
    ];
    const cand = [
      handRun({ time_ms: 10, score: 5 }, { cells: cell(4) }),
      handRun({ time_ms: 10.1, score: 5.1 }, { cells: cell(4.1) }),
    ];
    const rows = compareReports(base, cand).rows;
    // Runs 1 and 4 (run 2 is NaN, run 3 failed); runs 1, 2 and 4; the cell: runs 1, 3 and 4 (it failed in run 2).
    const expected: [string | null, string, number, number][] = [
      [null, 'time_ms', 2, Math.sqrt(10 * 10.4)],
      [null, 'score', 3, Math.cbrt(5 * 5.2 * 5.1)],
      ['c', 'time_ms', 3, Math.cbrt(4 * 4.4 * 4.2)],
    ];
    for (const [cellId, metric, runs, value] of expected) {
      const r = row(rows, 't', cellId, metric);
      expect(r.runs, `${cellId}/${metric}`).toEqual([runs, 2]);
      expect(r.baseline).toBeCloseTo(value, 10);
    }
  });

  it('matches cells by id (a batch of 4 is not a batch of 1), and lists cells missing or not completed on a side', () => {
    const base = handRun(
      { score: 1 },
      {
        cells: [
          cellOf('seq=8,batch=1', { time_ms: 4 }),
          cellOf('seq=8,batch=4', { time_ms: 9 }),
          cellOf('gone', { time_ms: 1 }),
          cellOf('broke', {}, { status: 'failed', error: 'OOM' }),
          cellOf('skip', { time_ms: 1 }),
        ],
      },
    );
    const cand = handRun(
      { score: 1 },
      {
        cells: [
          cellOf('seq=8,batch=4', { time_ms: 9.5 }),
          cellOf('seq=8,batch=1', { time_ms: 4.1 }),
          cellOf('broke', { time_ms: 2 }),
          cellOf('skip', {}, { status: 'skipped' }),
          cellOf('new', { time_ms: 1 }),
        ],
      },
    );
    const result = compareReports(base, cand);
    // Task rows first, then cells in the baseline's order.
    expect(result.rows.map((r) => [r.cell, r.metric, r.baseline, r.candidate])).toEqual([
      [null, 'score', 1, 1],
      ['seq=8,batch=1', 'time_ms', 4, 4.1],
      ['seq=8,batch=4', 'time_ms', 9, 9.5],
    ]);
    expect(result.unmatched).toEqual([
      { side: 'baseline', task: 't', cell: 'gone', metric: null, reason: 'cell not in the candidate' },
      { side: 'candidate', task: 't', cell: 'broke', metric: null, reason: 'failed: OOM in the baseline' },
      { side: 'baseline', task: 't', cell: 'skip', metric: null, reason: 'skipped in the candidate' },
      { side: 'candidate', task: 't', cell: 'new', metric: null, reason: 'cell not in the baseline' },
    ]);
  });

  it('a task row that failed on one side: its own metrics are not compared, its cells are', () => {
    const ok = handRun({ score: 1 }, { cells: [cellOf('c', { time_ms: 4 })] });
    const failed = handRun({ score: 1.1 }, { failed: 'boom', cells: [cellOf('c', { time_ms: 4.1 })] });
    const result = compareReports(ok, failed);
    expect(result.rows.map((r) => `${r.cell}/${r.metric}`)).toEqual(['c/time_ms']);
    expect(result.unmatched).toEqual([
      { side: 'baseline', task: 't', cell: null, metric: null, reason: 'failed: boom in the candidate' },
    ]);
    expect(compareReports(failed, ok).unmatched).toEqual([
      { side: 'candidate', task: 't', cell: null, metric: null, reason: 'failed: boom in the baseline' },
    ]);
  });

  it('links a task metric to a cell only when it equals the same cell metric on both sides, and the cell has samples', () => {
    const samplesMs = [10, 11, 12, 13, 14, 15];
    const cells = (b1: number, b4: number, more: Partial<CellRecord>) => [
      cellOf('seq=8,batch=1', { tps: b1 }, more),
      cellOf('seq=8,batch=4', { tps: b4 }, more),
    ];
    // `both` is batch 1's tps on both sides; `base_only` is batch 4's in the baseline only, `cand_only` in the candidate only.
    const metrics = [
      { both: 100, base_only: 50, cand_only: 70 },
      { both: 90, base_only: 51, cand_only: 45 },
    ] as const;
    const run = (more: Partial<CellRecord>) => {
      // A cell of the baseline alone, with the same value, comes first: it has nothing to link to.
      const base = handRun(metrics[0], {
        cells: [cellOf('gone', { tps: 100 }, more), ...cells(100, 50, more)],
      });
      return compareReports(base, handRun(metrics[1], { cells: cells(90, 45, more) })).rows;
    };
    const rows = run({ samplesMs });
    expect(row(rows, 't', null, 'both')).toMatchObject({ samplesFrom: 'seq=8,batch=1/tps', samples: [6, 6] });
    for (const metric of ['base_only', 'cand_only'])
      expect(row(rows, 't', null, metric), metric).toMatchObject({ samplesFrom: null, samples: null });
    // Without per-call samples (a CSV) there is nothing to link to.
    expect(row(run({}), 't', null, 'both')).toMatchObject({ samplesFrom: null, samples: null });
  });

  it('tests per-call samples only when both sides recorded the same list', () => {
    const s = (k: number) => Array.from({ length: 8 }, (_, i) => k + i * 0.1);
    const base = handRun(
      {},
      {
        cells: [
          cellOf('x', { mean_ms: 10 }, { samplesMs: s(10) }),
          cellOf('y', { mean_ms: 10 }, { samplesMs: s(10), metricSamples: { mean_ms: s(10) } }),
          cellOf('z', { mean_ms: 10 }, { samplesMs: s(10) }),
        ],
      },
    );
    const cand = handRun(
      {},
      {
        cells: [
          cellOf('x', { mean_ms: 12 }),
          cellOf('y', { mean_ms: 12 }, { samplesMs: s(12) }),
          cellOf('z', { mean_ms: 12 }, { samplesMs: s(12) }),
        ],
      },
    );
    const result = compareReports(base, cand, { noiseFloor: 0.05, resamples: 100 });
    // x: samples on one side only; y: its own list in the baseline, the wall times in the candidate.
    for (const cell of ['x', 'y']) {
      const r = row(result.rows, 't', cell, 'mean_ms');
      expect(r, cell).toMatchObject({ samples: null, method: 'noise-floor', verdict: 'regressed' });
      expect(r.pValue).toBeNaN();
      // Without samples the interval is the change ± floor: 12 / 10 − 1 = 0.2 ± 0.05.
      expect(r.changeCi[0]).toBeCloseTo(0.15, 12);
      expect(r.changeCi[1]).toBeCloseTo(0.25, 12);
    }
    const z = row(result.rows, 't', 'z', 'mean_ms');
    expect(z.samples).toEqual([8, 8]);
    expect(z.pValue).toBeLessThan(0.05);
  });

  it('draws each cell’s bootstrap from seed·2³² + FNV-1a(task, cell, list): the same in any cell order, not shared by identical cells', () => {
    // The published FNV-1a test vectors, so that the copy above can be trusted.
    expect([fnv1a(''), fnv1a('a'), fnv1a('foobar')]).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
    const bs = [10, 10.4, 9.8, 10.1, 10.6, 9.9, 10.2, 10.3];
    const cs = bs.map((x, i) => x * 1.1 + (i % 3) * 0.05);
    const cells = (samplesMs: number[], reversed: boolean) => {
      const list = ['seq=8,batch=1', 'seq=8,batch=4'].map((id) => cellOf(id, { mean_ms: 10 }, { samplesMs }));
      return reversed ? list.reverse() : list;
    };
    const opts = { noiseFloor: 0.02, resamples: 200, seed: 3, confidence: 0.9 };
    const compare = (reversed: boolean) =>
      compareReports(
        handRun({}, { cells: cells(bs, reversed) }),
        handRun({}, { cells: cells(cs, reversed) }),
        opts,
      );
    const ci = (result: ReturnType<typeof compareReports>, cell: string) =>
      row(result.rows, 't', cell, 'mean_ms').changeCi;
    const result = compare(false);
    expect(ci(result, 'seq=8,batch=1')).not.toEqual(ci(result, 'seq=8,batch=4'));
    expect(ci(compare(true), 'seq=8,batch=4')).toEqual(ci(result, 'seq=8,batch=4'));
    const rng = new Rng(3n * 2n ** 32n + BigInt(fnv1a('t\0seq=8,batch=4\0samplesMs')));
    const [lo, hi] = bootstrapRelativeChange(bs, cs, [sortedMean], {
      rng,
      resamples: 200,
      confidence: 0.9,
    })[0]!;
    // The per-call interval widened by the floor on each side.
    expect(ci(result, 'seq=8,batch=4')).toEqual([lo - 0.02, hi + 0.02]);
  });

  it('demotes a regression that does not survive the Benjamini–Hochberg correction, and says over how many tested metrics', () => {
    const runsOf = (values: Record<string, readonly number[]>) =>
      [0, 1, 2].map((i) =>
        handRun(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v[i] as number]))),
      );
    // b_ms: +15% over 3 runs per side, p ≈ 0.032: a regression when judged alone (p < α, m = 1).
    const b = { base: [10, 10.5, 9.5], cand: [11.7, 12, 10.8] };
    const alone = row(
      compareReports(runsOf({ b_ms: b.base }), runsOf({ b_ms: b.cand })).rows,
      't',
      null,
      'b_ms',
    );
    expect(alone.verdict).toBe('regressed');
    expect(alone.pValue).toBeGreaterThan(0.025);
    expect(alone.pValue).toBeLessThan(0.05);
    // With a_ms (+20%, p ≈ 2e-5) and two unchanged metrics (p = 1), m = 4: a at rank 1 passes (p ≤ α/4), b at rank 2
    // does not (0.032 > 2α/4 = 0.025), nor do the unchanged ones; n_x has no direction, hence no test.
    const same = [5, 5.01, 4.99];
    const result = compareReports(
      runsOf({ a_ms: [10, 10.1, 9.9], b_ms: b.base, c_ms: same, d_ms: same, n_x: [1, 2, 3] }),
      runsOf({ a_ms: [12, 12.1, 11.9], b_ms: b.cand, c_ms: same, d_ms: same, n_x: [1, 2, 3] }),
    );
    expect(result.rows.map((r) => [r.metric, r.verdict, r.runsNeeded])).toEqual([
      ['a_ms', 'regressed', null],
      ['b_ms', 'inconclusive', null],
      ['c_ms', 'no significant change', null],
      ['d_ms', 'no significant change', null],
      ['n_x', 'not judged', null],
    ]);
    expect(row(result.rows, 't', null, 'b_ms').pValue).toBe(alone.pValue);
    expect(result.counts).toEqual({
      regressed: 1,
      improved: 0,
      inconclusive: 1,
      'within noise': 0,
      'no significant change': 2,
      'not judged': 1,
    });
    expect(result.methods).toEqual(['welch', 'none']);
    expect(result.test).toBe(
      `${METHOD_DESCRIPTIONS.welch}; ${METHOD_DESCRIPTIONS.none}; Benjamini–Hochberg correction across the 4 tested metrics (α = 0.05)`,
    );
  });

  it('describes task and cell metrics apart, a cell metric the built-in cells lack by either run, an unknown metric not at all', () => {
    const items: MetricDescriptor = {
      key: 'n',
      unit: 'items',
      description: 'Items done.',
      higherIsBetter: true,
    };
    const itl: MetricDescriptor = {
      key: 'itl_p99_ms',
      unit: 'ms',
      description: '99th percentile of the inter-token latency.',
      higherIsBetter: false,
    };
    const cells = [cellOf('c', { n: 30, itl_p99_ms: 5, zzz: 1 })];
    const result = compareReports(
      handRun({ n: 10, zzz: 1 }, { descriptors: [items], cells }),
      handRun({ n: 10, zzz: 1 }, { descriptors: [items, itl], cells }),
    );
    // A task's `n` (items, higher is better) is not a cell's `n` (calls, no direction).
    expect(row(result.rows, 't', null, 'n')).toMatchObject({ unit: 'items', higherIsBetter: true });
    expect(row(result.rows, 't', 'c', 'n')).toMatchObject({
      unit: 'calls',
      higherIsBetter: null,
      verdict: 'not judged',
    });
    expect(row(result.rows, 't', 'c', 'itl_p99_ms')).toMatchObject({ unit: 'ms', higherIsBetter: false });
    for (const cell of [null, 'c'])
      expect(row(result.rows, 't', cell, 'zzz')).toMatchObject({
        unit: null,
        higherIsBetter: null,
        verdict: 'not judged',
        method: 'none',
      });
  });
});
