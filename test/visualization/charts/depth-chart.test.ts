import { describe, expect, it } from 'vitest';
import { isVegaLiteSpec } from '../../../src/visualization/chart.js';
import { DepthChart, depthPoints } from '../../../src/visualization/charts/depth-chart.js';
import { renderSvg } from '../../../src/visualization/render.js';

/** A latency row of a depth sweep: decode 2 ms at depth 0, 3 ms at 1000; prefill of 64 tokens 10 ms and 20 ms. */
const row = {
  model: 'small',
  task: 'latency',
  status: 'completed',
  dtype: 'fp32',
  decode_ms_d0: 2,
  decode_tps_d0: 500,
  decode_ms_d1000: 3,
  decode_tps_d1000: 1000 / 3,
  decode_depth_intercept_ms: 2,
  decode_depth_slope_us: 1, // 1 µs per token of depth → 3 ms at 1000
  decode_gflop_d0: 0.2,
  decode_mib_d0: 100,
  decode_gflop_d1000: 0.25,
  decode_mib_d1000: 150,
  prefill_ms_d0: 10,
  prefill_tps_d0: 6400,
  prefill_ms_d1000: 20,
  prefill_tps_d1000: 3200,
  ceiling_gflops_fp32: 400,
  ceiling_bandwidth_gbs: 2 ** 20 / 1e4, // 100 MiB in 1 ms
};

describe('DepthChart', () => {
  it('gives measured, fitted and roofline points by hand', () => {
    const points = depthPoints(row, 'small');
    const at = (line: string, kind: string, depth: number) =>
      points.find((p) => p.line === line && p.kind === kind && p.depth === depth)?.tps;
    expect(at('small · decode', 'measured', 1000)).toBeCloseTo(1000 / 3, 9);
    expect(at('small · decode', 'fitted line', 1000)).toBeCloseTo(1000 / 3, 9);
    // Roofline: max(0.2 GFLOP / 400 GFLOP/s = 0.5 ms, 100 MiB / bandwidth = 1 ms) → 1 token per ms.
    expect(at('small · decode', 'roofline bound', 0)).toBeCloseTo(1000, 6);
    expect(at('small · decode', 'roofline bound', 1000)).toBeCloseTo(1000 / 1.5, 6);
    // Prefill: 64 tokens per call (from tok/s × ms); no fit columns → no fitted line; no FLOPs → no bound.
    expect(at('small · prefill', 'measured', 0)).toBe(6400);
    expect(points.filter((p) => p.line === 'small · prefill' && p.kind !== 'measured')).toEqual([]);
  });

  it('renders a layered spec, and says what is missing when no row has a depth', async () => {
    const spec = new DepthChart().spec([row]);
    expect(isVegaLiteSpec(spec)).toBe(true);
    const svg = await renderSvg(spec);
    expect(svg).toContain('Throughput vs context depth');
    expect(() => new DepthChart().spec([{ model: 'x', decode_tps: 3 }])).toThrow(/\{phase\}_tps_d\{D\}/);
  });
});
