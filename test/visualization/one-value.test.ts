/**
 * Charts over a single x value, for every chart in the registry: a line through one x is replaced by bars
 * (throughput sweeps) or left out with the reason (training curve, trend; and, like the Pareto chart with one
 * variant, the latency chart with one point); charts that are bars already, or whose roofs give the one point its
 * scale, are drawn. The table is typed by the built-in names, so a new chart must say what it does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { isVegaLiteSpec } from '../../src/visualization/chart.js';
import type { ChartRow } from '../../src/visualization/chart-data.js';
import {
  type BuiltinChartName,
  builtinCharts,
  createChartRegistry,
} from '../../src/visualization/chart-registry.js';
import { renderSvg } from '../../src/visualization/render.js';
import { Visualizer } from '../../src/visualization/visualizer.js';
import { matrixRows } from './matrix-rows.js';
import { parityRows } from './parity-rows.js';
import { SERVING_POINTS, SERVING_SAMPLES, SERVING_TIMELINE } from './serving-rows.js';

/** A batch sweep of one batch size over three models. */
const oneBatch: ChartRow[] = ['tiny', 'small', 'base'].map((model, i) => ({
  model,
  task: 'throughput',
  status: 'completed',
  tps_bs1: 1000 / (i + 1),
}));
const oneVariant = matrixRows().filter((r) => r['variant'] === 'gpt2-small-ort-q8-t2');

const ONE_X: Record<
  BuiltinChartName,
  { rows: ChartRow[]; outcome: 'bar' | 'skipped' | 'drawn'; reason?: RegExp }
> = {
  throughput: { rows: oneBatch.map(({ tps_bs1, ...r }) => ({ ...r, tps_seq128: tps_bs1 })), outcome: 'bar' },
  throughput_batch: { rows: oneBatch, outcome: 'bar' },
  training_curve: {
    rows: [{ step: 100, loss: 2.31, val_loss: 2.4 }],
    outcome: 'skipped',
    reason: /has a single step \(100\)/,
  },
  trend: {
    rows: [{ time: '2025-06-01T10:00:00Z', value: 231.5, metric: 'decode_tps', series: 'tiny · laptop' }],
    outcome: 'skipped',
    reason: /has a single run \(2025-06-01T10:00:00Z\)/,
  },
  latency: {
    rows: oneVariant,
    outcome: 'skipped',
    reason: /trivial with one variant \(gpt2-small-ort-q8-t2\)/,
  },
  pareto: { rows: oneVariant, outcome: 'skipped', reason: /trivial with one variant/ },
  pareto_kld: { rows: oneVariant, outcome: 'skipped', reason: /trivial with one variant/ },
  radar: { rows: oneVariant, outcome: 'skipped', reason: /trivial with one variant/ },
  // One cell still has a meaning against the calibrated roofs.
  roofline: {
    rows: [
      {
        model: 'tiny',
        dtype: 'fp32',
        intensity_decode: 0.5,
        gflops_per_s_decode: 9.3,
        ceiling_gflops_fp32: 374,
        ceiling_bandwidth_gbs: 18.6,
      },
    ],
    outcome: 'drawn',
  },
  // Bar charts already: one bar is one value, drawn as such.
  time_breakdown: {
    rows: [{ model: 'small', profile_prefill_kernels_ms: 81, profile_prefill_matmul_ms: 61.2 }],
    outcome: 'drawn',
  },
  // One operator group still has a place under the roofline.
  operator_roofline: {
    rows: [
      {
        model: 'tiny',
        task: 'operator',
        phase: 'decode',
        op: 'MatMul',
        input_shapes: 'float[1,1,32]',
        share: 0.4,
        intensity: 0.5,
        gflops_per_s: 3.1,
        peak_gflops: 374,
        bandwidth_gbs: 18.6,
      },
    ],
    outcome: 'drawn',
  },
  // One depth: its measured points are drawn (and its roofline bound), no line to fit.
  depth: {
    rows: [
      {
        model: 'tiny',
        decode_tps_d0: 300,
        decode_ms_d0: 1000 / 300,
        decode_gflop_d0: 0.001,
        decode_mib_d0: 1,
        ceiling_gflops_fp32: 374,
        ceiling_bandwidth_gbs: 18.6,
      },
    ],
    outcome: 'drawn',
  },
  compare: { rows: [{ metric: 'decode_tps', change: -0.12, verdict: 'slower' }], outcome: 'drawn' },
  // One browser variant and its Node twin: two bars and the parity rule.
  parity: { rows: parityRows(), outcome: 'drawn' },
  // One sweep point of a load: its points (and box) are drawn, a line needs no second point to be read.
  serving_latency: { rows: SERVING_POINTS.slice(0, 1), outcome: 'drawn' },
  serving_throughput: { rows: SERVING_POINTS.slice(0, 1), outcome: 'drawn' },
  serving_distribution: {
    rows: SERVING_SAMPLES.filter((r) => r['concurrency'] === 4),
    outcome: 'drawn',
  },
  serving_timeline: {
    rows: SERVING_TIMELINE.filter((r) => r['point'] === 'concurrency=4,rate=inf'),
    outcome: 'drawn',
  },
};

/** Every mark type of a Vega-Lite spec, nested layers included. */
function markTypes(spec: unknown): string[] {
  const s = spec as { mark?: string | { type: string }; layer?: unknown[] };
  const own = s.mark === undefined ? [] : [typeof s.mark === 'string' ? s.mark : s.mark.type];
  return [...own, ...(s.layer ?? []).flatMap(markTypes)];
}

describe('charts of a single x value, every built-in chart', () => {
  for (const [name, c] of Object.entries(ONE_X)) {
    it(`${name}: ${c.outcome}`, async () => {
      const chart = new builtinCharts[name as BuiltinChartName]();
      if (c.outcome === 'skipped') {
        let error: unknown;
        try {
          chart.spec(c.rows);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(DantinoxError);
        expect((error as DantinoxError).code).toBe('INVALID_INPUT');
        expect((error as DantinoxError).message).toMatch(c.reason!);
        return;
      }
      const spec = chart.spec(c.rows);
      expect(isVegaLiteSpec(spec)).toBe(true);
      if (c.outcome === 'bar') {
        expect(markTypes(spec)).toEqual(['bar']);
        const svg = await renderSvg(spec);
        expect((svg.match(/<path[^>]*aria-roledescription="bar"/g) ?? []).length).toBe(3);
      } else {
        const svg = await renderSvg(spec);
        expect((svg.match(/<path/g) ?? []).length).toBeGreaterThan(3);
      }
    });
  }

  it('the bars of a one-value sweep say which value and that it replaces a line', () => {
    const spec = new builtinCharts.throughput_batch().spec(oneBatch) as {
      title: { text: string; subtitle: string };
      data: { values: { series: string; tps: number }[] };
    };
    expect(spec.title.text).toBe('Throughput at batch size 1');
    expect(spec.title.subtitle).toBe('One batch size measured (1): one bar per model instead of a line');
    expect(spec.data.values.map((v) => [v.series, v.tps])).toEqual([
      ['tiny', 1000],
      ['small', 500],
      ['base', 1000 / 3],
    ]);
    // Two batch sizes are a line again.
    const two = oneBatch.map((r) => ({ ...r, tps_bs2: 2 * (r['tps_bs1'] as number) }));
    expect(markTypes(new builtinCharts.throughput_batch().spec(two))).toEqual(['line']);
  });
});

describe('the report of a one-value run', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'dantinox-one-x-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('draws the sweep as bars and lists the charts left out with their reason', async () => {
    // One variant measured at one sequence length and one batch size.
    const rows = oneVariant.map(({ tps_seq512: _, tps_bs4: __, ...r }) => r);
    const html = () => readFileSync(join(outDir, 'one-x-report.html'), 'utf8');
    const results = await new Visualizer({ registry: createChartRegistry() }).render(rows, {
      outDir,
      formats: ['html'],
      runName: 'one-x',
    });
    expect(results['throughput']?.status).toBe('rendered');
    expect(results['throughput_batch']?.status).toBe('rendered');
    expect(html()).toContain('Throughput at batch size 1');
    expect(html()).toContain('Throughput at sequence length 128');
    expect(results['latency']).toEqual({
      status: 'skipped',
      reason: messages.chartSingleSeries('latency', 'gpt2-small-ort-q8-t2', 'a latency–throughput trade-off'),
    });
    const notDrawn = html().slice(html().indexOf('<h2>Charts not drawn</h2>'));
    for (const chart of ['latency', 'pareto', 'pareto_kld', 'radar']) {
      expect(notDrawn).toMatch(
        new RegExp(`<li><strong>${chart}</strong>: Chart &quot;${chart}&quot; is trivial with one variant`),
      );
    }
  });
});
