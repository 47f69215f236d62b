/**
 * Efficiency against a machine's limits: model FLOP utilisation (MFU), model bandwidth utilisation (MBU), the bytes
 * a call must move, arithmetic intensity, and the theoretical peak of a CPU from its ISA flags. Pure arithmetic:
 * the ceilings themselves are measured elsewhere (`dantinox calibrate`).
 *
 * @packageDocumentation
 */
import { messages } from '../messages.js';
import type { MemoryFootprint } from './memory.js';

/**
 * The limits a measurement is compared against: dense GEMM throughput per weight dtype (GFLOP/s; for integer
 * kernels giga-operations per second, one multiply-add = 2) and weight-streaming bandwidth (GB/s, 10⁹ bytes).
 */
export interface Ceilings {
  /** Where the numbers come from: measured on this machine, or cores × frequency × FLOPs per cycle. */
  readonly source: 'calibrated' | 'theoretical';
  /** Dense GEMM ceiling in GFLOP/s by weight dtype (`fp32`, `fp16`, `q8`, `q4`); a missing dtype has none. */
  readonly gemmGflops: Readonly<Partial<Record<string, number>>>;
  /** Memory bandwidth in GB/s at which the engine streams weights; absent when unknown. */
  readonly bandwidthGbs?: number;
}

/** A ratio, or why it cannot be given. */
export type Utilisation =
  | {
      /** The ratio (dimensionless). */
      readonly value: number;
    }
  | {
      /** Why there is no ratio (e.g. no calibrated ceiling for the dtype). */
      readonly unavailable: string;
    };

/**
 * Model FLOP utilisation (dimensionless, 0–1 for a sane ceiling): achieved FLOP/s (`flops` per call ÷ `seconds`
 * per call) ÷ the GEMM ceiling of `dtype` in `ceilings`.
 */
export function modelFlopsUtilisation(
  flops: number,
  seconds: number,
  dtype: string,
  ceilings: Ceilings | undefined,
): Utilisation {
  if (ceilings === undefined) return { unavailable: messages.noCeilings() };
  const peak = ceilings.gemmGflops[dtype];
  if (peak === undefined || !(peak > 0)) {
    return {
      unavailable: messages.noGemmCeiling(ceilings.source, dtype, Object.keys(ceilings.gemmGflops)),
    };
  }
  if (!(seconds > 0)) return { unavailable: messages.noCallTime() };
  return { value: flops / seconds / 1e9 / peak };
}

/**
 * Model bandwidth utilisation (dimensionless): `bytes` a call must read ÷ `seconds` per call ÷ the bandwidth
 * ceiling in `ceilings`.
 */
export function modelBandwidthUtilisation(
  bytes: number,
  seconds: number,
  ceilings: Ceilings | undefined,
): Utilisation {
  if (ceilings === undefined) return { unavailable: messages.noCeilings() };
  const bw = ceilings.bandwidthGbs;
  if (bw === undefined || !(bw > 0)) return { unavailable: messages.noBandwidthCeiling(ceilings.source) };
  if (!(seconds > 0)) return { unavailable: messages.noCallTime() };
  return { value: bytes / seconds / 1e9 / bw };
}

/**
 * Bytes one call must move from memory, in bytes: the active weights once (every call reads each weight it uses)
 * plus the KV cache of `batch` sequences of `context` tokens (read by a decode step, written by a prefill).
 * Activations are not counted: at the shapes benchmarked they stay in cache or are small beside the weights.
 */
export function bytesPerCall(footprint: MemoryFootprint, context: number, batch = 1): number {
  return footprint.activeWeightBytes + batch * context * footprint.kvBytesPerToken;
}

/** Arithmetic intensity in FLOPs per byte: `flops` ÷ `bytes` (the roofline chart's x axis). */
export function arithmeticIntensity(flops: number, bytes: number): number {
  return bytes > 0 ? flops / bytes : Number.NaN;
}

/**
 * Attainable GFLOP/s of the roofline model at `intensity` FLOPs/byte: min(GEMM ceiling, intensity × bandwidth).
 */
export function rooflineGflops(intensity: number, gemmGflops: number, bandwidthGbs: number): number {
  return Math.min(gemmGflops, intensity * bandwidthGbs);
}

/** Inputs of {@link theoreticalCeilings}. */
export interface TheoreticalPeakInput {
  /** ISA flags as `/proc/cpuinfo` spells them (`avx2`, `fma`, `avx512f`, `avx512_vnni`, `amx_int8`, `asimd`…). */
  readonly flags: readonly string[];
  /** Cores doing the work (the engine's threads, capped at the physical cores). */
  readonly cores: number;
  /** Sustained clock frequency in GHz; the peak is unknown without it. */
  readonly ghz: number | undefined;
}

/**
 * FLOPs per cycle per core for fp32 from the widest vector FMA the flags announce, assuming two FMA pipes
 * (Zen 4/5, most server Intel cores): 2 pipes × lanes × 2 FLOPs.
 */
export function fp32FlopsPerCycle(flags: readonly string[]): number | undefined {
  const has = (f: string): boolean => flags.includes(f);
  if (has('avx512f')) return 2 * 16 * 2;
  if (has('avx2') && has('fma')) return 2 * 8 * 2;
  if (has('avx')) return 8 * 2;
  if (has('asimd') || has('neon')) return 2 * 4 * 2;
  if (has('sse4_2')) return 4 * 2;
  return undefined;
}

/**
 * The theoretical peak of a CPU (labelled `theoretical`): cores × GHz × FLOPs per cycle for fp32
 * ({@link fp32FlopsPerCycle}), and for `q8` 4× that with VNNI dot products (`avx512_vnni`, `avx_vnni`, `asimddp`,
 * 4 int8 multiply-adds per fp32 lane) or 2048 ops per cycle with AMX int8 tiles. `undefined` when the frequency or
 * the vector unit is unknown: never a guessed number.
 */
export function theoreticalCeilings(input: TheoreticalPeakInput): Ceilings | undefined {
  const perCycle = fp32FlopsPerCycle(input.flags);
  if (perCycle === undefined || input.ghz === undefined || !(input.ghz > 0) || !(input.cores >= 1))
    return undefined;
  const scale = input.cores * input.ghz;
  const has = (f: string): boolean => input.flags.includes(f);
  const gemm: Record<string, number> = { fp32: scale * perCycle };
  if (has('amx_int8')) gemm['q8'] = scale * 2048;
  else if (has('avx512_vnni') || has('avx_vnni') || has('asimddp')) gemm['q8'] = scale * perCycle * 4;
  return { source: 'theoretical', gemmGflops: gemm };
}
