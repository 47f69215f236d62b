/** Report rows of `--target node,browser` on one model at 2 threads, plus a browser run at 1 thread (no twin). */
import type { ChartRow } from '../../src/visualization/chart-data.js';

/** The rows: tiny-node (2 threads), tiny-browser (2 asked, 2 used), tiny-browser-t1 (1 asked: no Node twin). */
export function parityRows(): ChartRow[] {
  const common = { model: 'tiny', dtype: 'fp32', head_dtype: 'fp32', status: 'completed' };
  return [
    { ...common, variant: 'tiny-node', task: 'throughput', threads: 2, peak_tps: 1000 },
    { ...common, variant: 'tiny-node', task: 'latency', threads: 2, decode_tps: 200, prefill_mean_ms: 4 },
    {
      ...common,
      variant: 'tiny-browser',
      task: 'throughput',
      target: 'browser',
      threads: 2,
      threads_asked: 2,
      peak_tps: 500,
    },
    {
      ...common,
      variant: 'tiny-browser',
      task: 'latency',
      target: 'browser',
      threads: 2,
      threads_asked: 2,
      decode_tps: 80,
      prefill_mean_ms: 9,
    },
    {
      ...common,
      variant: 'tiny-browser-t1',
      task: 'latency',
      target: 'browser',
      threads: 1,
      threads_asked: 1,
      decode_tps: 50,
    },
  ];
}
