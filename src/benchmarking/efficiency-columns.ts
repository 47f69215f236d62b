/**
 * Efficiency columns of a report: MFU and MBU of a task's cells against the run's calibrated ceilings (and the
 * theoretical peak when known), the roofline coordinates of every timed cell, the process's peak RSS while the
 * task ran, and the model's load cost and ceilings as identity columns.
 *
 * @packageDocumentation
 */
import type { Model } from '../models/model.js';
import { modelFootprint } from '../models/model-footprint.js';
import {
  arithmeticIntensity,
  bytesPerCall,
  type Ceilings,
  type MemoryFootprint,
  modelBandwidthUtilisation,
  modelFlopsUtilisation,
} from '../profiling/index.js';
import type { Calibration } from './calibration.js';
import type { BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from './task.js';

const ratio = (key: string, description: string): MetricDescriptor => ({
  key,
  unit: '1',
  description,
  higherIsBetter: true,
});

/** Descriptors of the efficiency columns (part of the standard columns every row may carry). */
export const EFFICIENCY_COLUMNS: readonly MetricDescriptor[] = [
  ratio(
    'mfu',
    "Model FLOP utilisation of the row's profiling cell (throughput: its peak cell; latency: the prefill): analytical FLOPs per call ÷ mean call time ÷ the calibrated GEMM ceiling of the model's dtype. Absent, with meta `mfu_unavailable` saying why, when there is no ceiling.",
  ),
  ratio(
    'mfu_theoretical',
    'Like `mfu`, against the theoretical peak (cores × clock × FLOPs per cycle from the ISA flags) instead of the calibrated ceiling; absent when the peak is unknown.',
  ),
  ratio(
    'mbu',
    "Model bandwidth utilisation of the decode cell: bytes a step must read (active weights of the model's dtype + KV cache at its context, from memoryFootprint) ÷ mean step time ÷ the calibrated memory bandwidth.",
  ),
  ratio('mfu_seq{L}', 'MFU of the `tps_seq{L}` cell: `gflops_per_s_seq{L}` ÷ the calibrated GEMM ceiling.'),
  ratio('mfu_bs{B}', 'MFU of the `tps_bs{B}` cell: `gflops_per_s_bs{B}` ÷ the calibrated GEMM ceiling.'),
  {
    key: 'intensity_seq{L}',
    unit: 'FLOP/byte',
    description:
      'Arithmetic intensity of the `tps_seq{L}` cell: analytical FLOPs per call ÷ bytes it must move (weights once + KV cache written); the roofline x axis.',
  },
  {
    key: 'intensity_bs{B}',
    unit: 'FLOP/byte',
    description: 'Arithmetic intensity of the `tps_bs{B}` cell (see `intensity_seq{L}`).',
  },
  {
    key: 'gflops_per_s_prefill',
    unit: 'GFLOP/s',
    description: "Achieved compute of the latency task's prefill cell: analytical FLOPs / mean call time.",
    higherIsBetter: true,
  },
  {
    key: 'intensity_prefill',
    unit: 'FLOP/byte',
    description: "Arithmetic intensity of the latency task's prefill cell.",
  },
  {
    key: 'gflops_per_s_decode',
    unit: 'GFLOP/s',
    description:
      'Achieved compute of the decode cell: analytical decode-step FLOPs at its context / mean step time.',
    higherIsBetter: true,
  },
  {
    key: 'intensity_decode',
    unit: 'FLOP/byte',
    description:
      'Arithmetic intensity of the decode cell: step FLOPs ÷ bytes it must read (weights + KV cache).',
  },
  {
    key: 'peak_rss_mb',
    unit: 'MiB',
    description:
      'Peak resident memory of the process while the task ran (Linux: VmHWM reset at the task start; elsewhere the process peak so far), in MiB (2²⁰ bytes).',
    higherIsBetter: false,
  },
];

const MIB = 2 ** 20;

/**
 * The ceiling key of a model's dtype: the dtype-table name (`fp32`, `fp16`, `q8`, `q4`…), with the raw tensor
 * types `float32`, `float16`, `int8` and `uint8` mapped to `fp32`, `fp16` and `q8`.
 */
export function ceilingDtype(dtype: string): string {
  const aliases: Readonly<Record<string, string>> = {
    float32: 'fp32',
    float16: 'fp16',
    int8: 'q8',
    uint8: 'q8',
  };
  return aliases[dtype] ?? dtype;
}

/** Mean call time of a completed cell in seconds (NaN otherwise). */
const seconds = (cell: CellRecord): number =>
  cell.status === 'completed' ? (cell.metrics['mean_ms'] ?? Number.NaN) / 1000 : Number.NaN;

/** The run's efficiency inputs. */
export interface EfficiencyInputs {
  /** The benchmarked model (config, dtype). */
  readonly model: Model;
  /** The run's calibration, when it has one. */
  readonly calibration?: Calibration | undefined;
  /** Peak RSS of the process while the task ran, in bytes. */
  readonly peakRssBytes?: number;
  /** Without a calibration: why, recorded as `mfu_unavailable` / `mbu_unavailable` on rows that time calls. */
  readonly unavailable?: string;
}

/**
 * `result` with the efficiency columns of {@link EFFICIENCY_COLUMNS} added to its metrics, and `mfu_unavailable`
 * / `mbu_unavailable` to its meta when the calibration has no ceiling for a ratio. Without a calibration only
 * `peak_rss_mb` is added, and `inputs.unavailable` as both reasons on a row that timed calls with FLOPs.
 */
export function withEfficiency(result: BenchmarkResult, inputs: EfficiencyInputs): BenchmarkResult {
  const { model } = inputs;
  const rss = inputs.peakRssBytes === undefined ? {} : { peak_rss_mb: inputs.peakRssBytes / MIB };
  if (inputs.calibration === undefined) {
    const timed = (result.cells ?? []).some((c) => c.status === 'completed' && c.flops !== undefined);
    const reason = inputs.unavailable;
    return {
      ...result,
      metrics: { ...result.metrics, ...rss },
      ...(reason === undefined || !timed
        ? {}
        : { meta: { ...(result.meta ?? {}), mfu_unavailable: reason, mbu_unavailable: reason } }),
    };
  }
  const dtype = ceilingDtype(model.info.dtype);
  const calibrated: Ceilings | undefined = inputs.calibration?.ceilings;
  const theory: Ceilings | undefined = inputs.calibration?.theoretical?.ceilings;
  // The bytes a call reads: the weights, the LM head and the KV cache as the engine holds them at run time.
  const footprint: MemoryFootprint = modelFootprint(model);
  const metrics: Record<string, number> = { ...result.metrics };
  const meta: Record<string, MetaValue> = { ...(result.meta ?? {}) };
  const cells = (result.cells ?? []).filter((c) => c.status === 'completed');
  const intensity = (c: CellRecord): number | undefined =>
    c.flops === undefined
      ? undefined
      : arithmeticIntensity(c.flops.total, bytesPerCall(footprint, c.seqLen ?? 0, c.batch ?? 1));

  for (const [key, value] of Object.entries(result.metrics)) {
    const m = /^gflops_per_s_(seq|bs)(\d+)$/.exec(key);
    if (m === null) continue;
    const u = modelFlopsUtilisation(value * 1e9, 1, dtype, calibrated);
    if ('value' in u) metrics[`mfu_${m[1]}${m[2]}`] = u.value;
    const n = Number(m[2]);
    const cell = cells.find(
      (c) => c.phase === 'prefill' && (m[1] === 'seq' ? c.seqLen === n && c.batch === 1 : c.batch === n),
    );
    const ai = cell === undefined ? undefined : intensity(cell);
    if (ai !== undefined) metrics[`intensity_${m[1]}${m[2]}`] = ai;
  }

  const profiled = cells.find((c) => c.cell === result.meta?.['profiling_cell'] && c.flops !== undefined);
  if (profiled?.flops !== undefined) {
    const u = modelFlopsUtilisation(profiled.flops.total, seconds(profiled), dtype, calibrated);
    if ('value' in u) metrics['mfu'] = u.value;
    else meta['mfu_unavailable'] = u.unavailable;
    const t = modelFlopsUtilisation(profiled.flops.total, seconds(profiled), dtype, theory);
    if ('value' in t) metrics['mfu_theoretical'] = t.value;
  }
  const decode = cells.find((c) => c.phase === 'decode');
  if (decode !== undefined) {
    const bytes = bytesPerCall(footprint, decode.seqLen ?? 0, decode.batch ?? 1);
    const u = modelBandwidthUtilisation(bytes, seconds(decode), calibrated);
    if ('value' in u) metrics['mbu'] = u.value;
    else meta['mbu_unavailable'] = u.unavailable;
  }
  // Roofline points of rows without a sweep (the latency task): its prefill and decode cells.
  const swept = Object.keys(result.metrics).some((k) => k.startsWith('gflops_per_s_'));
  const points = swept ? [decode] : [profiled?.phase === 'prefill' ? profiled : undefined, decode];
  for (const cell of points) {
    if (cell?.flops === undefined) continue;
    metrics[`gflops_per_s_${cell.phase}`] = cell.flops.total / 1e9 / seconds(cell);
    const ai = intensity(cell);
    if (ai !== undefined) metrics[`intensity_${cell.phase}`] = ai;
  }
  return { ...result, metrics: { ...metrics, ...rss }, ...(Object.keys(meta).length > 0 ? { meta } : {}) };
}

/**
 * Identity columns of a run's model beyond its architecture: load time and peak RSS of its creation
 * (`model_load_ms`, `model_load_peak_rss_mb`) and the run's ceilings (`ceiling_gflops_<dtype>`,
 * `ceiling_bandwidth_gbs`, calibrated), which the roofline chart draws.
 */
export function efficiencyIdentity(
  model: Model,
  calibration: Calibration | undefined,
): Record<string, MetaValue> {
  const load = model.info.load;
  const out: Record<string, MetaValue> =
    load === undefined ? {} : { model_load_ms: load.ms, model_load_peak_rss_mb: load.peakRssBytes / MIB };
  if (calibration !== undefined) {
    for (const [dtype, gflops] of Object.entries(calibration.ceilings.gemmGflops))
      out[`ceiling_gflops_${dtype}`] = gflops ?? null;
    out['ceiling_bandwidth_gbs'] = calibration.ceilings.bandwidthGbs ?? null;
    // One calibration serves every engine: say whose kernels set the ceilings.
    out['ceilings_probed_with'] = `${calibration.fingerprint.engine} kernels`;
  }
  return out;
}
