import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  atLeastMeasured,
  busyCalibration,
  type CalibrateOptions,
  type Calibration,
  cacheDirectory,
  calibrationKey,
  calibrationPath,
  cpuGhz,
  loadOrCalibrate,
  machineFingerprint,
  PROBE_SET_REVISION,
  parseCpuGhz,
  readCalibration,
  theoreticalPeak,
  writeCalibration,
} from '../../src/benchmarking/calibration.js';
import { readCpuInfo } from '../../src/benchmarking/environment.js';
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

/** A measurement as `loadOrCalibrate` calls it. */
type Measure = NonNullable<CalibrateOptions['measure']>;

/** An idle machine's load averages. */
const idle = (): number[] => [0, 0, 0];

/** `loadOrCalibrate` on 2 threads of engine `e 1`, on an idle machine, with `more` options on top. */
const calibrate = (cacheDir: string, measure: Measure, more: Partial<CalibrateOptions> = {}) =>
  loadOrCalibrate({ threads: 2, cacheDir, measure, engine: 'e 1', loadAverage: idle, ...more });

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

/** A calibration fixture with every optional field set (the numbers are the test's, not a machine's). */
const fixture: Calibration = {
  format: 'dantinox-calibration/1',
  key: '16e144018631c2d3',
  fingerprint: {
    cpuModel: 'Test CPU',
    cpuFlags: ['avx2', 'fma'],
    logicalCpus: 4,
    totalMemoryBytes: 8 * 2 ** 30,
    platform: 'linux x64',
    engine: 'e 1',
    threads: 2,
  },
  measuredAt: '2026-12-01T00:00:00.000Z',
  loadAverage: [0.5, 0.25, 0.125],
  loadAverageEnd: [1.5, 0.5, 0.25],
  packageVersion: '9.9.9',
  durationMs: 7,
  llcBytes: 32 * 2 ** 20,
  probes: [
    {
      id: 'gemm-fp32',
      measures: 'fp32',
      description: 'd',
      unit: 'GFLOP/s',
      value: 100,
      medianMs: 2,
      p10Ms: 1,
      p90Ms: 3,
      n: 9,
    },
    { id: 'copy', measures: 'bandwidth', description: 'd', unit: 'GB/s', value: 15 },
    { id: 'gemm-fp16', measures: 'fp16', description: 'd', unit: 'GFLOP/s', unavailable: 'no kernel' },
  ],
  ceilings: { source: 'calibrated', gemmGflops: { fp32: 100 }, bandwidthGbs: 15 },
  theoretical: { ceilings: { source: 'theoretical', gemmGflops: { fp32: 192, q8: 768 } }, basis: 'b' },
};

describe('calibration known answers', () => {
  it('the cache key is 16 hex digits of the SHA-256 of the probe set revision and the fingerprint', () => {
    // sha256('3\n' + JSON.stringify(fingerprint)), computed outside dantinox.
    expect(PROBE_SET_REVISION).toBe(3);
    expect(calibrationKey(fixture.fingerprint)).toBe('16e144018631c2d3');
    expect(calibrationPath(fixture.fingerprint, '/c')).toBe(
      join('/c', 'calibration', '16e144018631c2d3.json'),
    );
    expect(calibrationKey({ ...fixture.fingerprint, threads: 3 })).not.toBe('16e144018631c2d3');
    // Ceilings measured by an earlier probe set (square GEMM only; median rates) are not read: another key.
    expect(calibrationKey(fixture.fingerprint, 1)).not.toBe('16e144018631c2d3');
    // sha256('2\n' + …), the key of the median-rate probe set.
    expect(calibrationKey(fixture.fingerprint, 2)).toBe('13fffd5ae26fe2ae');
  });

  it('the fingerprint is this machine as the OS reports it', () => {
    const cpu = readCpuInfo();
    expect(machineFingerprint('e 1', 3)).toStrictEqual({
      cpuModel: cpu.model,
      cpuFlags: cpu.flags,
      logicalCpus: os.cpus().length,
      totalMemoryBytes: os.totalmem(),
      platform: `${os.platform()} ${os.arch()}`,
      engine: 'e 1',
      threads: 3,
    });
  });

  it('an empty variable is not a cache directory; Windows uses LOCALAPPDATA, else AppData\\Local', () => {
    expect(cacheDirectory({ DANTINOX_CACHE_DIR: '' }, 'linux', '/home/u')).toBe('/home/u/.cache/dantinox');
    expect(cacheDirectory({ XDG_CACHE_HOME: '' }, 'linux', '/home/u')).toBe('/home/u/.cache/dantinox');
    expect(cacheDirectory({ DANTINOX_CACHE_DIR: '/c' }, 'darwin', '/Users/u')).toBe('/c');
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x' }, 'darwin', '/Users/u')).toBe(
      '/Users/u/Library/Caches/dantinox',
    );
    expect(cacheDirectory({ LOCALAPPDATA: 'L' }, 'win32', 'U')).toBe(join('L', 'dantinox', 'Cache'));
    expect(cacheDirectory({}, 'win32', 'U')).toBe(join('U', 'AppData', 'Local', 'dantinox', 'Cache'));
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x' }, 'win32', 'U')).toBe(
      join('U', 'AppData', 'Local', 'dantinox', 'Cache'),
    );
  });

  it('reads the clock from the model name, with or without spaces, else from a positive "cpu MHz"', () => {
    expect(parseCpuGhz('model name: Xeon @2.5GHz\n')).toEqual({ ghz: 2.5, from: 'the model name' });
    expect(parseCpuGhz('model name  :  Xeon CPU @  3.25  GHz\n')).toEqual({
      ghz: 3.25,
      from: 'the model name',
    });
    const fromMhz = { ghz: 2.5, from: '"cpu MHz" of /proc/cpuinfo, the current clock, not the boost' };
    expect(parseCpuGhz('model name\t: AMD EPYC\ncpu MHz:2500\n')).toEqual(fromMhz);
    expect(parseCpuGhz('cpu MHz \t :  2500.0\n')).toEqual(fromMhz);
    // A line must start with its key: a key inside another line is not it.
    expect(parseCpuGhz('xmodel name : X @ 9.00GHz\ncpu MHz : 2500\n')).toEqual(fromMhz);
    expect(parseCpuGhz('model name : X\nxcpu MHz : 2500\n')).toBeUndefined();
    // A zero clock is no clock.
    expect(parseCpuGhz('cpu MHz\t\t: 0\n')).toBeUndefined();
    expect(parseCpuGhz('cpu MHz\t\t: 0.001\n')?.ghz).toBeCloseTo(1e-6, 15);
  });

  it("this machine's clock: the kernel's maximum when it gives one, else /proc/cpuinfo", () => {
    let khz = 0;
    try {
      khz = Number(readFileSync('/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq', 'utf8'));
    } catch {
      // no cpufreq
    }
    let cpuinfo: string | undefined;
    try {
      cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      // not Linux
    }
    const expected =
      khz > 0
        ? { ghz: khz / 1e6, from: 'cpuinfo_max_freq' }
        : cpuinfo === undefined
          ? undefined
          : parseCpuGhz(cpuinfo);
    expect(cpuGhz()).toStrictEqual(expected);
  });

  it('the theoretical peak: cores capped at the logical CPUs, its basis spelled out, none without an FMA unit', () => {
    const fp = { ...fixture.fingerprint, threads: 8 }; // 4 logical CPUs
    expect(theoreticalPeak(fp, { ghz: 2.5, from: 'a test' })).toStrictEqual({
      ceilings: { source: 'theoretical', gemmGflops: { fp32: 4 * 2.5 * 32 } },
      basis: '4 cores × 2.500 GHz (from a test) × 32 fp32 FLOPs/cycle (two FMA pipes assumed)',
    });
    expect(theoreticalPeak({ ...fp, threads: 1 }, { ghz: 2, from: 'x' })).toMatchObject({
      basis: '1 cores × 2.000 GHz (from x) × 32 fp32 FLOPs/cycle (two FMA pipes assumed)',
    });
    expect(theoreticalPeak({ ...fp, cpuFlags: ['sse3'] }, { ghz: 3, from: 'x' })).toStrictEqual({
      unavailable: messages.noTheoreticalPeak('no known vector FMA unit among the ISA flags'),
    });
  });

  it('a peak or ceiling without fp32 cannot be compared: the theory stands; an unavailable one passes through', () => {
    const theory = { ceilings: { source: 'theoretical' as const, gemmGflops: { q8: 5 } }, basis: 'b' };
    const measured = { source: 'calibrated' as const, gemmGflops: { fp32: 100 } };
    expect(atLeastMeasured(theory, measured)).toBe(theory);
    const fp32Theory = { ceilings: { source: 'theoretical' as const, gemmGflops: { fp32: 5 } }, basis: 'b' };
    expect(atLeastMeasured(fp32Theory, { source: 'calibrated', gemmGflops: { q8: 100 } })).toBe(fp32Theory);
    const none = { unavailable: 'why' };
    expect(atLeastMeasured(none, measured)).toBe(none);
  });

  it('busy: the load of other processes above half the logical CPUs, the run’s own threads left out', () => {
    const at = (loadAverage: number[], loadAverageEnd?: number[]): Calibration => {
      const { loadAverageEnd: _, ...rest } = fixture; // 4 logical CPUs, 2 threads
      return { ...rest, loadAverage, ...(loadAverageEnd === undefined ? {} : { loadAverageEnd }) };
    };
    expect(busyCalibration(at([2, 9, 9]))).toBeUndefined(); // exactly half: idle
    expect(busyCalibration(at([2.5, 0, 0]))).toBe(messages.busyCalibration(2.5, 4));
    expect(busyCalibration(at([]))).toBeUndefined();
    // At the end the probes' own 2 threads are part of the load: 4.5 − 2 = 2.5 by others.
    expect(busyCalibration(at([0, 0, 0], [4.5, 0, 0]))).toBe(messages.busyCalibration(2.5, 4));
    expect(busyCalibration(at([0, 0, 0], [4, 0, 0]))).toBeUndefined();
    expect(busyCalibration(at([0, 0, 0], []))).toBeUndefined();
  });

  it('writes human-readable JSON through a temporary file, creating the folders, and reads it back whole', () => {
    const root = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const path = join(root, 'a', 'b', 'calibration', 'x.json');
    writeCalibration(path, fixture);
    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(fixture, null, 2)}\n`);
    expect(readdirSync(dirname(path))).toEqual(['x.json']); // no temporary file left
    expect(readCalibration(path)).toStrictEqual(fixture);
    const { theoretical: _, loadAverageEnd: __, llcBytes: ___, ...older } = fixture;
    writeCalibration(path, older);
    expect(readCalibration(path)).toStrictEqual(older);
  });

  it('a failed write throws the file-system error and leaves no temporary file', () => {
    const root = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    // The target is a folder that is not empty: the rename fails after the temporary file was written.
    const target = join(root, 'x.json');
    mkdirSync(join(target, 'inside'), { recursive: true });
    expect(() => writeCalibration(target, fixture)).toThrow();
    expect(readdirSync(root)).toEqual(['x.json']);
    // The folder's place is taken by a file: the folder cannot be made, and that is the error thrown.
    writeFileSync(join(root, 'file'), '');
    const path = join(root, 'file', 'calibration', 'x.json');
    let expected = '';
    try {
      mkdirSync(join(root, 'file', 'calibration'), { recursive: true });
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(expected).not.toBe('');
    expect(() => writeCalibration(path, fixture)).toThrow(expected);
  });

  it('warns with the parse error or the first mismatching field and its problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const path = join(dir, 'x.json');
    const junk = '{"format": "dantinox-calibr';
    writeFileSync(path, junk);
    let parseError = '';
    try {
      JSON.parse(junk);
    } catch (error) {
      parseError = (error as Error).message;
    }
    const logger = collectingLogger();
    expect(readCalibration(path, logger)).toBeUndefined();
    expect(logger.lines).toEqual([`warn: ${messages.badCalibrationCache(path, parseError)}`]);
    writeFileSync(
      path,
      JSON.stringify({ ...fixture, fingerprint: { ...fixture.fingerprint, threads: 'two' } }),
    );
    const second = collectingLogger();
    expect(readCalibration(path, second)).toBeUndefined();
    expect(second.lines).toHaveLength(1);
    // The field's path, then a non-empty problem.
    const problem = second.lines[0]?.match(/\(fingerprint\.threads: (.+)\); recalibrating/)?.[1];
    expect(problem).toMatch(/number/);
  });
});

describe('loadOrCalibrate: what it measures with and what it records', () => {
  /** A measurement that records the options it was called with. */
  function recordingMeasure(fp32 = 101) {
    const seen: Parameters<Measure>[0][] = [];
    const measure: Measure = async (o) => {
      seen.push(o);
      const probes = [
        { id: 'gemm-fp32', measures: 'fp32', description: 'x', unit: 'GFLOP/s', value: fp32 },
        { id: 'copy', measures: 'bandwidth', description: 'x', unit: 'GB/s', value: 15 },
      ] as const;
      return { probes, ceilings: ceilingsOf(probes), durationMs: 5 };
    };
    return { seen, measure };
  }

  it('passes the thread count, the 20 s default budget or the given one, and the progress callback only when given', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const { seen, measure } = recordingMeasure();
    await calibrate(cacheDir, measure);
    const onProbe = (): void => {};
    await calibrate(cacheDir, measure, { recalibrate: true, budgetMs: 5, onProbe, threads: 3 });
    expect(seen).toStrictEqual([
      { threads: 2, budgetMs: 20_000 },
      { threads: 3, budgetMs: 5, onProbe },
    ]);
  });

  it('records the fingerprint, its key, the load averages at the start and the end, the version and the probes', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const { measure } = recordingMeasure();
    const loads = [
      [0.1, 0.2, 0.3],
      [0.4, 0.5, 0.6],
      [0.7, 0.8, 0.9],
    ];
    let calls = 0;
    const loadAverage = (): number[] => loads[calls++] ?? [];
    const before = Date.now();
    const { calibration, path } = await calibrate(cacheDir, measure, { loadAverage });
    const after = Date.now();
    expect(calls).toBe(3); // the idle check of the cache, then the start and the end of the measurement
    const fingerprint = machineFingerprint('e 1', 2);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(calibration).toMatchObject({
      format: 'dantinox-calibration/1',
      key: calibrationKey(fingerprint),
      fingerprint,
      loadAverage: [0.4, 0.5, 0.6],
      loadAverageEnd: [0.7, 0.8, 0.9],
      packageVersion: pkg.version,
      durationMs: 5,
      ceilings: { source: 'calibrated', gemmGflops: { fp32: 101 }, bandwidthGbs: 15 },
    });
    const measuredAt = Date.parse(calibration.measuredAt);
    expect(measuredAt).toBeGreaterThanOrEqual(before);
    expect(measuredAt).toBeLessThanOrEqual(after);
    expect(calibration.measuredAt).toBe(new Date(measuredAt).toISOString());
    expect(readCalibration(path)).toStrictEqual(calibration);
  });

  it("records this machine's theoretical peak, or why there is none (as when it is below the measurement)", async () => {
    for (const fp32 of [1e-6, 1e9]) {
      const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
      const { measure } = recordingMeasure(fp32);
      const { calibration } = await calibrate(cacheDir, measure);
      const theory = atLeastMeasured(
        theoreticalPeak(machineFingerprint('e 1', 2), cpuGhz()),
        calibration.ceilings,
      );
      if ('unavailable' in theory) {
        expect(calibration.theoreticalUnavailable).toBe(theory.unavailable);
        expect(calibration).not.toHaveProperty('theoretical');
      } else {
        expect(calibration.theoretical).toStrictEqual(theory);
        expect(calibration).not.toHaveProperty('theoreticalUnavailable');
      }
    }
    // No clock can make a peak above a measured 10⁹ GFLOP/s.
    const { calibration } = await calibrate(
      mkdtempSync(join(tmpdir(), 'dantinox-cal-')),
      recordingMeasure(1e9).measure,
    );
    expect(calibration.theoreticalUnavailable).toMatch(
      /^theoretical peak unknown|^the theoretical fp32 peak/,
    );
  });

  it("without an engine label, the fingerprint is ONNX Runtime's CPU engine", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const { loadOrt, ortEngineLabel } = await import('../../src/models/engines/ort/index.js');
    const engine = ortEngineLabel(await loadOrt(), 'cpu');
    const out = await loadOrCalibrate({
      threads: 2,
      cacheDir,
      measure: recordingMeasure().measure,
      loadAverage: idle,
    });
    expect(out.calibration.fingerprint.engine).toBe(engine);
    expect(out.path).toBe(calibrationPath(machineFingerprint(engine, 2), cacheDir));
  });

  it('a busy cached calibration is measured again when the load cannot be read (no load counts as idle)', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const { seen, measure } = recordingMeasure();
    const cpus = machineFingerprint('e 1', 2).logicalCpus;
    const first = await calibrate(cacheDir, measure, { loadAverage: () => [cpus, 0, 0] });
    expect(first.busy).toBe(messages.busyCalibration(cpus, cpus));
    const again = await calibrate(cacheDir, measure, { loadAverage: () => [] });
    expect(again.cached).toBe(false);
    expect(again).not.toHaveProperty('busy');
    expect(seen).toHaveLength(2);
  });

  it('a cache that cannot be written, without a logger: the reason is returned with the file-system error', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dantinox-cal-'));
    const cacheDir = join(root, 'a-file');
    writeFileSync(cacheDir, 'not a folder');
    const out = await calibrate(cacheDir, recordingMeasure().measure);
    let why = '';
    try {
      mkdirSync(dirname(out.path), { recursive: true });
    } catch (error) {
      why = (error as Error).message;
    }
    expect(why).not.toBe('');
    expect(out.notStored).toBe(messages.calibrationNotStored(out.path, why));
    expect(out).not.toHaveProperty('busy');
  });
});
