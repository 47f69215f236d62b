/** The three serving charts from known rows: the spec holds exactly the given points, and renders. */
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import type { ChartRow } from '../../src/visualization/chart-data.js';
import { ServingDistributionChart } from '../../src/visualization/charts/serving-distribution-chart.js';
import { ServingLatencyChart } from '../../src/visualization/charts/serving-latency-chart.js';
import { loadAxis } from '../../src/visualization/charts/serving-rows.js';
import { ServingThroughputChart } from '../../src/visualization/charts/serving-throughput-chart.js';
import { renderSvg } from '../../src/visualization/render.js';
import { SERVING_POINTS, SERVING_SAMPLES } from './serving-rows.js';

interface FacetSpec {
  data: { values: Record<string, unknown>[] };
  facet: { column: { field: string }; row?: { field: string } };
  spec: { mark: { type: string }; encoding: Record<string, { field?: string; title?: string }> };
  title: { text: string };
}

const values = (spec: unknown, ...fields: string[]) =>
  (spec as FacetSpec).data.values.map((v) => fields.map((f) => v[f]));

/** A second run of the same points, twice as slow. */
const otherRun: ChartRow[] = SERVING_POINTS.map((r) => ({
  ...r,
  ttft_p50_ms: 2 * (r['ttft_p50_ms'] as number),
  run: 'server-b',
}));

describe('serving_latency', () => {
  it('holds exactly the TTFT and ITL percentiles of each sweep point, by concurrency', async () => {
    const spec = new ServingLatencyChart().spec([...SERVING_POINTS, { task: 'throughput', tps_seq64: 1 }]);
    expect(values(spec, 'load', 'metric', 'percentile', 'value_ms')).toEqual([
      [1, 'TTFT', 'p50', 10],
      [1, 'TTFT', 'p90', 15],
      [1, 'TTFT', 'p99', 20],
      [1, 'ITL', 'p50', 1],
      [1, 'ITL', 'p90', 1.5],
      [1, 'ITL', 'p99', 2],
      [4, 'TTFT', 'p50', 40],
      [4, 'TTFT', 'p90', 60],
      [4, 'TTFT', 'p99', 90],
      [4, 'ITL', 'p50', 4],
      [4, 'ITL', 'p90', 6],
      [4, 'ITL', 'p99', 9],
    ]);
    const s = spec as unknown as FacetSpec;
    expect(s.facet.column.field).toBe('metric');
    expect(s.spec.encoding['color']?.field).toBe('percentile');
    expect(s.spec.encoding['x']?.title).toBe('Concurrency (requests in flight)');
    expect(s.spec.encoding['strokeDash']).toBeUndefined();
    expect((await renderSvg(spec)).match(/aria-roledescription="line mark"/g)?.length).toBe(6);
  });

  it('puts the rate on x when the sweep varied the rate, and one dash pattern per run', () => {
    const byRate = SERVING_POINTS.map((r, i) => ({ ...r, concurrency: 0, rate: i + 2 }));
    expect(loadAxis(byRate).field).toBe('rate');
    const spec = new ServingLatencyChart().spec([
      ...byRate.map((r) => ({ ...r, run: 'a' })),
      ...byRate.map((r) => ({ ...r, run: 'b' })),
    ]) as unknown as FacetSpec;
    expect(spec.spec.encoding['x']?.title).toBe('Offered rate (requests/s)');
    expect(spec.spec.encoding['strokeDash']?.field).toBe('series');
    expect(new Set(spec.data.values.map((v) => v['series']))).toEqual(new Set(['mock (a)', 'mock (b)']));
    expect(spec.data.values.map((v) => v['load']).slice(0, 1)).toEqual([2]);
  });

  it('is skipped (INVALID_INPUT) for rows without sweep points', () => {
    expect(() => new ServingLatencyChart().spec([{ task: 'throughput', tps_seq64: 1 }])).toThrow(
      DantinoxError,
    );
  });
});

describe('serving_throughput', () => {
  it('holds output tokens/s, requests/s and goodput as its own curve', async () => {
    const spec = new ServingThroughputChart().spec(SERVING_POINTS);
    expect(values(spec, 'load', 'panel', 'measure', 'value')).toEqual([
      [1, 'Output tokens/s', 'output tokens/s', 100],
      [1, 'Requests/s', 'requests/s', 2],
      [1, 'Requests/s', 'goodput (SLOs met)', 2],
      [4, 'Output tokens/s', 'output tokens/s', 400],
      [4, 'Requests/s', 'requests/s', 8],
      [4, 'Requests/s', 'goodput (SLOs met)', 6],
    ]);
    expect((spec as unknown as FacetSpec).facet.column.field).toBe('panel');
    expect((await renderSvg(spec)).match(/aria-roledescription="line mark"/g)?.length).toBe(3);
    // requests/s wide and translucent beneath goodput, which equals it when every request met the SLOs
    expect(values(spec, 'measure', 'stroke_px', 'opacity').slice(0, 3)).toEqual([
      ['output tokens/s', 2, 1],
      ['requests/s', 8, 0.45],
      ['goodput (SLOs met)', 2, 1],
    ]);
  });

  it('draws two servers side by side, each value under its run', () => {
    const spec = new ServingThroughputChart().spec([
      ...SERVING_POINTS.map((r) => ({ ...r, run: 'server-a' })),
      ...otherRun,
    ]);
    const rows = values(spec, 'series', 'load', 'measure', 'value');
    expect(rows).toHaveLength(12);
    expect(rows).toContainEqual(['mock (server-a)', 4, 'goodput (SLOs met)', 6]);
    expect(rows).toContainEqual(['mock (server-b)', 1, 'output tokens/s', 100]);
  });
});

describe('serving_distribution', () => {
  it('holds every TTFT and ITL sample under its load, drawn as box plots', async () => {
    const spec = new ServingDistributionChart().spec(SERVING_SAMPLES);
    expect(values(spec, 'load', 'metric', 'value_ms')).toEqual([
      [1, 'TTFT', 10],
      [1, 'TTFT', 12],
      [1, 'TTFT', 20],
      [1, 'ITL', 1],
      [1, 'ITL', 2],
      [4, 'TTFT', 40],
      [4, 'TTFT', 90],
      [4, 'ITL', 4],
      [4, 'ITL', 9],
    ]);
    const s = spec as unknown as FacetSpec;
    expect(s.spec.mark.type).toBe('boxplot');
    expect(s.facet.row).toBeUndefined();
    expect(await renderSvg(spec)).toContain('<svg');
  });

  it('gives each run its own row of panels', () => {
    const spec = new ServingDistributionChart().spec([
      ...SERVING_SAMPLES.map((r) => ({ ...r, run: 'a' })),
      ...SERVING_SAMPLES.map((r) => ({ ...r, run: 'b' })),
    ]) as unknown as FacetSpec;
    expect(spec.facet.row?.field).toBe('series');
    expect(spec.data.values).toHaveLength(18);
  });
});
