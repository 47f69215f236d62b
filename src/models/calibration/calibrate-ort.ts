/**
 * Measures this machine's ceilings with ONNX Runtime at a given thread count: the probe graphs of
 * `probe-graphs.ts` (dense GEMM per weight dtype at two shapes, GEMV weight streaming over a weight much larger than
 * the last-level cache) and a plain copy, each warmed up by time and then timed over repetitions; a probe's rate is
 * that of its fast runs (the 10th-percentile time: what the kernel reaches on this machine, where the median also
 * holds the moments another process took the cores), and a dtype's ceiling the best rate of its probes.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import type { InferenceSession } from 'onnxruntime-node';
import { type Ceilings, type Clock, hrtimeClock, quantileSorted } from '../../profiling/index.js';
import { loadOrt } from '../engines/ort/index.js';
import {
  fillUniform,
  type GemmShape,
  gemmDynamicQuantProbe,
  gemmFloatProbe,
  gemmIntegerProbe,
  gemmNBitsProbe,
  gemmShapes,
  gemvProbe,
  type ProbeGraph,
} from './probe-graphs.js';

/** The result of one probe: its rate, or why it could not run. */
export interface ProbeResult {
  /**
   * Probe id (`gemm-fp32`, `gemm-fp32-wide`, `gemm-fp16`, `gemm-q8-dynamic`, `gemm-q8-dynamic-wide`,
   * `gemm-q8-integer`, `gemm-q4`, `gemm-q4-wide`, `gemv-fp32`, `copy`).
   */
  readonly id: string;
  /** Weight dtype whose GEMM ceiling it measures, or `bandwidth`. */
  readonly measures: string;
  /** What was run, with its shape. */
  readonly description: string;
  /** Unit of `value`: `GFLOP/s` for GEMM probes (integer ops for int8/4-bit), `GB/s` for bandwidth. */
  readonly unit: 'GFLOP/s' | 'GB/s';
  /** Rate of the probe's fast runs: its work ÷ `p10Ms`; absent when the probe could not run. */
  readonly value?: number;
  /** Median time of one run, in ms. */
  readonly medianMs?: number;
  /** 10th percentile of the time of one run, in ms. */
  readonly p10Ms?: number;
  /** 90th percentile of the time of one run, in ms. */
  readonly p90Ms?: number;
  /** Number of timed runs. */
  readonly n?: number;
  /** Why the probe has no value (e.g. the engine has no kernel for the dtype). */
  readonly unavailable?: string;
}

/** Options of {@link calibrateOrt}. */
export interface CalibrateOrtOptions {
  /** Intra-op threads (use the benchmark's). */
  readonly threads: number;
  /** Time budget of the whole calibration in ms. @default 20000 */
  readonly budgetMs?: number;
  /** Clock of the timings. @default hrtimeClock */
  readonly clock?: Clock;
  /** Size of the GEMM probes (see `gemmShapes`). @default 1024 */
  readonly gemmSize?: number;
  /** Bytes of the GEMV weight and of each copy buffer. @default 4 × the last-level cache, within 128–256 MiB */
  readonly streamBytes?: number;
  /** Called before each probe (progress). */
  readonly onProbe?: (id: string, index: number, total: number) => void;
}

/** What {@link calibrateOrt} measured. */
export interface OrtCalibration {
  /** Every probe, in run order. */
  readonly probes: readonly ProbeResult[];
  /** The calibrated ceilings: best GEMM rate per dtype, best bandwidth (GEMV or copy). */
  readonly ceilings: Ceilings;
  /** Last-level cache size in bytes, when the OS reports it. */
  readonly llcBytes?: number;
  /** Wall time of the calibration in ms. */
  readonly durationMs: number;
}

const MIB = 2 ** 20;

/** Size of the last-level cache in bytes from sysfs (Linux), `undefined` elsewhere. */
export function lastLevelCacheBytes(): number | undefined {
  for (const index of [3, 2]) {
    try {
      const text = readFileSync(`/sys/devices/system/cpu/cpu0/cache/index${index}/size`, 'utf8').trim();
      const m = /^(\d+)([KMG]?)/.exec(text);
      if (m !== null) return Number(m[1]) * ({ '': 1, K: 1024, M: MIB, G: 1024 * MIB }[m[2] as string] ?? 1);
    } catch {
      // try the next level
    }
  }
  return undefined;
}

/** Median, p10 and p90 of the samples (linear interpolation). */
function spread(samples: number[]): { medianMs: number; p10Ms: number; p90Ms: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  return {
    medianMs: quantileSorted(s, 0.5),
    p10Ms: quantileSorted(s, 0.1),
    p90Ms: quantileSorted(s, 0.9),
    n: s.length,
  };
}

/** Runs `call` for `warmupMs` (≥ 1 call), then times it until `measureMs` passed and ≥ 3 runs. */
async function timeRuns(
  call: () => Promise<unknown> | unknown,
  clock: Clock,
  warmupMs: number,
  measureMs: number,
): Promise<number[]> {
  const ms = (from: bigint): number => Number(clock.now() - from) / 1e6;
  const w0 = clock.now();
  do await call();
  while (ms(w0) < warmupMs);
  const samples: number[] = [];
  const m0 = clock.now();
  while (samples.length < 3 || ms(m0) < measureMs) {
    const t = clock.now();
    await call();
    samples.push(ms(t));
  }
  return samples;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';

/**
 * Measures the ceilings of ONNX Runtime's CPU execution provider on this machine at `options.threads` threads,
 * within about `budgetMs`. A probe the engine cannot run (e.g. no fp16 `MatMul` kernel) is recorded with the
 * reason and gives no ceiling.
 *
 * @example
 * ```ts
 * const { ceilings } = await calibrateOrt({ threads: 2 });
 * ceilings.gemmGflops.fp32; // GFLOP/s
 * ```
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` without `onnxruntime-node`.
 */
export async function calibrateOrt(options: CalibrateOrtOptions): Promise<OrtCalibration> {
  const ort = await loadOrt();
  const clock = options.clock ?? hrtimeClock;
  const start = clock.now();
  const n = options.gemmSize ?? 1024;
  const llc = lastLevelCacheBytes();
  const stream = options.streamBytes ?? Math.min(256 * MIB, Math.max(128 * MIB, 4 * (llc ?? 0)));
  const [square, wide] = gemmShapes(n) as [GemmShape, GemmShape];
  const builders: (() => ProbeGraph)[] = [
    () => gemmFloatProbe(square, false),
    () => gemmFloatProbe(wide, false),
    () => gemmFloatProbe(square, true),
    () => gemmDynamicQuantProbe(square),
    () => gemmDynamicQuantProbe(wide),
    () => gemmIntegerProbe(n),
    () => gemmNBitsProbe(square),
    () => gemmNBitsProbe(wide),
    () => gemvProbe(stream),
  ];
  const total = builders.length + 1;
  // Each probe gets an equal part of what is left of the budget, set-up (building, session creation) included.
  const deadline = Number(start) / 1e6 + (options.budgetMs ?? 20_000);
  const window = (index: number): { warmupMs: number; measureMs: number } => {
    const share = Math.max(0, deadline - Number(clock.now()) / 1e6) / (total - index);
    return { warmupMs: share * 0.25, measureMs: share * 0.45 };
  };
  const probes: ProbeResult[] = [];
  for (const [i, build] of builders.entries()) {
    const { warmupMs, measureMs } = window(i);
    const probe = build();
    options.onProbe?.(probe.id, i, total);
    const unit = probe.measures === 'bandwidth' ? 'GB/s' : 'GFLOP/s';
    const head = { id: probe.id, measures: probe.measures, description: probe.description, unit } as const;
    let session: InferenceSession | undefined;
    try {
      const s = await ort.InferenceSession.create(probe.bytes, {
        executionProviders: ['cpu'],
        intraOpNumThreads: options.threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
        externalData: probe.externalData.map((e) => ({ path: e.path, data: e.data })),
      });
      session = s;
      const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {};
      for (const f of probe.feeds) {
        const type = ({ 1: 'float32', 10: 'float16', 2: 'uint8' } as const)[f.type as 1 | 10 | 2];
        feeds[f.name] = new ort.Tensor(type, f.data as Float32Array, [...f.dims]);
      }
      const t = spread(await timeRuns(() => s.run(feeds), clock, warmupMs, measureMs));
      probes.push({ ...head, ...t, value: probe.work / 1e9 / (t.p10Ms / 1000) });
    } catch (cause) {
      probes.push({ ...head, unavailable: `ONNX Runtime could not run it: ${messageOf(cause)}` });
    } finally {
      await session?.release();
    }
  }
  options.onProbe?.('copy', builders.length, total);
  const { warmupMs, measureMs } = window(builders.length);
  const src = fillUniform(new Float32Array(stream / 4), 1, 11);
  const dst = new Float32Array(src.length);
  const copy = spread(await timeRuns(() => dst.set(src), clock, warmupMs, measureMs));
  probes.push({
    id: 'copy',
    measures: 'bandwidth',
    description: `copy of ${(stream / MIB).toFixed(0)} MiB (TypedArray.set, 1 thread; bytes read + written)`,
    unit: 'GB/s',
    ...copy,
    value: (2 * stream) / 1e9 / (copy.p10Ms / 1000),
  });
  return {
    probes,
    ceilings: ceilingsOf(probes),
    ...(llc === undefined ? {} : { llcBytes: llc }),
    durationMs: Number(clock.now() - start) / 1e6,
  };
}

/** Calibrated ceilings from probe results: the best rate per dtype, the best bandwidth. */
export function ceilingsOf(probes: readonly ProbeResult[]): Ceilings {
  const gemm: Record<string, number> = {};
  let bandwidth: number | undefined;
  for (const p of probes) {
    if (p.value === undefined || !(p.value > 0)) continue;
    if (p.measures === 'bandwidth') bandwidth = Math.max(bandwidth ?? 0, p.value);
    else gemm[p.measures] = Math.max(gemm[p.measures] ?? 0, p.value);
  }
  return {
    source: 'calibrated',
    gemmGflops: gemm,
    ...(bandwidth === undefined ? {} : { bandwidthGbs: bandwidth }),
  };
}
