/**
 * Calibrated ceilings of this machine (`dantinox calibrate`): measured once per machine fingerprint + engine
 * version + thread count, cached as JSON in the user's cache directory, and copied into each run's environment.
 *
 * Cache location: `$DANTINOX_CACHE_DIR/calibration/<key>.json` when that variable is set, else
 * `$XDG_CACHE_HOME/dantinox/…` or `~/.cache/dantinox/…` (Linux), `~/Library/Caches/dantinox/…` (macOS),
 * `%LOCALAPPDATA%\dantinox\Cache\…` (Windows).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import type { OrtCalibration } from '../models/calibration/calibrate-ort.js';
import { type Ceilings, theoreticalCeilings } from '../profiling/index.js';
import { BUSY_LOAD_PER_CPU, othersLoad, readCpuInfo, readPackageVersion } from './environment.js';
import { type Logger, silentLogger } from './logger.js';

/** What identifies a calibration: the same machine, engine and thread count reuse it. */
export interface MachineFingerprint {
  /** CPU model name. */
  readonly cpuModel: string;
  /** ISA flags that select kernels. */
  readonly cpuFlags: readonly string[];
  /** Logical CPUs. */
  readonly logicalCpus: number;
  /** Total memory in bytes. */
  readonly totalMemoryBytes: number;
  /** `platform arch`, e.g. `linux x64`. */
  readonly platform: string;
  /** Engine and version, e.g. `onnxruntime-node 1.30.0 (cpu)`. */
  readonly engine: string;
  /** Intra-op threads. */
  readonly threads: number;
}

/** The theoretical peak and how it was derived. */
export interface TheoreticalPeak {
  /** The ceilings (`source: 'theoretical'`). */
  readonly ceilings: Ceilings;
  /** Cores × GHz × FLOPs per cycle, and where the frequency came from. */
  readonly basis: string;
}

/** A cached calibration: fingerprint, every probe, the ceilings, and the theoretical peak when known. */
export interface Calibration extends OrtCalibration {
  /** Format tag of the cache file. */
  readonly format: 'dantinox-calibration/1';
  /** The cache key (hash of the fingerprint). */
  readonly key: string;
  /** Where the numbers were measured. */
  readonly fingerprint: MachineFingerprint;
  /** ISO-8601 time of the measurement. */
  readonly measuredAt: string;
  /** 1, 5 and 15-minute load averages when the measurement started (a busy machine gives low ceilings). */
  readonly loadAverage: readonly number[];
  /** The same when it ended (absent in files of older versions). */
  readonly loadAverageEnd?: readonly number[];
  /** dantinox version that measured it. */
  readonly packageVersion: string;
  /** Theoretical peak from the ISA flags, labelled as such; absent with `theoreticalUnavailable` saying why. */
  readonly theoretical?: TheoreticalPeak;
  /** Why there is no theoretical peak. */
  readonly theoreticalUnavailable?: string;
}

/** A rate a machine can reach: finite and above 0 (a cached −1 or 0 ceiling is a damaged file). */
const rate = z.number().positive().finite();
const ceilingsSchema = z.object({
  source: z.enum(['calibrated', 'theoretical']),
  gemmGflops: z.record(z.string(), rate),
  bandwidthGbs: rate.optional(),
});
const calibrationSchema = z.object({
  format: z.literal('dantinox-calibration/1'),
  key: z.string(),
  fingerprint: z.object({
    cpuModel: z.string(),
    cpuFlags: z.array(z.string()),
    logicalCpus: z.number(),
    totalMemoryBytes: z.number(),
    platform: z.string(),
    engine: z.string(),
    threads: z.number(),
  }),
  measuredAt: z.string(),
  loadAverage: z.array(z.number()),
  loadAverageEnd: z.exactOptional(z.array(z.number())),
  packageVersion: z.string(),
  durationMs: z.number(),
  llcBytes: z.number().optional(),
  probes: z.array(
    z.object({
      id: z.string(),
      measures: z.string(),
      description: z.string(),
      unit: z.enum(['GFLOP/s', 'GB/s']),
      value: rate.optional(),
      medianMs: z.number().optional(),
      p10Ms: z.number().optional(),
      p90Ms: z.number().optional(),
      n: z.number().optional(),
      unavailable: z.string().optional(),
    }),
  ),
  ceilings: ceilingsSchema,
  theoretical: z.object({ ceilings: ceilingsSchema, basis: z.string() }).optional(),
  theoreticalUnavailable: z.string().optional(),
});

/** The fingerprint of this machine for `engine` at `threads` threads. */
export function machineFingerprint(engine: string, threads: number): MachineFingerprint {
  const cpu = readCpuInfo();
  return {
    cpuModel: cpu.model,
    cpuFlags: cpu.flags,
    logicalCpus: os.cpus().length,
    totalMemoryBytes: os.totalmem(),
    platform: `${os.platform()} ${os.arch()}`,
    engine,
    threads,
  };
}

/**
 * Revision of the probes `calibrateOrt` runs, raised whenever one is added or changed: the cache key includes it, so
 * ceilings measured with other probes are measured again. 2: GEMM at a wide shape besides the square one; 3: a
 * probe's rate from its 10th-percentile time instead of its median.
 */
export const PROBE_SET_REVISION = 3;

/**
 * Cache key of a fingerprint: 16 hex digits of the SHA-256 of the probe set's revision and the fingerprint, so a
 * calibration measured with other probes is measured again rather than read.
 */
export function calibrationKey(
  fingerprint: MachineFingerprint,
  probeSet: number = PROBE_SET_REVISION,
): string {
  return createHash('sha256')
    .update(`${probeSet}\n${JSON.stringify(fingerprint)}`)
    .digest('hex')
    .slice(0, 16);
}

/** The user's cache directory of dantinox (see the module documentation for the rules). */
export function cacheDirectory(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = os.platform(),
  home: string = os.homedir(),
): string {
  const own = env['DANTINOX_CACHE_DIR'];
  if (own !== undefined && own !== '') return own;
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'dantinox');
  if (platform === 'win32')
    return join(env['LOCALAPPDATA'] ?? join(home, 'AppData', 'Local'), 'dantinox', 'Cache');
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && xdg !== '' ? xdg : join(home, '.cache'), 'dantinox');
}

/** Path of the cached calibration of `fingerprint`. */
export function calibrationPath(fingerprint: MachineFingerprint, dir: string = cacheDirectory()): string {
  return join(dir, 'calibration', `${calibrationKey(fingerprint)}.json`);
}

/** Clock frequency in GHz from a `/proc/cpuinfo` text: the model name's `@ x.xxGHz`, else `cpu MHz`. */
export function parseCpuGhz(cpuinfo: string):
  | {
      /** Clock frequency in GHz. */
      ghz: number;
      /** Where it was read (`cpuinfo_max_freq`, the model name or `cpu MHz`). */
      from: string;
    }
  | undefined {
  const named = /^model name\s*:.*@\s*([\d.]+)\s*GHz/m.exec(cpuinfo);
  if (named !== null) return { ghz: Number(named[1]), from: 'the model name' };
  const mhz = /^cpu MHz\s*:\s*([\d.]+)/m.exec(cpuinfo);
  if (mhz !== null && Number(mhz[1]) > 0)
    return {
      ghz: Number(mhz[1]) / 1000,
      from: '"cpu MHz" of /proc/cpuinfo, the current clock, not the boost',
    };
  return undefined;
}

/** This CPU's clock in GHz: the kernel's maximum (cpufreq), else {@link parseCpuGhz} of `/proc/cpuinfo`. */
export function cpuGhz():
  | {
      /** Clock frequency in GHz. */
      ghz: number;
      /** Where it was read (`cpuinfo_max_freq`, the model name or `cpu MHz`). */
      from: string;
    }
  | undefined {
  try {
    const khz = Number(readFileSync('/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq', 'utf8'));
    if (khz > 0) return { ghz: khz / 1e6, from: 'cpuinfo_max_freq' };
  } catch {
    // no cpufreq (virtual machines): read /proc/cpuinfo
  }
  try {
    return parseCpuGhz(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return undefined;
  }
}

/** The theoretical peak for `fingerprint`, or why there is none. */
export function theoreticalPeak(
  fingerprint: MachineFingerprint,
  ghz: { ghz: number; from: string } | undefined,
):
  | TheoreticalPeak
  | {
      /** Why there is no theoretical peak (e.g. the clock frequency is not reported). */
      unavailable: string;
    } {
  if (ghz === undefined)
    return { unavailable: messages.noTheoreticalPeak('the clock frequency is not reported') };
  const cores = Math.min(fingerprint.threads, fingerprint.logicalCpus);
  const ceilings = theoreticalCeilings({ flags: fingerprint.cpuFlags, cores, ghz: ghz.ghz });
  if (ceilings === undefined)
    return { unavailable: messages.noTheoreticalPeak('no known vector FMA unit among the ISA flags') };
  const fp32 = ceilings.gemmGflops['fp32'] as number;
  return {
    ceilings,
    basis: `${cores} cores × ${ghz.ghz.toFixed(3)} GHz (from ${ghz.from}) × ${(fp32 / cores / ghz.ghz).toFixed(0)} fp32 FLOPs/cycle (two FMA pipes assumed)`,
  };
}

/**
 * The theoretical peak, unless it is below the ceiling measured on the same machine (a clock that is not the one the
 * cores run at, as a virtual machine's nominal clock under turbo): then none, and why — a "peak" below a measurement
 * would report MFU above 1.
 */
export function atLeastMeasured(
  theory: TheoreticalPeak | { readonly unavailable: string },
  measured: Ceilings,
): TheoreticalPeak | { readonly unavailable: string } {
  if ('unavailable' in theory) return theory;
  const peak = theory.ceilings.gemmGflops['fp32'];
  const ceiling = measured.gemmGflops['fp32'];
  if (peak === undefined || ceiling === undefined || peak >= ceiling) return theory;
  return { unavailable: messages.theoreticalBelowMeasured(peak, ceiling, theory.basis) };
}

/**
 * Reads a cached calibration; `undefined` when there is none. A file that cannot be parsed or does not match
 * the format is ignored with a warning on `logger`.
 */
export function readCalibration(path: string, logger: Logger = silentLogger): Calibration | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = calibrationSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data as Calibration;
    const issue = parsed.error.issues[0];
    logger.log(
      'warn',
      messages.badCalibrationCache(path, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`),
    );
  } catch (error) {
    logger.log(
      'warn',
      messages.badCalibrationCache(path, error instanceof Error ? error.message : String(error)),
    );
  }
  return undefined;
}

/**
 * Writes `calibration` to `path` atomically (temporary file + rename; the temporary file is removed when the write
 * fails).
 *
 * @throws the file-system error when the cache folder cannot be created or written (read-only, full, a file).
 */
export function writeCalibration(path: string, calibration: Calibration): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    makeDirectory(join(path, '..'));
    writeFileSync(tmp, `${JSON.stringify(calibration, null, 2)}\n`);
    renameSync(tmp, path);
  } catch (error) {
    // Remove the temporary file if it was written; a failure to remove it (there is none: the folder could not
    // be made) must not hide why the write failed.
    try {
      rmSync(tmp);
    } catch {
      // no temporary file
    }
    throw error;
  }
}

/** Options of {@link loadOrCalibrate}. */
export interface CalibrateOptions {
  /** Intra-op threads of the engine (the benchmark's). */
  readonly threads: number;
  /** Measure again even when a cached calibration exists. @default false */
  readonly recalibrate?: boolean;
  /** Time budget of a measurement in ms. @default 20000 */
  readonly budgetMs?: number;
  /** Cache directory. @default cacheDirectory() */
  readonly cacheDir?: string;
  /** Where warnings (a corrupted cache) go. */
  readonly logger?: Logger;
  /** Progress: called before each probe. */
  readonly onProbe?: (id: string, index: number, total: number) => void;
  /** The measurement (tests inject a fast one). @default ONNX Runtime's probes (`calibrateOrt`) */
  readonly measure?: (options: {
    threads: number;
    budgetMs: number;
    onProbe?: (id: string, index: number, total: number) => void;
  }) => Promise<OrtCalibration>;
  /** Engine label of the fingerprint. @default the ONNX Runtime CPU engine */
  readonly engine?: string;
  /** The machine's 1, 5 and 15-minute load averages now (tests inject them). @default os.loadavg */
  readonly loadAverage?: () => readonly number[];
}

/** A calibration and where it came from. */
export interface CalibrationOutcome {
  /** The calibration. */
  readonly calibration: Calibration;
  /** Whether it was read from the cache (not measured now). */
  readonly cached: boolean;
  /** Its cache file. */
  readonly path: string;
  /**
   * Set when a calibration measured now could not be stored in the cache (read-only or full folder, a file in its
   * place): why. The calibration still serves the run; the next one measures again.
   */
  readonly notStored?: string;
  /**
   * Set when it was measured while the machine was busy (see {@link busyCalibration}): why its ceilings may be low.
   * Such a calibration is cached marked, and measured again by the next call on an idle machine.
   */
  readonly busy?: string;
}

/**
 * Why a calibration's ceilings may be too low because the machine was busy while it was measured — the load of
 * other processes ({@link othersLoad}: its probes' own threads left out) above {@link BUSY_LOAD_PER_CPU} per logical CPU (a fp32 ceiling of 77 GFLOP/s was measured at load
 * 8.6 on a machine that gives 374 when idle) — or `undefined`.
 */
export function busyCalibration(calibration: Calibration): string | undefined {
  const { loadAverage, loadAverageEnd, fingerprint } = calibration;
  const load = othersLoad(loadAverage[0] ?? 0, loadAverageEnd?.[0], fingerprint.threads);
  const cpus = fingerprint.logicalCpus;
  return load > BUSY_LOAD_PER_CPU * cpus ? messages.busyCalibration(load, cpus) : undefined;
}

/**
 * The calibration of this machine at `threads` threads: the cached one when it exists (and `recalibrate` is not
 * set), otherwise measured now (≈ `budgetMs`) and cached. A calibration measured on a busy machine is marked
 * ({@link CalibrationOutcome.busy}) and measured again by the first call that finds the machine idle; while the
 * machine stays busy it is reused, still marked (a new measurement would be no better).
 *
 * @example
 * ```ts
 * const { calibration } = await loadOrCalibrate({ threads: 2 });
 * calibration.ceilings.gemmGflops.fp32; // GFLOP/s measured on this machine
 * ```
 * A cache folder that cannot be written (read-only, full, a file in its place) is warned about on `logger` and the
 * measured calibration returned anyway ({@link CalibrationOutcome.notStored}).
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` without `onnxruntime-node`.
 */
export async function loadOrCalibrate(options: CalibrateOptions): Promise<CalibrationOutcome> {
  const { loadOrt, ortEngineLabel } = await import('../models/engines/ort/index.js');
  const engine = options.engine ?? ortEngineLabel(await loadOrt(), 'cpu');
  const fingerprint = machineFingerprint(engine, options.threads);
  const loadNow = options.loadAverage ?? os.loadavg;
  const path = calibrationPath(fingerprint, options.cacheDir ?? cacheDirectory());
  if (options.recalibrate !== true) {
    const cached = readCalibration(path, options.logger);
    const busy = cached === undefined ? undefined : busyCalibration(cached);
    const idleNow = (loadNow()[0] ?? 0) <= BUSY_LOAD_PER_CPU * fingerprint.logicalCpus;
    if (cached !== undefined && (busy === undefined || !idleNow))
      return { calibration: cached, cached: true, path, ...(busy === undefined ? {} : { busy }) };
  }
  const measure = options.measure ?? (await import('../models/calibration/calibrate-ort.js')).calibrateOrt;
  const loadAverage = loadNow();
  const measured = await measure({
    threads: options.threads,
    budgetMs: options.budgetMs ?? 20_000,
    ...(options.onProbe === undefined ? {} : { onProbe: options.onProbe }),
  });
  const loadAtEnd = loadNow();
  const theory = atLeastMeasured(theoreticalPeak(fingerprint, cpuGhz()), measured.ceilings);
  const calibration: Calibration = {
    format: 'dantinox-calibration/1',
    key: calibrationKey(fingerprint),
    fingerprint,
    measuredAt: new Date().toISOString(),
    loadAverage,
    loadAverageEnd: loadAtEnd,
    packageVersion: readPackageVersion(),
    ...measured,
    ...('unavailable' in theory ? { theoreticalUnavailable: theory.unavailable } : { theoretical: theory }),
  };
  // The cache is an optimisation: a folder that cannot be written costs the next run a measurement, not this run.
  let notStored: string | undefined;
  try {
    writeCalibration(path, calibration);
  } catch (error) {
    notStored = messages.calibrationNotStored(path, error instanceof Error ? error.message : String(error));
    options.logger?.log('warn', notStored);
  }
  const busy = busyCalibration(calibration);
  return {
    calibration,
    cached: false,
    path,
    ...(busy === undefined ? {} : { busy }),
    ...(notStored === undefined ? {} : { notStored }),
  };
}
