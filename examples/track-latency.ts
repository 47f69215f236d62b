/**
 * Track the latency of any function with `LatencyTracker` and `profileFn`: percentiles with confidence
 * intervals, throughput in tokens per second, the first (cold) call kept apart.
 *
 * In your own project import from the package instead: `import { LatencyTracker } from 'dantinox/profiling'`.
 */
import { LatencyTracker, profileFn } from '../src/profiling/index.js';

/** A stand-in for the work you want to time: a 64 × 64 matrix product per "token". */
function work(tokens: number): number {
  const n = 64;
  const a = new Float64Array(n * n).fill(1.5);
  let sum = 0;
  for (let t = 0; t < tokens; t++) {
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) sum += a[i * n + k]! * a[k * n + j]!;
  }
  return sum;
}

/** Times `work` 40 times, first with `measure`, then through a `profileFn` wrapper, and prints the summary. */
export async function main(log: (line: string) => void = console.log): Promise<void> {
  const tracker = new LatencyTracker({ window: 10_000 }); // add `barrier: () => model.barrier()` for a model

  for (let i = 0; i < 20; i++) await tracker.measure(4, () => work(4)); // one sample of 4 tokens per call

  const timedWork = profileFn(work, tracker, { nTokens: (tokens) => tokens }); // same signature, now async
  for (let i = 0; i < 20; i++) await timedWork(4);

  const result = tracker.result();
  log(String(result));
  log(`p50 ${result.p50Ms.toFixed(3)} ms, p99 ${result.p99Ms.toFixed(3)} ms over ${result.nSamples} samples`);
  log(
    `throughput ${result.throughputTps.toFixed(0)} tokens/s; first (cold) call ${result.firstMs.toFixed(3)} ms`,
  );
}
