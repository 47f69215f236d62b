/** Known serving chart rows: two sweep points (concurrency 1 and 4) of one run, with their samples. */
import type { ChartRow } from '../../src/visualization/chart-data.js';

/** The sweep points: TTFT/ITL percentiles (ms) and throughputs chosen so that every value is distinct. */
export const SERVING_POINTS: ChartRow[] = [
  {
    task: 'serving_point',
    point: 'concurrency=4,rate=inf',
    concurrency: 4,
    rate: 0,
    ttft_p50_ms: 40,
    ttft_p90_ms: 60,
    ttft_p99_ms: 90,
    itl_p50_ms: 4,
    itl_p90_ms: 6,
    itl_p99_ms: 9,
    output_tps: 400,
    requests_per_s: 8,
    goodput_rps: 6,
    model: 'mock',
  },
  {
    task: 'serving_point',
    point: 'concurrency=1,rate=inf',
    concurrency: 1,
    rate: 0,
    ttft_p50_ms: 10,
    ttft_p90_ms: 15,
    ttft_p99_ms: 20,
    itl_p50_ms: 1,
    itl_p90_ms: 1.5,
    itl_p99_ms: 2,
    output_tps: 100,
    requests_per_s: 2,
    goodput_rps: 2,
    model: 'mock',
  },
];

/** Samples of the two points: TTFT per request, ITL per token. */
export const SERVING_SAMPLES: ChartRow[] = [
  ...[10, 12, 20].map((v) => ({ metric: 'ttft_ms', value_ms: v, concurrency: 1 })),
  ...[1, 2].map((v) => ({ metric: 'itl_ms', value_ms: v, concurrency: 1 })),
  ...[40, 90].map((v) => ({ metric: 'ttft_ms', value_ms: v, concurrency: 4 })),
  ...[4, 9].map((v) => ({ metric: 'itl_ms', value_ms: v, concurrency: 4 })),
].map((r) => ({
  task: 'serving_sample',
  point: `concurrency=${r.concurrency},rate=inf`,
  rate: 0,
  model: 'mock',
  ...r,
}));
