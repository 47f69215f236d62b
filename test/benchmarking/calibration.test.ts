import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  atLeastMeasured,
  cacheDirectory,
  calibrationPath,
  loadOrCalibrate,
  machineFingerprint,
  parseCpuGhz,
  readCalibration,
  theoreticalPeak,
} from '../../src/benchmarking/calibration.js';
import type { Logger } from '../../src/benchmarking/logger.js';
import { messages } from '../../src/messages.js';
import { ceilingsOf, type OrtCalibration } from '../../src/models/calibration/calibrate-ort.js';

/** A fast stand-in for the ONNX Runtime probes, counting its calls. */
function fakeMeasure() {
  const calls: number[] = [];
  const measure = async (o: { threads: number }): Promise<OrtCalibration> => {
    calls.push(o.threads);
    const probes = [
      { id: 'gemm-fp32', measures: 'fp32', description: 'x', unit: 'GFLOP/s', value: 100 + calls.length },
      { id: 'gemm-q8-integer', measures: 'q8', description: 'x', unit: 'GFLOP/s', value: 300 },
      { id: 'gemm-q8-dynamic', measures: 'q8', description: 'x', unit: 'GFLOP/s', value: 400 },
      { id: 'gemm-fp16', measures: 'fp16', description: 'x', unit: 'GFLOP/s', unavailable: 'no kernel' },
      { id: 'gemv-fp32', measures: 'bandwidth', description: 'x', unit: 'GB/s', value: 20 },
      { id: 'copy', measures: 'bandwidth', description: 'x', unit: 'GB/s', value: 15 },
    ] as const;
    return { probes, ceilings: ceilingsOf(probes), durationMs: 5 };
  };
  return { calls, measure };
}

/** An idle machine's load averages. */
const idle = (): number[] => [0, 0, 0];

/** `loadOrCalibrate` on 2 threads of engine `e 1`, on an idle machine, with `more` options on top. */
const calibrate = (
  cacheDir: string,
  measure: ReturnType<typeof fakeMeasure>['measure'],
  more: Partial<Parameters<typeof loadOrCalibrate>[0]> = {},
) => loadOrCalibrate({ threads: 2, cacheDir, measure, engine: 'e 1', loadAverage: idle, ...more });

function collectingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, log: (level, message) => void lines.push(`${level}: ${message}`) };
}

describe('calibration cache', () => {
  it('measures once, then reads the cache; --recalibrate measures again', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const { calls, measure } = fakeMeasure();
    const first = await calibrate(cacheDir, measure);
    expect(first.cached).toBe(false);
    expect(first.path).toBe(calibrationPath(machineFingerprint('e 1', 2), cacheDir));
    expect(first.calibration.ceilings).toEqual({
      source: 'calibrated',
      gemmGflops: { fp32: 101, q8: 400 }, // the best kernel per dtype; fp16 could not run
      bandwidthGbs: 20,
    });
    const again = await calibrate(cacheDir, measure);
    expect(again).toEqual({ ...first, cached: true });
    // Another thread count or engine is another machine state: its own file.
    const other = await calibrate(cacheDir, measure, { threads: 1 });
    expect(other.path).not.toBe(first.path);
    const fresh = await calibrate(cacheDir, measure, { recalibrate: true });
    expect(fresh.cached).toBe(false);
    expect(fresh.calibration.ceilings.gemmGflops['fp32']).toBe(103);
    expect(calls).toEqual([2, 1, 2]);
  });

  it('a calibration measured on a busy machine is cached marked, reused while busy, measured again once idle', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const { calls, measure } = fakeMeasure();
    const half = machineFingerprint('e 1', 2).logicalCpus / 2; // busy: a 1-minute load above half the CPUs
    let load = half + 0.5;
    const options = { threads: 2, cacheDir, measure, engine: 'e 1', loadAverage: () => [load, 0, 0] };
    const first = await loadOrCalibrate(options);
    expect(first.cached).toBe(false);
    expect(first.busy).toBe(messages.busyCalibration(half + 0.5, half * 2));
    expect(readCalibration(first.path)?.loadAverage[0]).toBe(half + 0.5); // the mark is in the file
    const stillBusy = await loadOrCalibrate(options);
    expect(stillBusy).toMatchObject({ cached: true, busy: first.busy });
    load = half; // exactly half: idle
    const idleAgain = await loadOrCalibrate(options);
    expect(idleAgain.cached).toBe(false);
    expect(idleAgain.busy).toBeUndefined();
    expect(await loadOrCalibrate(options)).toEqual({ ...idleAgain, cached: true });
    expect(calls).toEqual([2, 2]);
  });

  it('a cache folder that cannot be written costs a warning, not the run: the calibration is returned, not stored', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const cacheDir = join(root, 'a-file');
    writeFileSync(cacheDir, 'not a folder'); // the cache folder's place is taken by a file
    const logger = collectingLogger();
    const { calls, measure } = fakeMeasure();
    const out = await calibrate(cacheDir, measure, { logger });
    expect(out.cached).toBe(false);
    expect(out.calibration.ceilings.gemmGflops['fp32']).toBe(101);
    expect(out.notStored).toMatch(/^the calibration could not be cached in .*a-file.*DANTINOX_CACHE_DIR/);
    expect(logger.lines).toEqual([`warn: ${out.notStored}`]);
    await calibrate(cacheDir, measure, { logger });
    expect(calls).toEqual([2, 2]); // nothing was cached: measured again
  });

  it('a cached file whose ceilings are not rates (−1, 0) is refused with a warning and measured again', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const { calls, measure } = fakeMeasure();
    const first = await calibrate(cacheDir, measure);
    for (const bad of [-1, 0]) {
      const damaged = {
        ...first.calibration,
        ceilings: { ...first.calibration.ceilings, gemmGflops: { fp32: bad } },
      };
      writeFileSync(first.path, JSON.stringify(damaged));
      const logger = collectingLogger();
      const again = await calibrate(cacheDir, measure, { logger });
      expect(again.cached).toBe(false);
      expect(logger.lines[0]).toMatch(/ceilings\.gemmGflops\.fp32/);
    }
    expect(calls).toEqual([2, 2, 2]);
  });

  it('a corrupted or foreign cache file is ignored with a warning and recalibrated', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const path = calibrationPath(machineFingerprint('e 1', 2), cacheDir);
    mkdirSync(dirname(path), { recursive: true });
    for (const junk of ['{"format": "dantinox-calibr', JSON.stringify({ format: 'other', ceilings: 3 })]) {
      writeFileSync(path, junk);
      const logger = collectingLogger();
      const { calls, measure } = fakeMeasure();
      const out = await calibrate(cacheDir, measure, { logger });
      expect(out.cached).toBe(false);
      expect(calls).toEqual([2]);
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]).toMatch(/^warn: /);
      expect(logger.lines[0]).toContain(messages.badCalibrationCache(path, '').split(' (')[0]);
      expect(readCalibration(path)).toEqual(out.calibration); // rewritten, valid again
    }
  });

  it('a missing file is simply absent (no warning)', () => {
    const logger = collectingLogger();
    expect(readCalibration(join(tmpdir(), 'no-such-dir', 'x.json'), logger)).toBeUndefined();
    expect(logger.lines).toEqual([]);
  });

  it('lives in the documented cache directory', () => {
    expect(cacheDirectory({ DANTINOX_CACHE_DIR: '/c' }, 'linux', '/home/u')).toBe('/c');
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x' }, 'linux', '/home/u')).toBe('/x/dantinox');
    expect(cacheDirectory({}, 'linux', '/home/u')).toBe('/home/u/.cache/dantinox');
    expect(cacheDirectory({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Caches/dantinox');
    expect(cacheDirectory({ LOCALAPPDATA: 'C:\\L' }, 'win32', 'C:\\U')).toContain('dantinox');
    expect(calibrationPath(machineFingerprint('e', 1), '/c')).toMatch(
      /^\/c\/calibration\/[0-9a-f]{16}\.json$/,
    );
  });

  it('records a labelled theoretical peak only when the clock is known', () => {
    const fp = { ...machineFingerprint('e', 2), cpuFlags: ['avx2', 'fma'], logicalCpus: 4 };
    const t = theoreticalPeak(fp, { ghz: 3, from: 'test' });
    expect(t).toMatchObject({ ceilings: { source: 'theoretical', gemmGflops: { fp32: 2 * 3 * 32 } } });
    expect('basis' in t && t.basis).toContain('2 cores × 3.000 GHz');
    expect(theoreticalPeak(fp, undefined)).toEqual({
      unavailable: messages.noTheoreticalPeak('the clock frequency is not reported'),
    });
    expect(parseCpuGhz('model name\t: Intel(R) Xeon(R) CPU @ 2.10GHz\ncpu MHz\t\t: 2095.1\n')).toEqual({
      ghz: 2.1,
      from: 'the model name',
    });
    expect(parseCpuGhz('model name\t: AMD EPYC\ncpu MHz\t\t: 2445.402\n')?.ghz).toBeCloseTo(2.445402, 9);
    expect(parseCpuGhz('model name\t: Apple M2\n')).toBeUndefined();
  });

  it('never reports a theoretical peak below the measured ceiling (the clock read was not the running one)', () => {
    const fp = { ...machineFingerprint('e', 2), cpuFlags: ['avx2', 'fma'], logicalCpus: 4 };
    const t = theoreticalPeak(fp, { ghz: 3, from: 'test' }); // 192 GFLOP/s fp32
    const measured = (fp32: number) => ({ source: 'calibrated' as const, gemmGflops: { fp32 } });
    expect(atLeastMeasured(t, measured(150))).toBe(t);
    expect(atLeastMeasured(t, measured(192))).toBe(t);
    const below = atLeastMeasured(t, measured(239));
    expect(below).toEqual({
      unavailable: messages.theoreticalBelowMeasured(192, 239, 'basis' in t ? t.basis : ''),
    });
  });

  it('the cache file is JSON a person can read', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const out = await calibrate(cacheDir, fakeMeasure().measure);
    expect(existsSync(out.path)).toBe(true);
    const json = JSON.parse(readFileSync(out.path, 'utf8'));
    expect(json.format).toBe('dantinox-calibration/1');
    expect(json.fingerprint.threads).toBe(2);
  });
});
