/**
 * A load sweep's report as a reader opens it: `dantinox serve --config tiny` (the built CLI, a fresh child process
 * on loopback) loaded by `dantinox load --concurrency 1,4`, its report.html opened in headless Chromium. The load
 * axes tick at the sweep's points (1 and 4, not 1.0, 1.5, 2.0 …); a single run's comparison table, which would hold
 * only its setup, is left out; and the fresh server's first, cold requests are warm-up, outside the statistics.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { quantileSorted } from '../../src/profiling/statistics.js';
import { launchChromium } from '../visualization/chromium.js';
import { ensureBuilt } from './built-cli.js';
import { captureIo } from './capture-io.js';
import { type Served, serve, tinyLoadArgs } from './serve-process.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-report-'));
let served: Served;
let browser: Browser;
let tab: Page;
let loadErr = '';

beforeAll(async () => {
  ensureBuilt();
  served = await serve(['--max-batch', '4']);
  const io = captureIo(cwd);
  const code = await runCli(tinyLoadArgs(served.url, 'run'), io);
  loadErr = io.err.join('');
  expect(code, loadErr).toBe(ExitCode.ok);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  tab = await context.newPage();
  await tab.goto(pathToFileURL(join(cwd, 'run', 'report.html')).href);
  await tab.waitForSelector('body[data-charts-done="true"]', { timeout: 60_000 });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  served?.child.kill('SIGTERM');
  await served?.exit;
  rmSync(cwd, { recursive: true, force: true });
});

/** The tick labels of every axis titled `title` in the drawn chart `chart` (SVG drawn by vega-embed). */
function axisLabels(chart: string, title: string): Promise<string[][]> {
  // Page code as text: the tests are compiled without the DOM library.
  return tab.evaluate<string[][]>(`(() => {
    const root = document.querySelector('[data-chart="${chart}"]');
    return [...root.querySelectorAll('g.role-axis')]
      .filter((axis) => (axis.querySelector('.role-axis-title text')?.textContent ?? '').startsWith(${JSON.stringify(title)}))
      .map((axis) => [...axis.querySelectorAll('.role-axis-label text')].map((t) => t.textContent));
  })()`);
}

describe('the report of dantinox load --concurrency 1,4 against dantinox serve', () => {
  it('ticks the concurrency axes at the sweep points only', async () => {
    for (const chart of ['serving_latency', 'serving_throughput', 'serving_distribution']) {
      const axes = await axisLabels(chart, 'Concurrency');
      expect(axes.length, chart).toBeGreaterThan(0);
      for (const labels of axes) expect(labels, chart).toEqual(['1', '4']);
    }
  });

  it('leaves out a comparison table that would hold only setup, and starts with the charts', async () => {
    const headings = await tab.evaluate<string[]>(
      `[...document.querySelectorAll('h2')].map((h) => h.textContent)`,
    );
    expect(headings).not.toContain('Comparison');
    expect(headings[0]).toBe('Charts');
    expect(await tab.locator('table.summary').count()).toBe(0);
  });

  it('leaves the first `concurrency` requests of each point, the cold ones included, out of the statistics', () => {
    const requests = readFileSync(join(cwd, 'run', 'requests.csv'), 'utf8')
      .trim()
      .split('\n');
    const head = (requests[0] ?? '').split(',');
    const rows = requests.slice(1).map((line) => {
      // The point id is the only quoted field ("concurrency=1,rate=inf").
      const [point, rest] = line.slice(1).split('",');
      const cells = (rest ?? '').split(',');
      const at = (name: string): string => cells[head.indexOf(name) - 1] ?? '';
      return { point, index: Number(at('index')), measured: at('measured'), ttftMs: Number(at('ttft_ms')) };
    });
    const cells = RunDirectory.load(join(cwd, 'run')).results.find((r) => r.task === 'serving')?.cells ?? [];
    for (const [point, concurrency] of [
      ['concurrency=1,rate=inf', 1],
      ['concurrency=4,rate=inf', 4],
    ] as const) {
      const mine = rows.filter((r) => r.point === point);
      // Warm-up: as many requests as the point keeps in flight, sent first, recorded but not measured.
      expect(mine.filter((r) => r.measured === 'false').map((r) => r.index)).toEqual(
        Array.from({ length: concurrency }, (_, i) => i),
      );
      expect(mine.filter((r) => r.measured === 'true')).toHaveLength(8);
      // The point's TTFT p99 is the measured requests' (linear interpolation), the warm-up's never in it; within
      // 0.5 µs, as the point's samples are kept to the µs while requests.csv keeps every digit.
      const measured = mine
        .filter((r) => r.measured === 'true')
        .map((r) => r.ttftMs)
        .sort((a, b) => a - b);
      const metrics = cells.find((c) => c.cell === point)?.metrics ?? {};
      expect(metrics['ttft_p99_ms'], point).toBeCloseTo(quantileSorted(measured, 0.99), 3);
      expect(metrics['excluded_requests'], point).toBe(concurrency);
    }
  });
});
