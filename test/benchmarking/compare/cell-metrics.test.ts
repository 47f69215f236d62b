import { describe, expect, it } from 'vitest';
import { CELL_METRICS, cellSampleStatistic } from '../../../src/benchmarking/index.js';

// Per-call samples 0, 1, 4, …, 10 000 (i² for i = 0…100): mean 3350, and the q-quantile sits exactly on sample
// 100·q, (100·q)², so that no two statistics share a value.
const samples = Float64Array.from({ length: 101 }, (_, i) => i * i);

describe('cellSampleStatistic', () => {
  it('gives the statistic of the sorted per-call samples each timing metric is', () => {
    const expected: Record<string, number> = {
      mean_ms: 3350,
      p50_ms: 2500,
      p90_ms: 8100,
      p99_ms: 9801,
      min_ms: 0,
      max_ms: 10_000,
      tps: 1 / 3350, // a constant over the mean time: the statistic is 1/mean
      gflops_per_s: 1 / 3350,
    };
    for (const [metric, value] of Object.entries(expected))
      expect(cellSampleStatistic(metric)?.(samples), metric).toBeCloseTo(value, 9);
  });

  it('has none for the metrics that are not a function of the timed samples alone', () => {
    for (const metric of ['first_ms', 'std_ms', 'n', 'ttft_ms', 'unknown'])
      expect(cellSampleStatistic(metric), metric).toBeUndefined();
  });

  it('the cell metrics with a sample statistic are exactly the eight timing ones, in table order', () => {
    const timing = CELL_METRICS.filter((m) => cellSampleStatistic(m.key) !== undefined).map((m) => m.key);
    expect(timing).toEqual([
      'mean_ms',
      'p50_ms',
      'p90_ms',
      'p99_ms',
      'min_ms',
      'max_ms',
      'tps',
      'gflops_per_s',
    ]);
  });
});

describe('which way is better, by unit', () => {
  it('every rate (…/s) is higher-is-better and every judged time (ms) lower-is-better, in every metric table', async () => {
    const { THROUGHPUT_METRICS, LATENCY_METRICS, PERPLEXITY_METRICS, KLD_METRICS } = await import(
      '../../../src/benchmarking/index.js'
    );
    const all = [
      ...CELL_METRICS,
      ...THROUGHPUT_METRICS,
      ...LATENCY_METRICS,
      ...PERPLEXITY_METRICS,
      ...KLD_METRICS,
    ];
    const rates = all.filter((d) => /\/s$/.test(d.unit));
    expect(rates.map((d) => d.key)).toEqual(
      expect.arrayContaining(['tps', 'gflops_per_s', 'peak_tps', 'decode_tps']),
    );
    for (const d of rates) expect(d.higherIsBetter, d.key).toBe(true);
    // A time is judged lower-is-better, or not judged at all (a spread, one extreme or first observation).
    for (const d of all.filter((x) => x.unit === 'ms')) expect(d.higherIsBetter, d.key).not.toBe(true);
    expect(all.find((d) => d.key === 'mean_ms')?.higherIsBetter).toBe(false);
  });
});
