import { describe, expect, it } from 'vitest';
import { compareReports, type MetricComparison } from '../../../src/benchmarking/index.js';
import { DantinoxError } from '../../../src/errors.js';
import { fakeRun } from './fake-runs.js';

const row = (rows: readonly MetricComparison[], task: string, cell: string | null, metric: string) => {
  const r = rows.find((x) => x.task === task && x.cell === cell && x.metric === metric);
  if (r === undefined) throw new Error(`no row ${task}/${cell}/${metric}`);
  return r;
};

describe('compareReports', () => {
  it('finds no regression between two runs of the same workload, at a false-positive rate near 5% or below', () => {
    const reps = 200;
    let tested = 0;
    let significant = 0;
    let flagged = 0;
    for (let i = 0; i < reps; i++) {
      const result = compareReports(fakeRun({ seed: 2 * i }), fakeRun({ seed: 2 * i + 1 }), {
        resamples: 50,
      });
      for (const r of result.rows) {
        if (Number.isNaN(r.pValue) || r.higherIsBetter === null) continue;
        tested++;
        if (r.pValue < 0.05) significant++;
        if (r.verdict === 'regressed' || r.verdict === 'improved') flagged++;
      }
    }
    // Rows of one cell share its test, so the rate is that of the 3 cells × 200 runs; its SD is about 0.9%.
    expect(significant / tested).toBeLessThan(0.07);
    // A change also has to exceed the 5% threshold: with 5% per-call noise and 30 calls that is rare.
    expect(flagged / tested).toBeLessThan(0.01);
  });

  it('says "no significant change" for every tested metric of two runs with the same seed', () => {
    const result = compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 1, runId: 'again' }));
    const verdicts = new Set(result.rows.filter((r) => r.higherIsBetter !== null).map((r) => r.verdict));
    // Identical samples: the test gives p = 1; perplexity (no samples) is unchanged, so within noise.
    expect(
      result.rows
        .filter((r) => !Number.isNaN(r.pValue) && r.higherIsBetter !== null)
        .every((r) => r.verdict === 'no significant change'),
    ).toBe(true);
    expect([...verdicts].sort()).toEqual(['no significant change', 'within noise']);
    expect(result.counts.regressed).toBe(0);
  });

  it('flags a workload made 10% slower as regressed, in the direction of each metric', () => {
    const result = compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, slowdown: 1.1 }));
    const mean = row(result.rows, 'throughput', 'seq=32,batch=1', 'mean_ms');
    expect(mean.verdict).toBe('regressed');
    expect(mean.change).toBeGreaterThan(0.05);
    expect(mean.changeCi[0]).toBeGreaterThan(0);
    expect(mean.changeCi[0]).toBeLessThan(mean.change);
    expect(mean.changeCi[1]).toBeGreaterThan(mean.change);
    const tps = row(result.rows, 'throughput', 'seq=32,batch=1', 'tps');
    expect(tps.change).toBeLessThan(-0.05);
    expect(tps.verdict).toBe('regressed');
    expect(row(result.rows, 'latency', null, 'decode_tps').verdict).toBe('regressed');
    expect(row(result.rows, 'throughput', 'seq=16,batch=1', 'n').verdict).toBe('not judged');
    expect(result.counts.regressed).toBeGreaterThan(0);
  });

  it('reports a 1% slowdown as within noise under a 5% threshold, and as regressed under 0.5%', () => {
    const base = fakeRun({ seed: 3, n: 2000, noise: 0.01 });
    const cand = fakeRun({ seed: 4, n: 2000, noise: 0.01, slowdown: 1.01 });
    const at5 = row(compareReports(base, cand, { resamples: 200 }).rows, 'latency', 'decode@32', 'mean_ms');
    expect(at5.pValue).toBeLessThan(0.05);
    expect(at5.verdict).toBe('within noise');
    const tight = compareReports(base, cand, { threshold: 0.005, resamples: 200 });
    expect(row(tight.rows, 'latency', 'decode@32', 'mean_ms').verdict).toBe('regressed');
  });

  it('links a task metric that copies a cell metric to that cell’s samples', () => {
    const result = compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, slowdown: 1.1 }));
    const taskRow = row(result.rows, 'throughput', null, 'tps_seq16');
    const cellRow = row(result.rows, 'throughput', 'seq=16,batch=1', 'tps');
    expect(taskRow.samplesFrom).toBe('seq=16,batch=1/tps');
    expect(taskRow.pValue).toBe(cellRow.pValue);
    expect(taskRow.changeCi).toEqual(cellRow.changeCi);
    expect(taskRow.samples).toEqual([30, 30]);
  });

  it('says the interval is unavailable without samples and lets the threshold alone decide', () => {
    const result = compareReports(
      fakeRun({ seed: 1, withoutSamples: true }),
      fakeRun({ seed: 2, slowdown: 1.2, withoutSamples: true, perplexity: 11 }),
    );
    const mean = row(result.rows, 'throughput', 'seq=16,batch=1', 'mean_ms');
    expect(mean.changeCi.every(Number.isNaN)).toBe(true);
    expect(mean.pValue).toBeNaN();
    expect(mean.samples).toBeNull();
    expect(mean.verdict).toBe('regressed');
    // Perplexity is lower-is-better: 12.5 → 11 is an improvement.
    expect(row(result.rows, 'perplexity', null, 'perplexity').verdict).toBe('improved');
  });

  it('is reproducible: the same seed gives the same comparison, another seed other intervals', () => {
    const a = fakeRun({ seed: 1 });
    const b = fakeRun({ seed: 2, slowdown: 1.05 });
    expect(compareReports(a, b, { seed: 9 })).toEqual(compareReports(a, b, { seed: 9 }));
    const ci = (seed: number) =>
      row(compareReports(a, b, { seed }).rows, 'latency', 'decode@32', 'p99_ms').changeCi;
    expect(ci(9)).not.toEqual(ci(10));
  });

  it('refuses runs of different models unless allowed, naming the difference', () => {
    const other = fakeRun({ seed: 2, modelMeta: { model: 'gpt2', dim: 768 } });
    try {
      compareReports(fakeRun({ seed: 1 }), other);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DantinoxError);
      expect((e as DantinoxError).code).toBe('INVALID_INPUT');
      expect((e as Error).message).toContain('model: tiny ≠ gpt2');
      expect((e as Error).message).toContain('--allow-different-models');
    }
    const allowed = compareReports(fakeRun({ seed: 1 }), other, { allowDifferentModels: true });
    expect(allowed.modelDifferences).toEqual(['model: tiny ≠ gpt2', 'dim: 64 ≠ 768']);
    // Configuration (engine, threads, dtype) may differ without the flag.
    expect(() =>
      compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, modelMeta: { engine: 'llama.cpp' } })),
    ).not.toThrow();
  });

  it('lists tasks, cells and metrics present on one side only', () => {
    const base = fakeRun({ seed: 1 });
    const full = fakeRun({ seed: 2 });
    const cand = new (base.constructor as typeof import('../../../src/benchmarking/report.js').SuiteReport)({
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
  });
});
