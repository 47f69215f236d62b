import { describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/report.js';
import type { BenchmarkResult } from '../../src/benchmarking/task.js';
import { nextSteps } from '../../src/cli/run-bench-plan.js';
import type { RunPlan, RunResult } from '../../src/runs/run-matrix.js';

const row = (task: string, metrics: Record<string, number>): BenchmarkResult => ({
  task,
  status: 'completed',
  metrics,
});

const report = (runId: string, results: BenchmarkResult[]): SuiteReport =>
  new SuiteReport({ runId, modelMeta: {}, results });

/** Only the fields nextSteps reads. */
const plan = { dir: '/runs/m', shownDir: 'runs/m' } as unknown as RunPlan;
const result = (reports: SuiteReport[]): RunResult =>
  ({ layout: 'matrix', reports, files: [] }) as unknown as RunResult;

describe('nextSteps', () => {
  it('says each variant against the first: speed ratios, KLD, top-1 and the choice accuracy with its McNemar p', () => {
    const base = report('m-fp32', [
      row('throughput', { peak_tps: 1000 }),
      row('latency', { decode_tps: 50 }),
      row('choice', { accuracy: 0.42 }),
    ]);
    const q4 = report('m-q4', [
      row('throughput', { peak_tps: 1500 }),
      row('latency', { decode_tps: 125 }),
      row('kld', { kld_mean: 0.012345, top1_agreement: 0.884 }),
      row('choice', { accuracy: 0.4125, mcnemar_p: 0.5213 }),
    ]);
    const text = nextSteps(plan, result([base, q4]));
    expect(text).toContain('Against m-fp32 (the first variant):');
    expect(text).toContain(
      '  m-q4: throughput 1.50×, decode 2.50×, KLD 0.012 nats, top-1 88%, choice 41.3% (McNemar p 0.52)',
    );
  });

  it('leaves out what a variant did not measure: no McNemar p without a reference, nothing for a failed row', () => {
    const base = report('a', [row('throughput', { peak_tps: 10 })]);
    const other = report('b', [
      { task: 'throughput', status: 'failed', error: 'x', metrics: {} },
      row('choice', { accuracy: 0.3 }),
    ]);
    expect(nextSteps(plan, result([base, other]))).toContain('  b: choice 30.0%\n');
  });
});
