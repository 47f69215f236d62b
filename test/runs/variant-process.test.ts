/**
 * Each variant of a matrix runs in its own process, so its memory figures are its own: q4's peak RSS after fp32 and
 * q8 in one sweep is within 10% of q4 run alone (in one process the high-water mark of fp32 carries over: +25%
 * measured on `small`). Three runs at load average ≈ 5 on 2 vCPUs: q4 399.6 / 395.9 / 395.7 MB in the sweep, 398.2 /
 * 396.0 / 405.2 MB alone (0.3%, 0.0%, 2.3%). The variants' rows still say what ran (the model line comes back from
 * the child).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { ensureBuilt, runCli } from '../cli/built-cli.js';
import { TINY_SWEEP } from '../cli/tiny-sweep.js';

const SWEEP = ['--tasks', 'throughput', ...TINY_SWEEP, '--no-calibrate', '--no-charts'];

/** `peak_rss_mb` of the throughput row of the run in `dir`. */
function peakRss(dir: string): number {
  const row = SuiteReport.load(join(dir, 'results.json')).results.find((r) => r.task === 'throughput');
  return row?.metrics['peak_rss_mb'] ?? Number.NaN;
}

describe('variants in their own process', () => {
  let tmp: string;
  beforeAll(() => {
    ensureBuilt();
    tmp = mkdtempSync(join(tmpdir(), 'dantinox-isolate-'));
  });

  it("q4's peak RSS in a sweep after fp32 and q8 is within 10% of q4 run alone", async () => {
    const sweep = await runCli(
      ['bench', '--config', 'small', '--dtype', 'fp32,q8,q4', ...SWEEP, '--out', 'sweep'],
      {
        cwd: tmp,
      },
    );
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(sweep.stdout).toContain('Model: small (built-in preset');
    const alone = await runCli(['bench', '--config', 'small', '--dtype', 'q4', ...SWEEP, '--out', 'alone'], {
      cwd: tmp,
    });
    expect(alone.code, alone.stderr).toBe(0);
    const inSweep = peakRss(join(tmp, 'sweep/small-q4'));
    const byItself = peakRss(join(tmp, 'alone'));
    expect(Math.abs(inSweep / byItself - 1)).toBeLessThan(0.1);
    // fp32 needs more than q4: a shared high-water mark would show it in q4's row.
    expect(peakRss(join(tmp, 'sweep/small-fp32'))).toBeGreaterThan(inSweep);
    expect(peakRss(join(tmp, 'sweep/small-q8'))).toBeGreaterThan(0);
  }, 240_000);
});
