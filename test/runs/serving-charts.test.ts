/**
 * The serving charts of real load runs: `runLoad` against the mock server writes the four charts (the request
 * timeline from its requests.jsonl) and puts them in report.html, and `report` over two runs (two servers) draws them
 * side by side.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { loadRuns } from '../../src/runs/load-runs.js';
import { runLoad } from '../../src/runs/run-load.js';
import { MAX_CHART_SAMPLES, servingChartRows, thinSamples } from '../../src/runs/serving-chart-rows.js';
import { Visualizer } from '../../src/visualization/visualizer.js';
import { captureIo } from '../cli/capture-io.js';
import { startMockServer } from '../serving/mock-openai-server.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-serving-charts-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const SERVING_CHARTS = ['serving_latency', 'serving_throughput', 'serving_distribution', 'serving_timeline'];

/** A load of 12 requests at concurrency 1 and 3 against a mock server with the given per-token delay. */
async function load(dir: string, perTokenMs: number, charts: boolean) {
  const server = await startMockServer({ ttftMs: 5, perTokenMs, tokensPerChunk: 1 });
  try {
    return await runLoad({
      baseUrl: server.url,
      dir,
      cwd,
      model: 'mock',
      concurrency: [1, 3],
      requests: 12,
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 6 },
      slo: { ttftMs: 500, tpotMs: 50 },
      charts,
    });
  } finally {
    await server.close();
  }
}

describe('serving charts of a load run', () => {
  it('runLoad writes the four charts and report.html shows them', async () => {
    const run = await load('fast', 1, true);
    expect(run.status).toBe('completed');
    for (const chart of SERVING_CHARTS) {
      expect(run.files.some((f) => f.endsWith(`-${chart}.svg`))).toBe(true);
      expect(existsSync(join(cwd, 'fast', 'charts', `mock-${chart}.svg`))).toBe(true);
    }
    const html = readFileSync(join(cwd, 'fast', 'report.html'), 'utf8');
    for (const chart of SERVING_CHARTS) expect(html).toContain(chart);
    expect(html).toContain('<title>dantinox load: mock</title>');
    // One point row per sweep point, one sample row per TTFT (request) and ITL (token) sample.
    const rows = servingChartRows(run.report);
    const cells = run.report.results[0]?.cells ?? [];
    expect(rows.filter((r) => r['task'] === 'serving_point').map((r) => r['concurrency'])).toEqual([1, 3]);
    const samples = cells.reduce(
      (n, c) => n + (c.metricSamples?.['ttft_ms']?.length ?? 0) + (c.metricSamples?.['itl_ms']?.length ?? 0),
      0,
    );
    expect(rows.filter((r) => r['task'] === 'serving_sample')).toHaveLength(samples);
    expect(samples).toBeGreaterThan(0);
    // The timeline: every request of both points, the default warm-up (as many as the concurrency) on top of the
    // 12 measured, none thinned, a TTFT bar each, as report.html holds it.
    const timeline = (await loadRuns('fast', cwd))[0]?.chartRows?.filter(
      (r) => r['task'] === 'serving_timeline',
    );
    const ttft = timeline?.filter((r) => r['part'] === 'ttft') ?? [];
    expect(ttft.map((r) => r['point'])).toEqual([
      ...Array(13).fill('concurrency=1,rate=inf'),
      ...Array(15).fill('concurrency=3,rate=inf'),
    ]);
    expect(ttft.map((r) => r['measured'])).toEqual([
      ...[false, ...Array(12).fill(true)],
      ...[false, false, false, ...Array(12).fill(true)],
    ]);
    expect(
      ttft.every(
        (r) => r['every'] === 1 && r['shown'] === (r['point'] === 'concurrency=1,rate=inf' ? 13 : 15),
      ),
    ).toBe(true);
    expect(html).toContain('concurrency=3,rate=inf: all 15 requests');
  });

  it('report over two servers draws each chart with both runs', async () => {
    await load('slow', 4, false);
    const runs = [...(await loadRuns('fast', cwd)), ...(await loadRuns('slow', cwd))];
    expect(runs.map((r) => r.chartRows?.length ?? 0).every((n) => n > 0)).toBe(true);
    const path = join(cwd, 'both.html');
    const results = await new Visualizer().report(runs, { path, overwrite: true });
    for (const chart of SERVING_CHARTS) expect(results[chart]?.status).toBe('rendered');
    const html = readFileSync(path, 'utf8');
    expect(html).toContain('One dash pattern per run (2 runs)');
    // The tables list the task rows, not the chart-only rows.
    expect(html).not.toContain('serving_sample');
  });

  it('the run’s own rows stay one per task; the chart rows come separately', async () => {
    const runs = await loadRuns('fast', cwd);
    const rows = runs[0]?.rows ?? [];
    expect(rows.map((r) => r['task'])).toEqual(['serving']);
  });

  it('dantinox plot of the two servers writes the four charts as one comparison', async () => {
    const io = captureIo(cwd);
    const code = await runCli(
      ['plot', 'fast', 'slow', '--charts', SERVING_CHARTS.join(','), '--format', 'svg', '--out', 'plots'],
      io,
    );
    expect(code, io.err.join('')).toBe(0);
    expect(io.out.join('').trim().split('\n')).toEqual(
      SERVING_CHARTS.map((c) => `plots/comparison-${c}.svg`),
    );
  });

  it('keeps at most MAX_CHART_SAMPLES samples per metric and point, evenly spaced, minimum and maximum included', () => {
    const values = Array.from({ length: 10_001 }, (_, i) => (i * 7919) % 10_001);
    const kept = thinSamples(values);
    expect(kept).toHaveLength(MAX_CHART_SAMPLES);
    expect(kept[0]).toBe(0);
    expect(kept.at(-1)).toBe(10_000);
    expect(kept[Math.round((MAX_CHART_SAMPLES - 1) / 2)]).toBeCloseTo(5000, -1);
    expect(thinSamples([3, 1, 2])).toEqual([3, 1, 2]);
  });
});
