import { describe, expect, it } from 'vitest';
import { BenchmarkSuite, compareReports, SuiteReport } from '../../../src/benchmarking/index.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { FakeModel } from '../fake-model.js';

/** One run of the default suite on the deterministic fake model; `slowdown` scales every call's cost. */
async function run(slowdown: number): Promise<SuiteReport> {
  const model = new FakeModel({ cost: { fixedNs: 1_000_000 * slowdown, perTokenNs: 10_000 * slowdown } });
  const suite = BenchmarkSuite.default({ seq_lens: [16, 32], n_warmup: 1, n_measure: 8, batch_sizes: [1] });
  const report = await suite.run(new ARParadigm(model.config), model, { clock: model.clock, jsonl: false });
  // Through JSON and back, as `dantinox compare` reads runs.
  return new SuiteReport({ ...JSON.parse(JSON.stringify(report.toJSON())), results: report.results });
}

describe('compareReports on real suite runs of the fake model', () => {
  it('finds no significant change between runs of the same workload, and a regression when 10% slower', async () => {
    const [a, b, slow, slow2] = [await run(1), await run(1), await run(1.1), await run(1.1)];
    // The fake clock makes every run of one workload identical: constant per-run values, p = 1 or 0.
    const same = compareReports([a, a], [b, b]);
    const judged = same.rows.filter((r) => r.higherIsBetter !== null);
    expect(judged.length).toBeGreaterThan(10);
    expect(judged.every((r) => r.verdict === 'no significant change')).toBe(true);
    // TTFT, TPOT and E2E are judged from runs, with their per-generation samples recorded.
    const ttft = same.rows.find((r) => r.cell?.startsWith('generate@') && r.metric === 'ttft_ms');
    expect(ttft?.samples?.[0]).toBeGreaterThan(0);
    expect(same.counts.regressed + same.counts.improved).toBe(0);
    // One run per side: nothing to tell drift from a change, so nothing is decided.
    expect(compareReports(a, slow).counts.regressed).toBe(0);
    const worse = compareReports([a, b], [slow, slow2]);
    const tps = worse.rows.find((r) => r.task === 'throughput' && r.metric === 'tps_seq32');
    expect(tps?.verdict).toBe('regressed');
    expect(tps?.samplesFrom).toMatch(/tps$/);
    expect(tps?.method).toBe('welch');
    for (const metric of ['ttft_ms', 'tpot_ms', 'e2e_ms'])
      expect(
        worse.rows.find((r) => r.task === 'latency' && r.cell === null && r.metric === metric)?.verdict,
      ).toBe('regressed');
    expect(tps?.change).toBeCloseTo(1 / 1.1 - 1, 2);
    // The fake model has no tokenizer: perplexity fails in both runs, and says so.
    expect(worse.unmatched).toEqual([
      {
        side: 'both',
        task: 'perplexity',
        cell: null,
        metric: null,
        reason: expect.stringMatching(/^failed: .* in both runs$/),
      },
    ]);
  });
});
