/**
 * The roofline of a dense 6-variant matrix (dtype fp32 / q8 / q4 × 2 engines, the engines of one dtype within
 * 10% of each other) drawn in the report in real headless Chromium: no two label boxes (cells and roofs)
 * intersect and every label is inside the plot. And a run of one dtype draws that dtype's roof only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartRow } from '../../src/visualization/chart-data.js';
import { RooflineChart } from '../../src/visualization/charts/roofline-chart.js';
import { buildHtmlReport } from '../../src/visualization/html-report.js';
import { boxesOverlap, type LabelBox } from '../../src/visualization/label-placement.js';
import { renderSvg } from '../../src/visualization/render.js';
import { launchChromium } from './chromium.js';
import { matrixRows } from './matrix-rows.js';

const outDir = mkdtempSync(join(tmpdir(), 'dantinox-roofline-'));
const SCREENSHOT_DIR = process.env['SCREENSHOT_DIR'] ?? join(tmpdir(), 'dantinox-report-screenshots');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  rmSync(outDir, { recursive: true, force: true });
});

interface Drawn {
  plot: LabelBox;
  labels: (LabelBox & { text: string })[];
}

/** The roofline of `rows` in the report page, in Chromium: the plot's box and every label's box (page pixels). */
async function drawnLabels(rows: readonly ChartRow[], name: string): Promise<Drawn> {
  const spec = new RooflineChart().spec(rows);
  const path = join(outDir, `${name}.html`);
  writeFileSync(
    path,
    await buildHtmlReport({ title: name, runs: [{ name, rows }], charts: [{ name: 'roofline', spec }] }),
  );
  const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await tab.goto(pathToFileURL(path).href);
    await tab.waitForSelector('body[data-charts-done="true"]', { timeout: 30_000 });
    await tab.locator('[data-chart="roofline"]').screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
    // Page code as text: the tests are compiled without the DOM library.
    return await tab.evaluate<Drawn>(`(() => {
      const svg = document.querySelector('[data-chart="roofline"] svg');
      const box = (r) => ({ x0: r.left, y0: r.top, x1: r.right, y1: r.bottom });
      const plot = box(svg.querySelector('g.role-frame.root > g > path.background').getBoundingClientRect());
      const labels = [...svg.querySelectorAll('g[class*="point_labels_"] text, g[class*="roof_labels_"] text')].map(
        (t) => ({ ...box(t.getBoundingClientRect()), text: t.textContent }),
      );
      return { plot, labels };
    })()`);
  } finally {
    await tab.close();
  }
}

const overlapping = (labels: Drawn['labels']): string[] =>
  labels.flatMap((a, i) =>
    labels.slice(i + 1).flatMap((b) => (boxesOverlap(a, b) ? [`"${a.text}" × "${b.text}"`] : [])),
  );
const outside = ({ plot, labels }: Drawn): string[] =>
  labels
    .filter((l) => l.x0 < plot.x0 || l.y0 < plot.y0 || l.x1 > plot.x1 || l.y1 > plot.y1)
    .map((l) => l.text);

describe('roofline labels in Chromium', () => {
  it('6 variants × prefill/decode (latency rows): no two labels intersect, all inside the plot', async () => {
    const drawn = await drawnLabels(
      matrixRows().filter((r) => r['task'] === 'latency'),
      'roofline-matrix-latency',
    );
    expect(drawn.labels.map((l) => l.text)).toEqual(
      expect.arrayContaining(['prefill', 'decode', 'fp32 374 GFLOP/s']),
    );
    expect(overlapping(drawn.labels)).toEqual([]);
    expect(outside(drawn)).toEqual([]);
  });

  it('6 variants × every cell (throughput and latency rows): no two labels intersect, all inside the plot', async () => {
    const drawn = await drawnLabels(matrixRows(), 'roofline-matrix-all');
    expect(drawn.labels.length).toBeGreaterThanOrEqual(8);
    expect(overlapping(drawn.labels)).toEqual([]);
    expect(outside(drawn)).toEqual([]);
  });
});

describe('roofline roofs', () => {
  it('a run of fp32 rows draws the fp32 roof only, though q8 and q4 were calibrated', async () => {
    const fp32 = matrixRows().filter((r) => r['dtype'] === 'fp32');
    expect(Object.keys(fp32[0]!)).toEqual(expect.arrayContaining(['ceiling_gflops_q8', 'ceiling_gflops_q4']));
    const spec = new RooflineChart().spec(fp32) as { layer: { data?: { values: { roof?: string }[] } }[] };
    const roofs = new Set(spec.layer[0]!.data!.values.map((v) => v.roof));
    expect([...roofs]).toEqual(['fp32 374 GFLOP/s']);
    const svg = await renderSvg(new RooflineChart().spec(fp32));
    expect(svg).toContain('fp32 374 GFLOP/s');
    expect(svg).not.toMatch(/q8|q4|1,210 GFLOP|289 GFLOP/);
  });

  it('each dtype of a matrix gets its own roof; rows without a dtype keep every calibrated roof', () => {
    const roofsOf = (rows: readonly ChartRow[]): string[] => {
      const spec = new RooflineChart().spec(rows) as { layer: { data?: { values: { roof?: string }[] } }[] };
      return [...new Set(spec.layer[0]!.data!.values.map((v) => v.roof ?? ''))].sort();
    };
    expect(roofsOf(matrixRows())).toEqual(['fp32 374 GFLOP/s', 'q4 289 GFLOP/s', 'q8 1,210 GFLOP/s']);
    expect(roofsOf(matrixRows().filter((r) => r['dtype'] !== 'q4'))).toEqual([
      'fp32 374 GFLOP/s',
      'q8 1,210 GFLOP/s',
    ]);
    const untyped = matrixRows()
      .filter((r) => r['dtype'] === 'fp32')
      .map(({ dtype: _, ...rest }) => rest);
    expect(roofsOf(untyped)).toEqual(['fp32 374 GFLOP/s', 'q4 289 GFLOP/s', 'q8 1,210 GFLOP/s']);
  });
});
