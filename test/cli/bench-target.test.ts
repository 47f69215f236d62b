/**
 * `dantinox bench --target node,browser`: the same `tiny` model in this process and in a headless Chromium, as two
 * matrix variants of one run, drawn side by side — the browser ÷ Node ratios in report.html's table and the parity
 * chart — with the page's facts in the browser variant's identity and environment.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { ensureBuilt, ROOT, runCli } from './built-cli.js';
import { TINY_SWEEP } from './tiny-sweep.js';

beforeAll(() => ensureBuilt(), 180_000);

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-target-'));
const bench = (target: string, out: string, ...extra: string[]) =>
  runCli(
    [
      'bench',
      '--config',
      'tiny',
      '--target',
      target,
      '--threads',
      '2',
      '--tasks',
      'throughput,latency',
      '--gen-tokens',
      '3',
      ...TINY_SWEEP,
      '--no-calibrate',
      '--quiet',
      '--out',
      out,
      ...extra,
    ],
    { cwd },
  );

describe('bench --target node,browser', () => {
  it('runs both targets into one report with the parity ratio and chart', { timeout: 300_000 }, async () => {
    const run = await bench('node,browser', 'out');
    expect(run.code, run.stderr).toBe(0);
    const node = SuiteReport.load(join(cwd, 'out', 'tiny-node-t2', 'results.json'));
    const browser = SuiteReport.load(join(cwd, 'out', 'tiny-browser-t2', 'results.json'));
    // Each names its own runtime's version, side by side: the pinned releases (the page reports its own).
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(node.modelMeta['engine']).toBe(`onnxruntime-node ${pkg.dependencies['onnxruntime-node']} (cpu)`);
    expect(browser.modelMeta['engine']).toBe(
      `onnxruntime-web ${pkg.devDependencies['onnxruntime-web']} (wasm)`,
    );
    expect(browser.modelMeta['target']).toBe('browser');
    expect(browser.modelMeta['threads']).toBe(2);
    expect(browser.environment?.browser?.crossOriginIsolated).toBe(true);
    for (const r of [node, browser])
      expect(r.results.map((x) => `${x.task}:${x.status}`)).toEqual([
        'throughput:completed',
        'latency:completed',
      ]);
    const html = readFileSync(join(cwd, 'out', 'report.html'), 'utf8');
    expect(html).toContain('Browser ÷ Node (speed)');
    expect(existsSync(join(cwd, 'out', 'charts', 'matrix-parity.svg'))).toBe(true);
  });

  it('resumes the same run; --no-isolation is recorded; a run measured on another target is refused naming --target', {
    timeout: 120_000,
  }, async () => {
    const results = join(cwd, 'out', 'tiny-browser-t2', 'results.json');
    const written = statSync(results).mtimeMs;
    const same = await bench('node,browser', 'out', '--resume');
    expect(same.code, same.stderr).toBe(0);
    // Both variants were complete: neither is measured again.
    expect(statSync(results).mtimeMs).toBe(written);
    // --no-isolation: the page served without COOP/COEP runs one thread whatever was asked, and says so.
    const browserRun = await bench('browser', 'single', '--no-isolation');
    expect(browserRun.code, browserRun.stderr).toBe(0);
    const unisolated = SuiteReport.load(join(cwd, 'single', 'results.json'));
    expect(unisolated.modelMeta['cross_origin_isolated']).toBe(false);
    expect(unisolated.modelMeta['threads_asked']).toBe(2);
    expect(unisolated.modelMeta['threads']).toBe(1);
    const onNode = await bench('node', 'single', '--resume');
    expect(onNode.code).toBe(2);
    expect(onNode.stderr).toMatch(
      /^error: --resume: .* \(--target onnxruntime-web .* there, node in this command\)/,
    );
  });
});
