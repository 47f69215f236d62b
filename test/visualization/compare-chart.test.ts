import { describe, expect, it } from 'vitest';
import { compareReports, comparisonRows } from '../../src/benchmarking/index.js';
import { DantinoxError } from '../../src/errors.js';
import { CompareChart } from '../../src/visualization/charts/compare-chart.js';
import { renderSvg } from '../../src/visualization/render.js';
import { fakeRuns } from '../benchmarking/compare/fake-runs.js';
import { expectGoldenJson } from './golden.js';

/** A 10% slowdown, 5 runs per side with a 3% drift per run. */
const rows = () =>
  comparisonRows([
    compareReports(
      fakeRuns(5, 'main', { seed: 1, drift: 0.03 }),
      fakeRuns(5, 'pr', { seed: 11, drift: 0.03, slowdown: 1.1 }),
      { baselineLabel: 'main', candidateLabel: 'pr' },
    ),
  ]);

describe('CompareChart', () => {
  it('draws the task metrics of a comparison as in the golden spec, and renders to SVG', async () => {
    const spec = new CompareChart().spec(rows());
    expectGoldenJson('compare-task-metrics.vl.json', spec);
    const warnings: string[] = [];
    const svg = await renderSvg(spec, { onWarning: (w) => warnings.push(w) });
    expect(svg).toContain('<svg');
    expect(svg).toContain('throughput · tps_seq16');
    expect(svg).toContain('regressed');
    expect(warnings).toEqual([]);
  });

  it('draws every judged cell metric on request, never the unjudged ones', () => {
    const spec = new CompareChart({ taskMetricsOnly: false }).spec(rows()) as {
      layer: { data?: { values: { label: string }[] } }[];
    };
    const labels = spec.layer.at(-1)?.data?.values.map((p) => p.label) ?? [];
    expect(labels).toContain('latency · decode@32 · p99_ms');
    expect(labels.some((l) => l.endsWith('· n') || l.includes('first_ms'))).toBe(false);
  });

  it('says what is missing when given benchmark rows instead of a comparison', () => {
    expect(() => new CompareChart().spec([{ task: 'throughput', tps_seq16: 1 }])).toThrow(DantinoxError);
  });
});
