import { describe, expect, it } from 'vitest';
import { calibrateOrt } from '../../../src/models/calibration/calibrate-ort.js';
import { gemmFloatProbe, gemvProbe } from '../../../src/models/calibration/probe-graphs.js';
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
      'gemm-fp16',
      'gemm-q8-dynamic',
      'gemm-q8-integer',
      'gemm-q4',
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
    const q8 = cal.probes.filter((p) => p.measures === 'q8').map((p) => p.value ?? 0);
    expect(cal.ceilings.gemmGflops['q8']).toBe(Math.max(...q8));
    expect(cal.ceilings.bandwidthGbs).toBeGreaterThan(0);
  });

  it('probe work is what the shapes say', () => {
    expect(gemmFloatProbe(64, 3, false).work).toBe(2 * 64 ** 3 * 3);
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
