/**
 * Seeded fake runs for comparison tests: the same workload (three tasks, three timed cells, optionally a
 * generation cell with per-generation TTFT/TPOT/E2E samples) measured with log-normal per-call noise, optionally
 * a per-run drift factor shared by every call of the run (the machine state of that run), and optionally slowed
 * down by a factor. Metrics are computed from the samples the way `runCell` and the latency task compute them, so
 * task metrics copy cell metrics exactly as the built-in tasks do.
 */

import { LATENCY_METRICS, PERPLEXITY_METRICS, THROUGHPUT_METRICS } from '../../../src/benchmarking/index.js';
import { SuiteReport } from '../../../src/benchmarking/report.js';
import type { BenchmarkResult, CellRecord, MetaValue } from '../../../src/benchmarking/task.js';
import { quantileSorted } from '../../../src/profiling/index.js';
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
  /**
   * SD of the per-run drift (log scale): every call of the run takes exp(drift·z) times as long, one z per run
   * (σ = 0.03: a log-normal run-to-run factor of about ±3%). @default 0 (no drift, no draw)
   */
  readonly drift?: number;
  /** Add a latency `generate` cell with per-generation TTFT/TPOT/E2E samples and the task's ttft/tpot/e2e. */
  readonly generation?: boolean;
  /** Drop the raw samples (an older run). @default false */
  readonly withoutSamples?: boolean;
  /** Perplexity of the run. @default 12.5 */
  readonly perplexity?: number;
  /** Model identity overrides. */
  readonly modelMeta?: Record<string, MetaValue>;
  readonly runId?: string;
}

/** The statistics `runCell` reports of a sample (a light `summarize`: the simulations build thousands of runs). */
function summarize(xs: readonly number[]) {
  const sorted = Float64Array.from(xs).sort();
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(xs.reduce((a, x) => a + (x - mean) * (x - mean), 0) / (n - 1));
  const q = (p: number) => quantileSorted(sorted, p);
  return { mean, std, min: q(0), max: q(1), p50: q(0.5), p90: q(0.9), p99: q(0.99) };
}

function cell(
  task: string,
  id: string,
  tokens: number,
  meanMs: number,
  rng: Rng,
  o: FakeRunOptions,
  factor: number,
): CellRecord {
  const n = o.n ?? 30;
  const z = rng.fillNormal(new Float32Array(n));
  const samplesMs = Array.from(z, (x) => meanMs * factor * Math.exp((o.noise ?? 0.05) * x));
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

/** A generation cell of 8 tokens: TTFT ≈ 5 ms, TPOT ≈ 1 ms, per-generation samples in `metricSamples`. */
function generationCell(rng: Rng, o: FakeRunOptions, factor: number): CellRecord {
  const n = Math.max(2, Math.round((o.n ?? 30) / 3));
  const noise = o.noise ?? 0.05;
  const zt = rng.fillNormal(new Float32Array(n));
  const zp = rng.fillNormal(new Float32Array(n));
  const ttft = Array.from(zt, (x) => 5 * factor * Math.exp(noise * x));
  const tpot = Array.from(zp, (x) => factor * Math.exp(noise * x));
  const e2e = ttft.map((t, i) => t + 7 * (tpot[i] as number));
  const s = summarize(e2e);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    task: 'latency',
    cell: 'generate@32+8',
    phase: 'generate',
    status: 'completed',
    metrics: {
      mean_ms: s.mean,
      p50_ms: s.p50,
      p99_ms: s.p99,
      n,
      ttft_ms: mean(ttft),
      tpot_ms: mean(tpot),
      e2e_ms: mean(e2e),
    },
    ...(o.withoutSamples
      ? {}
      : { samplesMs: e2e, metricSamples: { ttft_ms: ttft, tpot_ms: tpot, e2e_ms: e2e } }),
  };
}

/** A fake run of the workload. */
export function fakeRun(o: FakeRunOptions): SuiteReport {
  const rng = new Rng(o.seed);
  const factor =
    (o.slowdown ?? 1) *
    (o.drift ? Math.exp(o.drift * (rng.fillNormal(new Float32Array(1))[0] as number)) : 1);
  const t16 = cell('throughput', 'seq=16,batch=1', 16, 2, rng, o, factor);
  const t32 = cell('throughput', 'seq=32,batch=1', 32, 3.5, rng, o, factor);
  const d = cell('latency', 'decode@32', 1, 0.8, rng, o, factor);
  const g = o.generation ? generationCell(rng, o, factor) : undefined;
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
      metrics: {
        decode_mean_ms: d.metrics['mean_ms'] as number,
        decode_tps: d.metrics['tps'] as number,
        ...(g === undefined
          ? {}
          : {
              ttft_ms: g.metrics['ttft_ms'] as number,
              tpot_ms: g.metrics['tpot_ms'] as number,
              e2e_ms: g.metrics['e2e_ms'] as number,
            }),
      },
      cells: g === undefined ? [d] : [d, g],
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

/** `count` runs of one variant (seeds `seed`, `seed + 1`, …; run ids `<prefix>-1`, `<prefix>-2`, …). */
export function fakeRuns(count: number, prefix: string, o: FakeRunOptions): SuiteReport[] {
  return Array.from({ length: count }, (_, i) =>
    fakeRun({ ...o, seed: o.seed + i, runId: `${prefix}-${i + 1}` }),
  );
}
