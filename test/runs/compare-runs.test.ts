import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/benchmarking/environment.js';
import { ResultsHistory } from '../../src/benchmarking/history/results-history.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { messages } from '../../src/messages.js';
import { compareRuns } from '../../src/runs/compare-runs.js';
import { fakeRun } from '../benchmarking/compare/fake-runs.js';

/** A saved run of `tiny` whose one prefill cell takes about `ms` per call, measured at 1-minute load `load`. */
function savedRun(dir: string, name: string, ms: number, load: number): string {
  const samplesMs = Array.from({ length: 9 }, (_, i) => ms * (0.99 + (i % 3) * 0.01));
  const report = new SuiteReport({
    runId: name,
    modelMeta: { model: 'tiny', dtype: 'fp32', threads: 1 },
    environment: {
      logicalCpus: 2,
      loadAverage: { start: [load, 0, 0], end: [load, 0, 0] },
    } as unknown as Environment,
    results: [
      {
        task: 'throughput',
        metrics: { tps_seq8: 8000 / ms },
        cells: [
          {
            task: 'throughput',
            cell: 'seq=8,batch=1',
            phase: 'prefill',
            batch: 1,
            seqLen: 8,
            status: 'completed',
            metrics: { tps: 8000 / ms, mean_ms: ms },
            samplesMs,
          },
        ],
      },
    ],
  });
  report.save(join(dir, name, 'results.json'));
  return name;
}

describe('compareRuns: noise warnings', () => {
  it("names each side's runs measured on a busy machine, never the difference between the sides", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-compare-'));
    const base = savedRun(cwd, 'base', 1, 0.2);
    const head = savedRun(cwd, 'head', 2, 1.5); // twice as slow, and busy
    const { warnings, comparisons } = await compareRuns([[base], [head]], { cwd });
    expect(comparisons).toHaveLength(1);
    expect(warnings).toEqual([{ kind: 'busy', variant: 'head', message: messages.busyMachine(1.5, 2) }]);
  });
});

describe('compareRuns: one run per side against a results history', () => {
  /** A fake run of `tiny` in `dtype` started on 2026-01-<day> on one test machine, `slowdown` times slower. */
  const run = (day: number, dtype: string, slowdown = 1): SuiteReport => {
    const r = fakeRun({ seed: day, runId: `tiny-${dtype}-${day}`, slowdown, drift: 0.03 });
    return new SuiteReport({
      results: r.results,
      modelMeta: { ...r.modelMeta, dtype, threads: 2 },
      runId: r.runId as string,
      descriptors: r.descriptors,
      environment: {
        cpuModel: 'Test CPU',
        logicalCpus: 2,
        totalMemoryBytes: 2 ** 33,
        timestamp: `2026-01-${String(day).padStart(2, '0')}T10:00:00.000Z`,
      } as unknown as Environment,
    });
  };

  it("learns the noise from the baseline variant's earlier runs on its machine, before the baseline only", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-compare-history-'));
    const history = await ResultsHistory.open(join(cwd, 'h.duckdb'));
    // Earlier fp32 runs (days 1–7; the 5 latest count), a q4 run (another variant) and a later fp32 run (day 20).
    for (const r of [1, 2, 3, 4, 5, 6, 7].map((d) => run(d, 'fp32')).concat(run(8, 'q4'), run(20, 'fp32')))
      await history.add(r);
    history.close();
    run(10, 'fp32').save(join(cwd, 'base', 'results.json'));
    run(11, 'fp32', 1.3).save(join(cwd, 'head', 'results.json'));

    const { comparisons, notes } = await compareRuns([['base'], ['head']], { cwd, history: 'h.duckdb' });
    const [c] = comparisons;
    expect(notes).toEqual([]);
    expect(c?.earlierRuns).toBe(5);
    const judged = c?.rows.filter((r) => r.verdict !== 'not judged') ?? [];
    expect(judged.length).toBeGreaterThan(0);
    expect(new Set(judged.map((r) => r.method))).toEqual(new Set(['earlier-runs']));
    expect(judged.some((r) => r.verdict === 'regressed')).toBe(true); // 30% slower, against ≈ 3% noise

    // Without the history every judged metric of one run per side is inconclusive.
    const plain = await compareRuns([['base'], ['head']], { cwd });
    expect(new Set(plain.comparisons[0]?.rows.map((r) => r.method))).toEqual(new Set(['none']));

    // A baseline older than all but one earlier run: too few to learn from, said, and not used.
    run(2, 'fp32').save(join(cwd, 'old', 'results.json'));
    const early = await compareRuns([['old'], ['head']], { cwd, history: 'h.duckdb' });
    expect(early.notes).toEqual([messages.historyTooFewEarlierRuns('tiny-fp32-2', 1)]);
    expect(early.comparisons[0]?.earlierRuns).toBe(0);
    // A given noise floor decides instead, and the history is said to be unused.
    const floor = await compareRuns([['base'], ['head']], { cwd, history: 'h.duckdb', noiseFloor: 0.1 });
    expect(floor.notes).toEqual([messages.historyUnused(true)]);
  });
});
