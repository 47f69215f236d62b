import { describe, expect, it } from 'vitest';
import { calibrateOrt } from '../../../src/models/calibration/calibrate-ort.js';
import {
  type GemmShape,
  gemmDynamicQuantProbe,
  gemmFloatProbe,
  gemmNBitsProbe,
  gemmShapes,
  gemvProbe,
} from '../../../src/models/calibration/probe-graphs.js';
import { createModel } from '../../../src/models/onnx/onnx-model.js';
import { memoryFootprint } from '../../../src/profiling/index.js';

describe('calibrateOrt (real ONNX Runtime, tiny probes)', () => {
  it('times every probe or says why it could not run, and keeps the best rate per dtype', async () => {
    const seen: string[] = [];
    const cal = await calibrateOrt({
      threads: 1,
      budgetMs: 700,
      gemmSize: 64,
      streamBytes: 2 ** 20,
      onProbe: (id) => void seen.push(id),
    });
    const ids = [
      'gemm-fp32',
      'gemm-fp32-wide',
      'gemm-fp16',
      'gemm-q8-dynamic',
      'gemm-q8-dynamic-wide',
      'gemm-q8-integer',
      'gemm-q4',
      'gemm-q4-wide',
      'gemv-fp32',
      'copy',
    ];
    expect(seen).toEqual(ids);
    expect(cal.probes.map((p) => p.id)).toEqual(ids);
    for (const p of cal.probes) {
      if (p.unavailable !== undefined) expect(p.value).toBeUndefined();
      else {
        expect(p.value, p.id).toBeGreaterThan(0);
        expect(p.n, p.id).toBeGreaterThanOrEqual(3);
        expect(p.p10Ms as number).toBeLessThanOrEqual(p.medianMs as number);
      }
    }
    // fp32 MatMul, int8 and 4-bit kernels exist on every CPU build of ORT 1.30.
    for (const dtype of ['fp32', 'q8', 'q4'])
      expect(cal.ceilings.gemmGflops[dtype], dtype).toBeGreaterThan(0);
    for (const p of cal.probes.filter((p) => p.id.endsWith('-wide')))
      expect(p.value, p.id).toBeGreaterThan(0);
    // A dtype's ceiling is its best probe, whichever shape that was.
    for (const dtype of ['fp32', 'q8', 'q4']) {
      const rates = cal.probes.filter((p) => p.measures === dtype).map((p) => p.value ?? 0);
      expect(rates.length, dtype).toBeGreaterThanOrEqual(2);
      expect(cal.ceilings.gemmGflops[dtype], dtype).toBe(Math.max(...rates));
    }
    expect(cal.probes.find((p) => p.id === 'gemm-q4-wide')?.description).toBe(
      'MatMulNBits 4-bit (block 32) 16×32·32×512',
    );
    expect(cal.ceilings.bandwidthGbs).toBeGreaterThan(0);
    // A probe's rate is its work over its fast (10th-percentile) run time, not over its median.
    const work = (id: string): number => {
      const p = cal.probes.find((q) => q.id === id);
      return ((p?.value as number) * 1e9 * (p?.p10Ms as number)) / 1000;
    };
    expect(work('gemm-fp32') / gemmFloatProbe(gemmShapes(64)[0] as GemmShape, false).work).toBeCloseTo(1, 9);
    expect(work('copy') / (2 * 2 ** 20)).toBeCloseTo(1, 9);
  });

  it('probe work is what the shapes say', () => {
    const [square, wide] = gemmShapes(64);
    expect(square).toEqual({ name: 'square', m: 64, k: 64, n: 64, chain: 4 });
    expect(wide).toEqual({ name: 'wide', m: 16, k: 32, n: 512, chain: 1 });
    expect(gemmFloatProbe({ name: 'square', m: 64, k: 64, n: 64, chain: 3 }, false).work).toBe(
      2 * 64 ** 3 * 3,
    );
    for (const probe of [
      gemmFloatProbe(wide as GemmShape, false),
      gemmDynamicQuantProbe(wide as GemmShape),
      gemmNBitsProbe(wide as GemmShape),
    ]) {
      expect(probe.work, probe.id).toBe(2 * 16 * 32 * 512);
      expect(probe.feeds[0]?.dims, probe.id).toEqual([16, 32]);
      expect(probe.id, probe.id).toMatch(/-wide$/);
    }
    // A chain feeds each product's output to the next: it needs a square weight.
    expect(() => gemmFloatProbe({ name: 'odd', m: 8, k: 4, n: 8, chain: 2 }, false)).toThrow(
      /chains 2 products only when k = n \(got k = 4, n = 8\)/,
    );
    const gemv = gemvProbe(2 ** 24);
    expect(gemv.work).toBe(2 ** 24);
    expect(gemv.externalData[0]?.data.byteLength).toBe(2 ** 24);
  });
});

describe('model load memory', () => {
  it('the built-in model records its load time and a peak RSS of at least its weight bytes', async () => {
    for (const preset of ['tiny']) {
      const model = await createModel(preset, { threads: 1 });
      const load = model.info.load;
      expect(load?.ms).toBeGreaterThan(0);
      expect(load?.peakRssBytes).toBeGreaterThanOrEqual(memoryFootprint(model.config).weightBytes);
      await model.dispose();
    }
  });
});
