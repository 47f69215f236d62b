/**
 * Checks that hold between the numbers of a real run, whatever the machine's speed: each reported figure is
 * recomputed from the others and from the analytical FLOPs, so a wrong formula, a wrong shape or a mixed-up
 * cell fails even though every single value is "plausible".
 */
import { expect } from 'vitest';
import type { BenchmarkConfig } from '../../src/benchmarking/config.js';
import type { SuiteReport } from '../../src/benchmarking/report.js';
import type { ModelConfig } from '../../src/models/model-config.js';
import { countFlops } from '../../src/profiling/index.js';

const close = (actual: number | undefined, expected: number, what: string): void => {
  expect(actual, what).toBeDefined();
  expect(
    Math.abs((actual as number) - expected) / Math.abs(expected),
    `${what}: ${actual} vs ${expected}`,
  ).toBeLessThan(1e-9);
};

const gflops = (model: ModelConfig, seqLen: number, batchSize = 1): number =>
  countFlops(model, { seqLen, batchSize }).total / 1e9;

/** Throughput row: GFLOP/s ÷ tok/s is the FLOPs per token of the cell's shape; peaks are the maxima; profiling = peak cell. */
export function expectConsistentThroughput(
  report: SuiteReport,
  config: BenchmarkConfig,
  model: ModelConfig,
): void {
  const row = report.results.find((r) => r.task === 'throughput');
  const m = row?.metrics ?? {};
  const seq0 = config.seqLens[0] as number;
  const cells: [tps: number, gflopsPerS: number, shape: string][] = [];
  for (const seq of config.seqLens.filter((l) => m[`tps_seq${l}`] !== undefined)) {
    const tps = m[`tps_seq${seq}`] as number;
    close(m[`gflops_per_s_seq${seq}`], (gflops(model, seq) * tps) / seq, `gflops_per_s_seq${seq}`);
    cells.push([tps, m[`gflops_per_s_seq${seq}`] as number, `seq=${seq},batch=1`]);
  }
  for (const batch of config.batchSizes.filter((b) => m[`tps_bs${b}`] !== undefined)) {
    const tps = m[`tps_bs${batch}`] as number;
    close(
      m[`gflops_per_s_bs${batch}`],
      (gflops(model, seq0, batch) * tps) / (seq0 * batch),
      `gflops_per_s_bs${batch}`,
    );
    cells.push([tps, m[`gflops_per_s_bs${batch}`] as number, `seq=${seq0},batch=${batch}`]);
  }
  expect(cells.length, 'completed throughput cells').toBeGreaterThanOrEqual(2);
  expect(m['tps_bs1'], 'tps_bs1 is the tps_seq{seqLens[0]} cell').toBe(m[`tps_seq${seq0}`]);
  const peak = cells.reduce((a, b) => (b[0] > a[0] ? b : a));
  expect(m['peak_tps']).toBe(peak[0]);
  expect(m['peak_gflops_per_s']).toBe(Math.max(...cells.map((c) => c[1])));
  // The row's profiling and FLOPs describe the peak cell, as meta says.
  expect(row?.meta?.['profiling_cell']).toBe(peak[2]);
  expect(row?.meta?.['flops_shape']).toBe(peak[2]);
  const [seq, batch] = peak[2].split(',').map((kv) => Number(kv.split('=')[1])) as [number, number];
  expect(row?.flops?.total).toBe(countFlops(model, { seqLen: seq, batchSize: batch }).total);
  close(row?.profiling?.throughputTps, peak[0], 'profiling.throughputTps');
  close(row?.profiling?.meanMs, (1000 * seq * batch) / peak[0], 'profiling.meanMs');
}

/** Latency row (ar): decode_tps = 1000 / decode_mean_ms, e2e = ttft + (genTokens − 1)·tpot, ordered percentiles. */
export function expectConsistentLatency(
  report: SuiteReport,
  config: BenchmarkConfig,
  model: ModelConfig,
): void {
  const row = report.results.find((r) => r.task === 'latency');
  const m = row?.metrics ?? {};
  const prompt = config.seqLens.filter((l) => l <= model.maxContext).at(-1) as number;
  expect(row?.meta?.['profiling_cell']).toBe(`prefill@${prompt}`);
  expect(row?.flops?.total).toBe(countFlops(model, { seqLen: prompt, batchSize: 1 }).total);
  close(row?.profiling?.meanMs, m['prefill_mean_ms'] as number, 'profiling.meanMs = prefill_mean_ms');
  close(m['decode_tps'], 1000 / (m['decode_mean_ms'] as number), 'decode_tps');
  close(
    m['e2e_ms'],
    (m['ttft_ms'] as number) + (config.genTokens - 1) * (m['tpot_ms'] as number),
    'e2e = ttft + (n − 1)·tpot',
  );
  expect(m['prefill_p50_ms']).toBeLessThanOrEqual(m['prefill_p99_ms'] as number);
  expect(m['decode_p50_ms']).toBeLessThanOrEqual(m['decode_p99_ms'] as number);
  expect(m['ttft_ms']).toBeLessThan(m['e2e_ms'] as number);
  expect(row?.meta?.['decode_context']).toBe(Math.min(prompt, model.maxContext - config.nMeasure));
}

/** Perplexity row: perplexity = e^loss, bits/token = loss / ln 2, and the scored-token count of the config. */
export function expectConsistentPerplexity(report: SuiteReport, config: BenchmarkConfig): void {
  const m = report.results.find((r) => r.task === 'perplexity')?.metrics ?? {};
  const loss = m['eval_loss'] as number;
  close(m['perplexity'], Math.exp(loss), 'perplexity = exp(eval_loss)');
  close(m['bits_per_token'], loss / Math.LN2, 'bits_per_token = eval_loss / ln 2');
  expect(m['tokens_scored']).toBe(config.evalBatches * config.evalBatchSize * config.evalSeqLen);
}
