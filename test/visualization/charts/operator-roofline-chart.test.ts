import { describe, expect, it } from 'vitest';
import { isVegaLiteSpec } from '../../../src/visualization/chart.js';
import type { ChartRow } from '../../../src/visualization/chart-data.js';
import {
  OperatorRooflineChart,
  operatorPoints,
} from '../../../src/visualization/charts/operator-roofline-chart.js';
import { renderSvg } from '../../../src/visualization/render.js';

/** A decode phase: two matrix-product groups, one element-wise group (no FLOPs) and the remainder. */
const ROWS: ChartRow[] = [
  {
    model: 'small',
    task: 'operator',
    phase: 'decode',
    op: 'MatMul',
    input_shapes: 'float[1,1,768]',
    share: 0.5,
    intensity: 0.5,
    gflops_per_s: 8,
    peak_gflops: 300,
    bandwidth_gbs: 20,
  },
  {
    model: 'small',
    task: 'operator',
    phase: 'decode',
    op: 'FusedMatMul',
    input_shapes: 'float[1,12,1,64]',
    share: 0.1,
    intensity: 0.25,
    gflops_per_s: 2,
    peak_gflops: 300,
    bandwidth_gbs: 20,
  },
  {
    model: 'small',
    task: 'operator',
    phase: 'decode',
    op: 'Add',
    input_shapes: 'float[1,1,768]',
    share: 0.15,
    intensity: 0,
    gflops_per_s: 0,
    peak_gflops: 300,
    bandwidth_gbs: 20,
  },
  {
    model: 'small',
    task: 'operator',
    phase: 'decode',
    op: 'framework, copies, JS',
    input_shapes: '',
    share: 0.25,
  },
  // Another task's row is not an operator group.
  { model: 'small', task: 'latency', intensity: 3, gflops_per_s: 50, share: 1 },
];

/** Every layer's data values of a layered spec. */
const layerValues = (spec: unknown): Record<string, unknown>[][] =>
  (spec as { layer: { data: { values: Record<string, unknown>[] } }[] }).layer.map((l) => l.data.values);

describe('OperatorRooflineChart', () => {
  it('draws one point per group with FLOPs, sized by share, and counts the undrawn time per phase', () => {
    const { points, undrawnShare } = operatorPoints(
      ROWS.filter((r) => r['task'] === 'operator'),
      () => 'small',
    );
    expect(points.map((p) => [p.op, p.intensity, p.gflops, p.share])).toEqual([
      ['MatMul', 0.5, 8, 0.5],
      ['FusedMatMul', 0.25, 2, 0.1],
    ]);
    expect(undrawnShare.get('decode')).toBeCloseTo(0.4, 12);
  });

  it('gives the roofline min(peak, intensity × bandwidth) over the points and a spec that renders', async () => {
    const spec = new OperatorRooflineChart().spec(ROWS);
    expect(isVegaLiteSpec(spec)).toBe(true);
    const [roof, points] = layerValues(spec);
    // x from 0.25 / 3 to 0.5 × 3; the knee at 300 / 20 = 15 FLOP/byte lies right of it: the slope only.
    const xy = (roof ?? []).map((v) => [v['intensity'] as number, v['gflops'] as number]);
    const want = [
      [0.25 / 3, (20 * 0.25) / 3],
      [1.5, 30],
    ];
    expect(xy).toHaveLength(want.length);
    xy.forEach(([x, y], i) => {
      expect(x).toBeCloseTo(want[i]?.[0] as number, 12);
      expect(y).toBeCloseTo(want[i]?.[1] as number, 12);
    });
    expect(points?.map((p) => p['op'])).toEqual(['MatMul', 'FusedMatMul']);
    const text = JSON.stringify(spec);
    expect(text).toContain(
      'decode: 40% of the time in operators without FLOPs or outside kernels (not drawn)',
    );
    const svg = await renderSvg(spec);
    expect(svg).toContain('Operator roofline');
  });

  it('draws no roofline without ceilings, and says what is missing without FLOPs', () => {
    const bare = ROWS.slice(0, 2).map(({ peak_gflops: _p, bandwidth_gbs: _b, ...r }) => r);
    expect(layerValues(new OperatorRooflineChart().spec(bare))).toHaveLength(1);
    expect(() => new OperatorRooflineChart().spec([ROWS[2] as ChartRow])).toThrow(
      /no operator row with FLOPs/,
    );
  });
});
