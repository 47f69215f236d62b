/**
 * The report of a 6-variant matrix (dtype fp32 / q8 / q4 × engine ×2; throughput, latency, perplexity and kld
 * rows) at a 1,280 px wide viewport in real headless Chromium: the comparison table fits its container, the
 * page has no horizontal scrollbar, and the kld task's columns are in the table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChartRegistry } from '../../src/visualization/chart-registry.js';
import { Visualizer } from '../../src/visualization/visualizer.js';
import { launchChromium } from './chromium.js';
import { matrixRows } from './matrix-rows.js';

const outDir = mkdtempSync(join(tmpdir(), 'dantinox-layout-'));
const SCREENSHOT_DIR = process.env['SCREENSHOT_DIR'] ?? join(tmpdir(), 'dantinox-report-screenshots');
let browser: Browser;
let tab: Page;

beforeAll(async () => {
  const path = join(outDir, 'matrix.html');
  await new Visualizer({ registry: createChartRegistry() }).report([{ name: 'matrix', rows: matrixRows() }], {
    path,
    title: 'gpt2-small: dtype × engine',
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  tab = await context.newPage();
  await tab.goto(pathToFileURL(path).href);
  await tab.waitForSelector('body[data-charts-done="true"]', { timeout: 30_000 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(outDir, { recursive: true, force: true });
});

describe('report of a 6-variant matrix at 1,280 px', () => {
  it('the comparison table fits its container and the page does not scroll sideways', async () => {
    // Page code as text: the tests are compiled without the DOM library.
    const size = await tab.evaluate<{
      table: number;
      container: number;
      page: number;
      viewport: number;
      rows: number;
    }>(`(() => {
      const table = document.querySelector('table.summary');
      const root = document.documentElement;
      return {
        table: table.scrollWidth,
        container: table.parentElement.clientWidth,
        page: root.scrollWidth,
        viewport: root.clientWidth,
        rows: table.querySelectorAll('tbody tr').length,
      };
    })()`);
    await tab.screenshot({ path: join(SCREENSHOT_DIR, 'report-matrix-1280.png'), fullPage: true });
    expect(size.rows).toBe(6);
    // The table must not be squeezed into an empty page either: it uses most of the width.
    expect(size.container).toBeGreaterThan(1_100);
    expect(size.table).toBeLessThanOrEqual(size.container);
    expect(size.page).toBeLessThanOrEqual(size.viewport);
  });

  it('has the KLD and top-1 columns, one value per variant, top-1 as a percentage', async () => {
    const column = (key: string): Promise<string[]> =>
      tab.evaluate<string[]>(`(() => {
        const heads = [...document.querySelectorAll('table.summary thead tr:nth-child(2) th')];
        const i = heads.findIndex((h) => (h.getAttribute('title') ?? '').startsWith(${JSON.stringify(`${key}:`)}));
        if (i < 0) return [];
        return [...document.querySelectorAll('table.summary tbody tr')].map(
          (tr) => tr.querySelectorAll('td')[i]?.textContent ?? '',
        );
      })()`);
    expect(await column('kld_mean')).toEqual(['0', '0', '6.12e-4', '6.671e-4', '0.02841', '0.03097']);
    expect(await column('top1_agreement')).toEqual(['100%', '100%', '98.3%', '98.3%', '88.3%', '88.3%']);
    expect(await column('kld_p99')).toHaveLength(6);
    expect(await column('ppl_ratio')).toHaveLength(6);
    // Setup shared by every variant is said once, above the table, not repeated in a column.
    expect(await column('threads')).toEqual([]);
    expect(await tab.locator('p.shared').textContent()).toMatch(/threads 2 · params 124,439,808/);
    expect(await column('dtype')).toEqual(['fp32', 'fp32', 'q8', 'q8', 'q4', 'q4']);
  });
});
