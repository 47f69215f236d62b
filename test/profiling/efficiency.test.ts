import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import {
  arithmeticIntensity,
  bytesPerCall,
  type Ceilings,
  fp32FlopsPerCycle,
  memoryFootprint,
  modelBandwidthUtilisation,
  modelFlopsUtilisation,
  rooflineGflops,
  theoreticalCeilings,
} from '../../src/profiling/index.js';

const ceilings: Ceilings = { source: 'calibrated', gemmGflops: { fp32: 250, q8: 1000 }, bandwidthGbs: 40 };

describe('MFU and MBU', () => {
  it('known answers: 50 GFLOP in 1 s against 250 GFLOP/s is 0.2; 20 GB in 1 s against 40 GB/s is 0.5', () => {
    expect(modelFlopsUtilisation(50e9, 1, 'fp32', ceilings)).toEqual({ value: 0.2 });
    expect(modelFlopsUtilisation(50e9, 0.1, 'q8', ceilings)).toEqual({ value: 0.5 });
    expect(modelBandwidthUtilisation(20e9, 1, ceilings)).toEqual({ value: 0.5 });
  });

  it('says why instead of inventing a number', () => {
    expect(modelFlopsUtilisation(1, 1, 'fp32', undefined)).toEqual({ unavailable: messages.noCeilings() });
    expect(modelFlopsUtilisation(1, 1, 'q4', ceilings)).toEqual({
      unavailable: messages.noGemmCeiling('calibrated', 'q4', ['fp32', 'q8']),
    });
    expect(modelFlopsUtilisation(1, 0, 'fp32', ceilings)).toEqual({ unavailable: messages.noCallTime() });
    expect(modelBandwidthUtilisation(1, 1, { source: 'theoretical', gemmGflops: {} })).toEqual({
      unavailable: messages.noBandwidthCeiling('theoretical'),
    });
  });

  it('a ceiling or a call time of zero, negative or NaN is no ceiling, never a division by it', () => {
    for (const bad of [0, -5, Number.NaN]) {
      const c = { source: 'calibrated' as const, gemmGflops: { fp32: bad }, bandwidthGbs: bad };
      expect(modelFlopsUtilisation(1e9, 1, 'fp32', c)).toEqual({
        unavailable: messages.noGemmCeiling('calibrated', 'fp32', ['fp32']),
      });
      expect(modelBandwidthUtilisation(1e9, 1, c)).toEqual({
        unavailable: messages.noBandwidthCeiling('calibrated'),
      });
      expect(modelFlopsUtilisation(1e9, bad, 'fp32', ceilings)).toEqual({
        unavailable: messages.noCallTime(),
      });
      expect(modelBandwidthUtilisation(1e9, bad, ceilings)).toEqual({ unavailable: messages.noCallTime() });
    }
    // The smallest positive values are still numbers.
    expect(
      modelBandwidthUtilisation(4e9, 0.5, { source: 'calibrated', gemmGflops: {}, bandwidthGbs: 2 }),
    ).toEqual({
      value: 4,
    });
  });

  it('MFU is linear in FLOPs and inverse in time (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e3, max: 1e15, noNaN: true }),
        fc.double({ min: 1e-6, max: 1e3, noNaN: true }),
        fc.double({ min: 1, max: 1e5, noNaN: true }),
        (flops, s, peak) => {
          const u = modelFlopsUtilisation(flops, s, 'fp32', {
            source: 'calibrated',
            gemmGflops: { fp32: peak },
          });
          const twice = modelFlopsUtilisation(2 * flops, s, 'fp32', {
            source: 'calibrated',
            gemmGflops: { fp32: peak },
          });
          if (!('value' in u) || !('value' in twice)) return false;
          return (
            Math.abs(twice.value / u.value - 2) < 1e-12 &&
            Math.abs(u.value * peak * 1e9 * s - flops) <= 1e-9 * flops
          );
        },
      ),
    );
  });

  it('bytes per call: active weights + batch × context × KV bytes per token', () => {
    const config = ModelConfig.resolve('gpt2-small');
    const fp = memoryFootprint(config);
    // gpt2-small: 12 blocks × 12 heads × 64 × 2 (K, V) × 4 bytes = 73,728 bytes of KV cache per token.
    expect(fp.kvBytesPerToken).toBe(73_728);
    expect(bytesPerCall(fp, 512, 2)).toBe(fp.activeWeightBytes + 2 * 512 * 73_728);
    expect(arithmeticIntensity(1000, 250)).toBe(4);
    expect(arithmeticIntensity(1, 0)).toBeNaN();
  });

  it('the roofline is the smaller of the compute roof and the bandwidth slope', () => {
    expect(rooflineGflops(1, 250, 40)).toBe(40);
    expect(rooflineGflops(100, 250, 40)).toBe(250);
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e4, noNaN: true }),
        (ai) => rooflineGflops(ai, 250, 40) <= 250,
      ),
    );
  });
});

describe('theoretical peak from ISA flags', () => {
  it('counts fp32 FLOPs per cycle from the widest FMA (two pipes)', () => {
    expect(fp32FlopsPerCycle(['avx2', 'fma', 'avx512f'])).toBe(64);
    expect(fp32FlopsPerCycle(['avx2', 'fma'])).toBe(32);
    expect(fp32FlopsPerCycle(['asimd'])).toBe(16);
    expect(fp32FlopsPerCycle(['neon'])).toBe(16);
    // AVX without FMA: one 8-lane multiply and one add pipe; FMA without AVX2, or AVX2 without FMA, is that too.
    expect(fp32FlopsPerCycle(['avx'])).toBe(16);
    expect(fp32FlopsPerCycle(['avx', 'fma'])).toBe(16);
    expect(fp32FlopsPerCycle(['avx', 'avx2'])).toBe(16);
    expect(fp32FlopsPerCycle(['sse4_2'])).toBe(8);
    expect(fp32FlopsPerCycle(['sse4_1', 'fma'])).toBeUndefined();
    expect(fp32FlopsPerCycle([])).toBeUndefined();
  });

  it('is cores × GHz × FLOPs per cycle, with int8 from VNNI or AMX, and unknown without a clock', () => {
    expect(theoreticalCeilings({ flags: ['avx2', 'fma'], cores: 2, ghz: 2.5 })).toEqual({
      source: 'theoretical',
      gemmGflops: { fp32: 160 },
    });
    expect(
      theoreticalCeilings({ flags: ['avx512f', 'avx512_vnni'], cores: 2, ghz: 3.4 })?.gemmGflops,
    ).toEqual({ fp32: 2 * 3.4 * 64, q8: 2 * 3.4 * 64 * 4 });
    expect(theoreticalCeilings({ flags: ['avx512f', 'amx_int8'], cores: 1, ghz: 2 })?.gemmGflops['q8']).toBe(
      4096,
    );
    for (const flag of ['avx_vnni', 'asimddp'])
      expect(theoreticalCeilings({ flags: ['avx2', 'fma', flag], cores: 1, ghz: 1 })?.gemmGflops).toEqual({
        fp32: 32,
        q8: 128,
      });
    expect(
      theoreticalCeilings({ flags: ['avx2', 'fma', 'avx512_bf16'], cores: 1, ghz: 1 })?.gemmGflops,
    ).toEqual({
      fp32: 32,
    });
    expect(theoreticalCeilings({ flags: ['avx2', 'fma'], cores: 2, ghz: undefined })).toBeUndefined();
    for (const ghz of [0, -1, Number.NaN])
      expect(theoreticalCeilings({ flags: ['avx2', 'fma'], cores: 2, ghz })).toBeUndefined();
    for (const cores of [0, 0.5, Number.NaN])
      expect(theoreticalCeilings({ flags: ['avx2', 'fma'], cores, ghz: 3 })).toBeUndefined();
    expect(theoreticalCeilings({ flags: ['avx2', 'fma'], cores: 1, ghz: 0.001 })?.gemmGflops['fp32']).toBe(
      0.032,
    );
    expect(theoreticalCeilings({ flags: [], cores: 2, ghz: 3 })).toBeUndefined();
  });
});

describe('the bytes an MoE call moves (the MBU denominator)', () => {
  it('are the active weights — router and topK experts — not every expert, plus the KV cache', () => {
    const moe = ModelConfig.parse({
      dim: 8,
      n_heads: 2,
      num_blocks: 2,
      vocab_size: 10,
      max_context: 16,
      ffn: 'moe',
      n_experts: 4,
      top_k: 1,
    });
    const footprint = memoryFootprint(moe);
    expect(footprint.activeWeightBytes).toBeLessThan(footprint.weightBytes);
    expect(bytesPerCall(footprint, 0)).toBe(footprint.activeWeightBytes);
    expect(bytesPerCall(footprint, 5, 2)).toBe(footprint.activeWeightBytes + 10 * footprint.kvBytesPerToken);
  });
});
