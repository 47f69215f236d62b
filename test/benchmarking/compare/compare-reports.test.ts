import { describe, expect, it } from 'vitest';
import { compareReports, type MetricComparison, SuiteReport } from '../../../src/benchmarking/index.js';
import { DantinoxError } from '../../../src/errors.js';
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
