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

/** One segment of a request on the timeline, with the point's thinning (every request drawn). */
const segment = (
  point: string,
  request: number,
  part: string,
  start_ms: number,
  end_ms: number,
  extra: Record<string, unknown> = {},
): ChartRow => ({
  task: 'serving_timeline',
  point,
  request,
  lane: request,
  measured: true,
  part,
  start_ms,
  end_ms,
  requests: 2,
  shown: 2,
  every: 1,
  model: 'mock',
  ...extra,
});

/**
 * Timelines of two points: at concurrency 1, request 0 (TTFT 10 ms, chunks at 10, 12 and 16 ms of 1, 1 and 2
 * tokens: ITL 2 ms, then 2 ms twice) and request 1 (queued 5 ms, then failed after 3 ms); at concurrency 4, a warm-up
 * request and a measured one, every other of 4 drawn.
 */
export const SERVING_TIMELINE: ChartRow[] = [
  segment('concurrency=1,rate=inf', 0, 'ttft', 0, 10),
  segment('concurrency=1,rate=inf', 0, 'decode', 10, 12, { itl_ms: 2, tokens: 1 }),
  segment('concurrency=1,rate=inf', 0, 'decode', 12, 16, { itl_ms: 2, tokens: 2 }),
  segment('concurrency=1,rate=inf', 1, 'queue', 16, 21),
  segment('concurrency=1,rate=inf', 1, 'failed', 21, 24),
  ...[
    segment('concurrency=4,rate=inf', 0, 'ttft', 0, 30, { measured: false }),
    segment('concurrency=4,rate=inf', 0, 'decode', 30, 38, { itl_ms: 8, tokens: 1, measured: false }),
    segment('concurrency=4,rate=inf', 2, 'ttft', 1, 25, { lane: 1 }),
    segment('concurrency=4,rate=inf', 2, 'decode', 25, 29, { itl_ms: 4, tokens: 1, lane: 1 }),
  ].map((r) => ({ ...r, requests: 4, shown: 2, every: 2 })),
];
