/**
 * Seeded fake runs for comparison tests: the same workload (two tasks, three timed cells) measured with
 * log-normal per-call noise, optionally slowed down by a factor. Metrics are computed from the samples the way
 * `runCell` computes them, so task metrics copy cell metrics exactly as the built-in tasks do.
 */

import { LATENCY_METRICS, PERPLEXITY_METRICS, THROUGHPUT_METRICS } from '../../../src/benchmarking/index.js';
import { SuiteReport } from '../../../src/benchmarking/report.js';
import type { BenchmarkResult, CellRecord, MetaValue } from '../../../src/benchmarking/task.js';
import { summarize } from '../../../src/profiling/index.js';
import { Rng } from '../../../src/rng.js';

export interface FakeRunOptions {
  /** Seed of the noise. */
  readonly seed: number;
  /** Every call takes `slowdown` times as long. @default 1 */
  readonly slowdown?: number;
  /** Timed calls per cell. @default 30 */
  readonly n?: number;
  /** Relative SD of the per-call noise (log scale). @default 0.05 */
  readonly noise?: number;
  /** Drop the raw samples (an older run). @default false */
  readonly withoutSamples?: boolean;
  /** Perplexity of the run. @default 12.5 */
  readonly perplexity?: number;
  /** Model identity overrides. */
  readonly modelMeta?: Record<string, MetaValue>;
  readonly runId?: string;
}

function cell(
  task: string,
  id: string,
  tokens: number,
  meanMs: number,
  rng: Rng,
  o: FakeRunOptions,
): CellRecord {
  const n = o.n ?? 30;
  const z = rng.fillNormal(new Float32Array(n));
  const samplesMs = Array.from(z, (x) => meanMs * (o.slowdown ?? 1) * Math.exp((o.noise ?? 0.05) * x));
  const s = summarize(samplesMs);
  const total = samplesMs.reduce((a, b) => a + b, 0);
  return {
    task,
    cell: id,
    phase: task === 'latency' ? 'decode' : 'prefill',
    status: 'completed',
    metrics: {
      mean_ms: s.mean,
      p50_ms: s.p50,
      p90_ms: s.p90,
      p99_ms: s.p99,
      std_ms: s.std,
      min_ms: s.min,
      max_ms: s.max,
      first_ms: s.max * 3,
      tps: (tokens * n) / (total / 1000),
      n,
    },
    ...(o.withoutSamples ? {} : { samplesMs }),
  };
}

/** A fake run of the workload. */
export function fakeRun(o: FakeRunOptions): SuiteReport {
  const rng = new Rng(o.seed);
  const t16 = cell('throughput', 'seq=16,batch=1', 16, 2, rng, o);
  const t32 = cell('throughput', 'seq=32,batch=1', 32, 3.5, rng, o);
  const d = cell('latency', 'decode@32', 1, 0.8, rng, o);
  const results: BenchmarkResult[] = [
    {
      task: 'throughput',
      status: 'completed',
      metrics: {
        tps_seq16: t16.metrics['tps'] as number,
        tps_seq32: t32.metrics['tps'] as number,
        peak_tps: Math.max(t16.metrics['tps'] as number, t32.metrics['tps'] as number),
      },
      cells: [t16, t32],
    },
    {
      task: 'latency',
      status: 'completed',
      metrics: { decode_mean_ms: d.metrics['mean_ms'] as number, decode_tps: d.metrics['tps'] as number },
      cells: [d],
    },
    {
      task: 'perplexity',
      status: 'completed',
      metrics: { perplexity: o.perplexity ?? 12.5, tokens_scored: 512 },
    },
  ];
  return new SuiteReport({
    results,
    runId: o.runId ?? `run-${o.seed}`,
    modelMeta: {
      model: 'tiny',
      paradigm: 'ar',
      params: 1000,
      dim: 64,
      engine: 'onnxruntime',
      ...o.modelMeta,
    },
    descriptors: [...THROUGHPUT_METRICS, ...LATENCY_METRICS, ...PERPLEXITY_METRICS],
  });
}
