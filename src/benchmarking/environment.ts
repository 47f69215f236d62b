/**
 * The environment block recorded in every report: hardware, software versions, the configuration and the command
 * line, so a number can always be traced back to where and how it was measured.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { messages } from '../messages.js';
import type { BrowserInfo, ModelInfo } from '../models/model.js';
import type { Calibration } from './calibration.js';
import type { BenchmarkConfig } from './config.js';

/** Where and how a report was measured. */
export interface Environment {
  /** CPU model name, e.g. `AMD EPYC 9R45`. */
  readonly cpuModel: string;
  /** SIMD/ISA flags relevant to inference kernels that the CPU reports (e.g. `avx2`, `avx512f`, `fma`). */
  readonly cpuFlags: readonly string[];
  /** Logical CPUs the OS reports. */
  readonly logicalCpus: number;
  /** CPUs this process may use (`os.availableParallelism()`). */
  readonly availableParallelism: number;
  /** Total memory in bytes. */
  readonly totalMemoryBytes: number;
  /** OS, release and architecture, e.g. `linux 6.8.0 x64`. */
  readonly os: string;
  /** Host name of the machine (a pod or node name under Kubernetes or Slurm), so merged shards say where each ran. */
  readonly hostname?: string;
  /** Node.js version, e.g. `v20.19.0`. */
  readonly node: string;
  /** Engine of the benchmarked model (from its `info.engine`), e.g. `onnxruntime-node 1.30.0 (cpu)`. */
  readonly engine: string;
  /** Intra-op threads of the model's engine. */
  readonly threads: number | null;
  /**
   * The browser page the model ran in (`--target browser`): browser name and version, cross-origin isolation,
   * logical CPUs it saw, threads asked and actually used, timer resolution, execution provider, WebGPU adapter.
   */
  readonly browser?: BrowserInfo;
  /** dantinox version (from its package.json). */
  readonly packageVersion: string;
  /** Suite seed. */
  readonly seed: number;
  /** The full benchmark config (camelCase). */
  readonly config: BenchmarkConfig;
  /** Command line of the process. */
  readonly commandLine: string;
  /** ISO-8601 time the run started. */
  readonly timestamp: string;
  /** Timer calibration (name, resolution and overhead in ns) when the clock provides it. */
  readonly timer?: Readonly<Record<string, string | number>>;
  /** This machine's calibrated ceilings (and theoretical peak) the run's MFU/MBU are computed against. */
  readonly calibration?: Calibration;
  /** Load average (1, 5, 15 min) when the run started and, in a finished report, when it ended. */
  readonly loadAverage?: LoadAverage;
  /**
   * Current clock of each logical CPU in MHz when the run started and ended, where the OS exposes it (Linux:
   * cpufreq, else `/proc/cpuinfo`); absent elsewhere. A clock that falls during a run (thermal or power limits)
   * slows it as surely as a neighbour does.
   */
  readonly cpuMhz?: CpuMhz;
  /**
   * CPUs kept busy by other processes during the run, on average: the machine's busy CPU time (Linux
   * `/proc/stat`, hypervisor steal included) less this process's own, over the run's wall time. Absent where
   * `/proc/stat` is not readable (the load average then decides) and until the run ends.
   */
  readonly othersCpus?: number;
  /** The source tree that was measured: git commit, branch and uncommitted changes, read when the run started. */
  readonly git?: GitState;
}

/** Load averages (1, 5 and 15 minutes, as `os.loadavg()`) at the start and end of a run. */
export interface LoadAverage {
  /** At the start. */
  readonly start: readonly number[];
  /** At the end (absent until the run ends). */
  readonly end?: readonly number[];
}

/** Clock of each logical CPU in MHz at the start and end of a run. */
export interface CpuMhz {
  /** At the start, one value per logical CPU. */
  readonly start: readonly number[];
  /** At the end (absent until the run ends). */
  readonly end?: readonly number[];
}

/** The git state of the directory a run was started in; `null` fields outside a repository or without git. */
export interface GitState {
  /** Full commit hash of HEAD. */
  readonly commit: string | null;
  /** Branch name (`HEAD` when detached). */
  readonly branch: string | null;
  /** Whether tracked files had uncommitted changes. */
  readonly dirty: boolean | null;
}

/** The flags worth recording: what decides which GEMM kernels ORT/MLAS can use. */
const ISA_FLAGS = [
  'sse4_2',
  'avx',
  'avx2',
  'fma',
  'f16c',
  'avx512f',
  'avx512bw',
  'avx512vl',
  'avx512_vnni',
  'avx512_bf16',
  'avx512_fp16',
  'avx_vnni',
  'amx_tile',
  'amx_bf16',
  'amx_int8',
  'neon',
  'asimd',
  'asimddp',
  'sve',
  'sve2',
  'i8mm',
  'bf16',
];

/** CPU model and ISA flags from `/proc/cpuinfo` (Linux), falling back to `os.cpus()` with no flags. */
export function readCpuInfo(cpuinfo?: string): {
  /** The CPU model name. */
  model: string;
  /** The ISA flags (`avx2`, `avx512f`, `avx512_vnni`…). */
  flags: string[];
} {
  let text = cpuinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      text = '';
    }
  }
  const field = (name: string): string | undefined => {
    const m = new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(text ?? '');
    return m?.[1]?.trim();
  };
  const model = field('model name') ?? field('Model') ?? os.cpus()[0]?.model ?? 'unknown';
  const present = new Set((field('flags') ?? field('Features') ?? '').split(/\s+/));
  return { model, flags: ISA_FLAGS.filter((f) => present.has(f)) };
}

/**
 * The current clock of each logical CPU in MHz: Linux's cpufreq (`scaling_cur_freq`, kHz) where it exists, else
 * the `cpu MHz` lines of `/proc/cpuinfo` (virtual machines); `undefined` where neither is readable.
 *
 * @param root - Where `sys` and `proc` are (tests point it at a fake tree). @default '/'
 */
export function readCpuMhz(root = '/'): number[] | undefined {
  const read = (path: string): string | undefined => {
    try {
      return readFileSync(`${root}${path}`, 'utf8');
    } catch {
      return undefined;
    }
  };
  const fromSysfs: number[] = [];
  for (let cpu = 0; ; cpu++) {
    const khz = Number(
      read(`sys/devices/system/cpu/cpu${cpu}/cpufreq/scaling_cur_freq`)?.trim() ?? Number.NaN,
    );
    if (!Number.isFinite(khz) || khz <= 0) break;
    fromSysfs.push(khz / 1000);
  }
  if (fromSysfs.length > 0) return fromSysfs;
  const fromCpuinfo = [...(read('proc/cpuinfo') ?? '').matchAll(/^cpu MHz\s*:\s*([\d.]+)/gm)].map((m) =>
    Number(m[1]),
  );
  return fromCpuinfo.length > 0 && fromCpuinfo.every((mhz) => mhz > 0) ? fromCpuinfo : undefined;
}

/** Busy CPU time of the whole machine and of this process, and the wall clock, in seconds, at one instant. */
export interface CpuTimes {
  /** CPU time all CPUs spent busy since boot (user, nice, system, irq, softirq, steal). */
  readonly machineBusyS: number;
  /** CPU time of this process (all its threads, user and system). */
  readonly ownS: number;
  /** A monotonic wall clock. */
  readonly wallS: number;
}

/** Clock ticks per second of `/proc/stat` (Linux's `USER_HZ`, 100 on every architecture it exposes to programs). */
const USER_HZ = 100;

/**
 * Reads {@link CpuTimes} now, or `undefined` where `/proc/stat` is not readable (not Linux).
 *
 * @param root - Where `proc` is (tests point it at a fake tree). @default '/'
 */
export function readCpuTimes(root = '/'): CpuTimes | undefined {
  let text: string;
  try {
    text = readFileSync(`${root}proc/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = /^cpu\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (fields === undefined || fields.length < 8 || fields.some((f) => !Number.isFinite(f))) return undefined;
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  const own = process.cpuUsage();
  return {
    machineBusyS: (user + nice + system + irq + softirq + steal) / USER_HZ,
    ownS: (own.user + own.system) / 1e6,
    wallS: Number(process.hrtime.bigint()) / 1e9,
  };
}

/** The CPUs other processes kept busy on average between two {@link CpuTimes} (never below 0). */
export function othersCpus(start: CpuTimes, end: CpuTimes): number {
  const wall = end.wallS - start.wallS;
  if (!(wall > 0)) return 0;
  return Math.max(0, (end.machineBusyS - start.machineBusyS - (end.ownS - start.ownS)) / wall);
}

let packageVersion: string | undefined;

/** dantinox's own version, read once from its package.json. */
export function readPackageVersion(): string {
  if (packageVersion === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version?: unknown;
      };
      packageVersion = typeof pkg.version === 'string' ? pkg.version : 'unknown';
    } catch {
      packageVersion = 'unknown';
    }
  }
  return packageVersion;
}

/** Inputs of {@link collectEnvironment}. */
export interface EnvironmentOptions {
  /** Config of the run. */
  readonly config: BenchmarkConfig;
  /** Info of the benchmarked model. */
  readonly modelInfo?: ModelInfo;
  /** Start time of the run. @default new Date() */
  readonly startedAt?: Date;
  /** Command line. @default process.argv joined by spaces */
  readonly commandLine?: string;
  /** Timer calibration to record. */
  readonly timer?: Readonly<Record<string, string | number>>;
  /** Calibration to record. */
  readonly calibration?: Calibration;
  /** The git state of the measured source tree, read by the caller. */
  readonly git?: GitState;
}

/** Collects the {@link Environment} of the current process. */
export function collectEnvironment(options: EnvironmentOptions): Environment {
  const cpu = readCpuInfo();
  const cpuMhz = readCpuMhz();
  return {
    cpuModel: cpu.model,
    cpuFlags: cpu.flags,
    logicalCpus: os.cpus().length,
    availableParallelism: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    hostname: os.hostname(),
    node: process.version,
    engine: options.modelInfo?.engine ?? 'unknown',
    threads: options.modelInfo?.threads ?? options.config.threads,
    ...(options.modelInfo?.browser === undefined ? {} : { browser: options.modelInfo.browser }),
    packageVersion: readPackageVersion(),
    seed: options.config.seed,
    config: options.config,
    commandLine: options.commandLine ?? process.argv.join(' '),
    timestamp: (options.startedAt ?? new Date()).toISOString(),
    ...(options.timer === undefined ? {} : { timer: options.timer }),
    ...(options.calibration === undefined ? {} : { calibration: options.calibration }),
    loadAverage: { start: os.loadavg() },
    ...(cpuMhz === undefined ? {} : { cpuMhz: { start: cpuMhz } }),
    ...(options.git === undefined ? {} : { git: options.git }),
  };
}

/** Load per logical CPU above which a run's timings are flagged: half the CPUs busy with something else. */
export const BUSY_LOAD_PER_CPU = 0.5;

/**
 * The 1-minute load other processes put on the machine during a run, from the load average at its start and end:
 * the start's, or the end's less the run's own busy threads (each adds up to 1 to the load), whichever is higher.
 * Without the subtraction every run that uses all cores would call its own machine busy.
 */
export function othersLoad(start: number, end: number | undefined, ownThreads: number): number {
  return Math.max(start, (end ?? 0) - ownThreads);
}

/**
 * Why a run's timings cannot be trusted because the machine was busy — other processes kept more than
 * {@link BUSY_LOAD_PER_CPU} of the logical CPUs busy on average ({@link Environment.othersCpus}; where it was not
 * measured, the load of other processes from the load average, {@link othersLoad}) — or `undefined`. Other
 * processes take cores and clock from the engine: a q8-vs-fp32 answer flipped between two runs at load 7–9 on 2 CPUs.
 */
export function busyMachine(
  environment: Pick<Environment, 'loadAverage' | 'logicalCpus' | 'threads' | 'othersCpus'>,
): string | undefined {
  const limit = BUSY_LOAD_PER_CPU * environment.logicalCpus;
  if (environment.othersCpus !== undefined)
    return environment.othersCpus > limit
      ? messages.busyMachineCpus(environment.othersCpus, environment.logicalCpus)
      : undefined;
  const load = environment.loadAverage;
  if (load === undefined) return undefined;
  const others = othersLoad(load.start[0] ?? 0, load.end?.[0], environment.threads ?? 0);
  if (others <= limit) return undefined;
  return messages.busyMachine(others, environment.logicalCpus);
}
