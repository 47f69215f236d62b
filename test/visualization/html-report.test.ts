/**
 * End to end: the HTML report opened in real headless Chromium (Debian `chromium` driven by playwright-core),
 * offline. Every chart must render to SVG with no console error, and a screenshot is saved for inspection.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChartData } from '../../src/visualization/chart-data.js';
import { createChartRegistry } from '../../src/visualization/chart-registry.js';
import { escapeHtml } from '../../src/visualization/escape-html.js';
import { buildHtmlReport, scriptJson } from '../../src/visualization/html-report.js';
import { type RenderResults, Visualizer } from '../../src/visualization/visualizer.js';
import { CHROMIUM, launchChromium } from './chromium.js';
import { fixture } from './golden.js';
import { SERVING_POINTS, SERVING_SAMPLES } from './serving-rows.js';

/** Where screenshots are kept for a human to look at (`SCREENSHOT_DIR` overrides). */
const SCREENSHOT_DIR = process.env['SCREENSHOT_DIR'] ?? join(tmpdir(), 'dantinox-report-screenshots');

const environment = {
  cpu: { model: 'AMD EPYC 9R45 (Zen 5)', cores: 2, flags: 'avx2 avx512f avx512bw' },
  node: 'v20.20.2',
  onnxruntime: '1.30.0',
  dantinox: '0.1.0',
  seed: 0,
  command: ['dantinox', 'bench', '--config', 'tiny'],
};

const outDir = mkdtempSync(join(tmpdir(), 'dantinox-report-'));
let single = '';
let multi = '';
let singleResults: RenderResults = {};
let multiResults: RenderResults = {};
let serving = '';
let servingResults: RenderResults = {};

beforeAll(async () => {
  const v = new Visualizer({ registry: createChartRegistry() });
  singleResults = await v.render(fixture('bench-multi.csv'), {
    outDir,
    formats: ['html'],
    runName: 'bench-multi',
    environment,
    title: 'dantinox benchmark: 6 models',
  });
  single = join(outDir, 'bench-multi-report.html');
  const runs = [
    { name: 'laptop', rows: await readChartData(fixture('bench-single.csv')), environment },
    {
      name: 'server',
      rows: await readChartData(fixture('bench-multi.csv')),
      environment: { ...environment, cpu: { model: 'Xeon', cores: 64 } },
    },
  ];
  multi = join(outDir, 'compare.html');
  multiResults = await v.report(runs, { path: multi, title: 'laptop vs server' });
  // Two load runs (two servers): the serving charts from their chart-only rows.
  serving = join(outDir, 'serving.html');
  servingResults = await v.report(
    ['server-a', 'server-b'].map((name, i) => ({
      name,
      rows: [{ task: 'serving', status: 'completed', peak_output_tps: 400 / (i + 1), model: 'mock' }],
      chartRows: [...SERVING_POINTS, ...SERVING_SAMPLES].map((r) =>
        r['task'] === 'serving_point' ? { ...r, output_tps: (r['output_tps'] as number) / (i + 1) } : r,
      ),
      environment,
    })),
    { path: serving, title: 'server-a vs server-b' },
  );
});

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

describe('HTML report (static checks)', () => {
  it('is self-contained: vega, vega-lite and vega-embed inlined, no remote scripts or styles', () => {
    const html = readFileSync(single, 'utf8');
    expect(html.length).toBeGreaterThan(500_000);
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    expect(html).not.toMatch(/cdn\.jsdelivr|unpkg\.com/);
    expect(html).toContain('vegaEmbed');
    expect(html).toContain('AMD EPYC 9R45 (Zen 5)');
    expect(html).toContain('cpu.cores');
  });

  it('lists the charts that could not be drawn, with the reason', () => {
    expect(singleResults['training_curve']).toMatchObject({ status: 'skipped' });
    const html = readFileSync(single, 'utf8');
    expect(html).toMatch(/Not applicable to this data \(it has none of their columns\): [^<]*training_curve/);
    // The comparison comes first, then the charts, then the environments (folded), then what was not drawn.
    const at = (text: string): number => html.indexOf(text);
    expect(at('<h2>Comparison</h2>')).toBeGreaterThan(0);
    expect(at('<h2>Comparison</h2>')).toBeLessThan(at('<h2>Charts</h2>'));
    expect(at('<h2>Charts</h2>')).toBeLessThan(at('<h2>Environment</h2>'));
    expect(at('<h2>Environment</h2>')).toBeLessThan(at('<h2>Charts not drawn</h2>'));
    expect(html).toContain('<details class="env">');
    expect(html).toMatch(/<p class="pareto"><strong>Pareto-optimal<\/strong>/);
    expect(html).toMatch(/<td class="(first )?best" title="[^"]+ \(best\)">/);
    expect(multiResults['training_curve']?.status).toBe('skipped');
  });

  it('shows the warnings in a banner above the comparison (escaped), and no banner without warnings', async () => {
    const runs = [{ name: 'r', rows: [{ model: 'm', peak_tps: 1 }] }];
    const html = await buildHtmlReport({ title: 't', runs, charts: [], warnings: ['busy <load 3>', 'tail'] });
    const banner = /<aside class="warnings" role="alert">.*?<\/aside>/.exec(html)?.[0] ?? '';
    expect(banner).toContain('<li>busy &lt;load 3&gt;</li><li>tail</li>');
    expect(html.indexOf(banner)).toBeLessThan(html.indexOf('<h2>Comparison</h2>'));
    expect(await buildHtmlReport({ title: 't', runs, charts: [] })).not.toContain('class="warnings"');
  });

  it('escapes text and JSON embedded in the page', async () => {
    expect(escapeHtml('<a href="x">&\'</a>')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;');
    expect(scriptJson({ s: '</script><!--' })).not.toMatch(/<\/script|<!--/);
    const html = await buildHtmlReport({
      title: '<b>t</b>',
      runs: [{ name: 'r</script>', rows: [{ model: '<img src=x>', peak_tps: 1 }] }],
      charts: [],
    });
    expect(html).not.toContain('<img src=x>');
    expect(html).not.toContain('r</script>');
    await expect(buildHtmlReport({ title: 't', runs: [], charts: [] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('HTML report in headless Chromium', () => {
  it('finds the Chromium binary', () => {
    expect(
      existsSync(CHROMIUM),
      `Chromium not found at ${CHROMIUM}. Install it (Debian: apt-get install chromium; .ci/run does this) or set CHROMIUM_PATH.`,
    ).toBe(true);
  });

  // Load runs have no comparison table: their points' metrics differ, so per run only setup would be left.
  for (const [label, page, results, shot, minDrawn, minSummaryRows] of [
    ['one run', () => single, () => singleResults, 'report-single.png', 5, 6],
    ['two runs side by side', () => multi, () => multiResults, 'report-compare.png', 5, 6],
    ['two load runs (serving charts)', () => serving, () => servingResults, 'report-serving.png', 3, 0],
  ] as const) {
    it(`renders every chart of ${label} with no console error, offline`, async () => {
      const browser = await launchChromium();
      try {
        const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, offline: true });
        const tab = await context.newPage();
        const problems: string[] = [];
        tab.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
        });
        tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
        tab.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
        await tab.goto(pathToFileURL(page()).href);
        await tab.waitForSelector('body[data-charts-done="true"]', { timeout: 30_000 });
        const state = await tab.evaluate(
          () => (globalThis as unknown as { __dantinoxCharts: unknown }).__dantinoxCharts,
        );
        const drawn = Object.entries(results())
          .filter(([, r]) => r.status === 'rendered')
          .map(([n]) => n);
        expect(drawn.length).toBeGreaterThanOrEqual(minDrawn);
        expect(state).toMatchObject({ total: drawn.length, rendered: drawn.length, failed: [] });
        for (const name of drawn) {
          const marks = await tab
            .locator(`[data-chart="${name}"] svg.marks path, [data-chart="${name}"] svg.marks text`)
            .count();
          expect(marks, `${name} has SVG marks`).toBeGreaterThan(10);
        }
        const summaryRows = await tab.locator('table.summary tbody tr').count();
        expect(summaryRows).toBeGreaterThanOrEqual(minSummaryRows);
        await tab.screenshot({ path: join(SCREENSHOT_DIR, shot), fullPage: true });
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  }
});

describe('buildHtmlReport: environment headline', () => {
  const headline = async (environment: Record<string, unknown>) => {
    const html = await buildHtmlReport({
      title: 't',
      runs: [{ name: 'r', rows: [], environment }],
      charts: [],
    });
    return /<summary><strong>r<\/strong> <span class="note">([^<]*)<\/span>/.exec(html)?.[1];
  };

  it('names the thread count as threads, whichever fields before it are missing', async () => {
    const base = { cpuModel: 'EPYC', engine: 'ort', node: 'v20.20.2' };
    expect(await headline({ ...base, threads: 2 })).toBe('EPYC · ort · 2 threads · v20.20.2');
    expect(await headline({ hostname: 'vm', ...base, threads: 2 })).toBe(
      'vm · EPYC · ort · 2 threads · v20.20.2',
    );
    // a load run has no thread count: nothing is called threads
    expect(await headline({ ...base, threads: null })).toBe('EPYC · ort · v20.20.2');
  });
});
