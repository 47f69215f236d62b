/**
 * Full-page PNG screenshots of `report.html` files in headless system Chromium (playwright-core), at a
 * 1,280 px wide viewport by default: a way to look at reports of real runs, and to show them, without a desktop.
 *
 *   npm run screenshots -- results/run-1/report.html [results/run-2/report.html …] [--out shots] [--width 1280]
 *
 * Each screenshot is written next to its report (`report.html` → `report.png`), or into `--out` (named
 * `<folder>-<report>.png` when two reports share a file name), after every chart of the page has been drawn;
 * the page is opened offline, as the report promises to work. Prints one line per report: the PNG's path, the
 * charts drawn, the page's width against the viewport's (a report wider than the viewport scrolls sideways) and
 * any console error. Exits 1 when a report could not be shot or a chart failed. `CHROMIUM_PATH` (or
 * `--chromium`) names the browser; the default is Debian's `/usr/bin/chromium`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string' },
    width: { type: 'string', default: '1280' },
    height: { type: 'string', default: '900' },
    chromium: { type: 'string', default: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium' },
    timeout: { type: 'string', default: '60000' },
  },
});

/** Flags: headless, no sandbox (containers), no GPU, no background network traffic. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

/** What the report's own script records while drawing its charts (`window.__dantinoxCharts`). */
interface ChartState {
  total: number;
  rendered: number;
  failed: string[];
}

/** The PNG path of each report: next to it, or in `out` (prefixed by its folder when names collide). */
function targets(reports: readonly string[], out: string | undefined): string[] {
  const stem = (p: string): string => basename(p, extname(p));
  return reports.map((p) => {
    if (out === undefined) return join(dirname(p), `${stem(p)}.png`);
    const clash = reports.filter((q) => stem(q) === stem(p)).length > 1;
    return join(out, `${clash ? `${basename(dirname(p))}-` : ''}${stem(p)}.png`);
  });
}

async function main(): Promise<number> {
  const width = Number(values.width);
  const height = Number(values.height);
  const timeout = Number(values.timeout);
  if (positionals.length === 0 || ![width, height, timeout].every((n) => Number.isInteger(n) && n > 0)) {
    console.error(
      'usage: npm run screenshots -- <report.html>… [--out dir] [--width 1280] [--height 900] [--timeout ms]',
    );
    return 2;
  }
  if (!existsSync(values.chromium)) {
    console.error(
      `Chromium not found at ${values.chromium}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.`,
    );
    return 2;
  }
  const reports = positionals.map((p) => resolve(p));
  const missing = reports.filter((p) => !existsSync(p));
  if (missing.length > 0) {
    console.error(`No such file: ${missing.join(', ')}`);
    return 2;
  }
  const out = values.out === undefined ? undefined : resolve(values.out);
  if (out !== undefined) mkdirSync(out, { recursive: true });
  const pngs = targets(reports, out);
  let failures = 0;
  const browser = await chromium.launch({ executablePath: values.chromium, args: CHROMIUM_ARGS });
  try {
    for (const [i, report] of reports.entries()) {
      const png = pngs[i] as string;
      const context = await browser.newContext({ viewport: { width, height }, offline: true });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        await page.goto(pathToFileURL(report).href);
        await page.waitForSelector('body[data-charts-done="true"]', { timeout });
        // Page code as text: this script is compiled without the DOM library.
        const state = await page.evaluate<ChartState>('window.__dantinoxCharts');
        const pageWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        await page.screenshot({ path: png, fullPage: true });
        const wide = pageWidth > width ? `, page ${pageWidth} px wide: scrolls sideways` : '';
        console.log(`${png}  (${state.rendered}/${state.total} charts${wide})`);
        for (const f of state.failed) console.error(`  chart failed: ${f}`);
        for (const e of errors) console.error(`  console error: ${e}`);
        if (state.failed.length > 0) failures++;
      } catch (error) {
        failures++;
        console.error(`${report}: no screenshot: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  return failures > 0 ? 1 : 0;
}

process.exitCode = await main();
