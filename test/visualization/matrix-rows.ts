/**
 * A 6-variant benchmark matrix as plain rows (dtype fp32 / q8 / q4 × engine ort / llama.cpp, gpt2-small, 2
 * threads): one throughput, latency, perplexity and kld row per variant, with the keys and magnitudes the suite
 * writes (a calibrated run: `ceiling_gflops_{fp32,q8,q4}`, `ceiling_bandwidth_gbs`). The two engines of one
 * dtype are within about 10% of each other, so their roofline points sit close together.
 */
import type { ChartRow } from '../../src/visualization/chart-data.js';

/** Per dtype: arithmetic intensities (FLOPs / byte) and ort's speed; llama.cpp is `engineFactor` of it. */
const DTYPES = [
  {
    dtype: 'fp32',
    seq128: 119.5,
    seq512: 470.1,
    decode: 0.5,
    prefillGflops: 91.4,
    decodeMs: 27.1,
    kld: 0,
    top1: 1,
  },
  {
    dtype: 'q8',
    seq128: 470.2,
    seq512: 1805.3,
    decode: 2.0,
    prefillGflops: 204.7,
    decodeMs: 7.42,
    kld: 6.12e-4,
    top1: 0.9834,
  },
  {
    dtype: 'q4',
    seq128: 738.4,
    seq512: 2811.6,
    decode: 3.1,
    prefillGflops: 121.9,
    decodeMs: 4.63,
    kld: 0.02841,
    top1: 0.8827,
  },
] as const;

const ENGINES = [
  { engine: 'ort', label: 'onnxruntime-node 1.30.0 (cpu)', factor: 1 },
  { engine: 'llama.cpp', label: 'node-llama-cpp 3.21.1 (cpu)', factor: 1.09 },
] as const;

/** FLOPs of one 128-token forward of gpt2-small, in GFLOPs. */
const FORWARD_G = 31.86;
const PARAMS = 124_439_808;

/** The matrix rows: for each dtype × engine, its throughput, latency, perplexity and kld rows. */
export function matrixRows(): ChartRow[] {
  const rows: ChartRow[] = [];
  for (const d of DTYPES) {
    for (const e of ENGINES) {
      const variant = `gpt2-small-${e.engine}-${d.dtype}-t2`;
      const identity = {
        variant,
        model: 'gpt2-small',
        paradigm: 'ar',
        params: PARAMS,
        engine: e.label,
        threads: 2,
        dtype: d.dtype,
        run_id: variant,
        ceiling_gflops_fp32: 373.9,
        ceiling_gflops_q8: 1210.4,
        ceiling_gflops_q4: 288.5,
        ceiling_bandwidth_gbs: 18.63,
      };
      const prefill = d.prefillGflops * e.factor;
      const prefillMs = (FORWARD_G / prefill) * 1000;
      const decodeMs = d.decodeMs / e.factor;
      rows.push({
        ...identity,
        task: 'throughput',
        status: 'completed',
        tps_seq128: (128 / prefillMs) * 1000,
        tps_seq512: (512 / prefillMs) * 1000 * 0.93,
        tps_bs1: (128 / prefillMs) * 1000,
        tps_bs4: (512 / prefillMs) * 1000 * 1.04,
        peak_tps: (512 / prefillMs) * 1000 * 1.04,
        throughput_tps: (512 / prefillMs) * 1000 * 1.04,
        gflops_per_s_seq128: prefill,
        gflops_per_s_seq512: prefill * 0.93 * 1.05,
        gflops_per_s_bs4: prefill * 1.04,
        intensity_seq128: d.seq128,
        intensity_seq512: d.seq512,
        intensity_bs4: d.seq512 * 1.02,
        mfu: prefill / (d.dtype === 'fp32' ? 373.9 : d.dtype === 'q8' ? 1210.4 : 288.5),
      });
      rows.push({
        ...identity,
        task: 'latency',
        status: 'completed',
        prefill_mean_ms: prefillMs,
        prefill_p50_ms: prefillMs * 0.98,
        prefill_p99_ms: prefillMs * 1.21,
        decode_mean_ms: decodeMs,
        decode_p50_ms: decodeMs * 0.97,
        decode_p99_ms: decodeMs * 1.38,
        decode_tps: 1000 / decodeMs,
        ttft_ms: prefillMs * 1.01,
        tpot_ms: decodeMs * 1.02,
        e2e_ms: prefillMs + 120 * decodeMs,
        peak_rss_mb: d.dtype === 'fp32' ? 712.4 : d.dtype === 'q8' ? 298.1 : 231.7,
        throughput_tps: (128 / prefillMs) * 1000,
        flops_total_g: FORWARD_G,
        gflops_per_s_prefill: prefill * 1.01,
        intensity_prefill: d.seq128,
        gflops_per_s_decode: (0.2489 / decodeMs) * 1000,
        intensity_decode: d.decode,
        mbu: 0.81 * e.factor,
      });
      rows.push({
        ...identity,
        task: 'perplexity',
        status: 'completed',
        perplexity: 29.41 * (1 + d.kld * 3),
        eval_loss: Math.log(29.41 * (1 + d.kld * 3)),
        bits_per_byte: 1.1874 * (1 + d.kld),
        tokens_scored: 4096,
      });
      rows.push({
        ...identity,
        task: 'kld',
        status: 'completed',
        kld_mean: d.kld * e.factor,
        kld_median: d.kld * 0.61,
        kld_p99: d.kld * 7.3,
        kld_max: d.kld * 19.2,
        top1_agreement: d.top1,
        ppl_ratio: 1 + d.kld * 3,
        reference_perplexity: 29.41,
        tokens_scored: 2048,
        reference: 'gpt2-small (reference) (fp32)',
      });
    }
  }
  return rows;
}
