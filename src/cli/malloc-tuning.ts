/**
 * Benchmark runs re-execute themselves once with glibc malloc tuned, because fresh page faults in large
 * buffers swing ONNX Runtime timings by up to 2× (compare `DANTINOX_NO_RESPAWN=1 dantinox bench` with a plain
 * run). glibc reads these variables only at process start, so they cannot be set from inside the running process.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type CellsStream, messages } from '../messages.js';
import { signalExitCode } from './interrupts.js';

/**
 * glibc malloc settings for benchmark processes: never return memory to the OS between calls and serve big
 * tensors from the heap rather than fresh `mmap`s (no page faults in the timed region).
 */
export const MALLOC_TUNING: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_MMAP_THRESHOLD_: '2000000000',
  MALLOC_TRIM_THRESHOLD_: '4000000000',
  MALLOC_TOP_PAD_: '268435456',
});

/** Set to `1` to run benchmarks in the current process without re-executing (e.g. under a debugger). */
export const NO_RESPAWN_ENV = 'DANTINOX_NO_RESPAWN';

/**
 * Whether this invocation should re-execute itself with {@link MALLOC_TUNING}: only for `bench` and `calibrate`, only on
 * Linux (glibc), only when the variables are not already set, and not when {@link NO_RESPAWN_ENV} is `1`.
 */
export function needsMallocRespawn(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform !== 'linux' || env[NO_RESPAWN_ENV] === '1') return false;
  if (!(argv[0] === 'bench' || argv[0] === 'calibrate') || argv.includes('--help') || argv.includes('-h'))
    return false;
  return Object.keys(MALLOC_TUNING).some((key) => env[key] === undefined);
}

/** Set by the launcher in its worker's environment: the worker is watched (see {@link respawnWithMallocTuning}). */
export const WORKER_ENV = 'DANTINOX_WORKER';

/** What a worker tells its launcher over the IPC channel. */
export interface WorkerMessage {
  /**
   * The folder whose `results.jsonl` holds the cells being measured, named in the launcher's notices: the run's
   * `--out` (a round's folder with `--repeat`), or in a matrix the folder of the variant being measured.
   */
  readonly cellsDir: string;
}

/**
 * How long the worker has, after a `SIGTERM`, to stop after its current call and write its files before the
 * launcher kills it: 30 s. `SIGTERM` asks for an end in bounded time (`docker stop` kills after 10 s, Kubernetes
 * after 30 s); a worker whose main thread is held (a long engine call, a task's synchronous loop) cannot answer.
 */
export const SIGTERM_GRACE_MS = 30_000;

/** The stream of `cellsDir` named in the launcher's notices, with whether the worker had written it. */
function cellsStream(cellsDir: string | undefined): CellsStream | undefined {
  return cellsDir === undefined
    ? undefined
    : { dir: cellsDir, written: existsSync(join(cellsDir, 'results.jsonl')) };
}

/** Options of {@link respawnWithMallocTuning}. */
export interface RespawnOptions {
  /** Where the launcher's notices go. @default process.stderr */
  readonly stderr?: { write(text: string): unknown };
  /** The worker's time to stop after a `SIGTERM`. @default {@link SIGTERM_GRACE_MS} */
  readonly termGraceMs?: number;
}

/**
 * Runs `node <script> ...argv` as a worker with {@link MALLOC_TUNING} added to the environment, the same stdio
 * and an IPC channel, and resolves to the exit code the user should see:
 * - the first SIGINT/SIGTERM is forwarded (a terminal's Ctrl-C reaches both processes; the worker counts the
 *   two copies as one) and the worker stops after its current engine call, writing every output;
 * - a second one kills the worker at once (SIGKILL), even in the middle of a long call, and exits 130 (SIGINT)
 *   or 143 (SIGTERM); so does the end of `termGraceMs` after a first `SIGTERM` the worker has not answered;
 * - a worker killed by a signal nobody sent here (the out-of-memory killer's SIGKILL, a crash) is reported on
 *   `stderr` with the likely cause and exits 128 + the signal's number;
 * - the worker watches the channel and stops (like SIGTERM) when the launcher dies, even by SIGKILL.
 */
export function respawnWithMallocTuning(
  script: string,
  argv: readonly string[],
  options: RespawnOptions = {},
): Promise<number> {
  const stderr = options.stderr ?? process.stderr;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...argv], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, ...MALLOC_TUNING, [WORKER_ENV]: '1' },
    });
    let cellsDir: string | undefined;
    let forwarded = false;
    let killedBy: NodeJS.Signals | undefined;
    let grace: NodeJS.Timeout | undefined;
    const kill = (signal: 'SIGINT' | 'SIGTERM', notice: string): void => {
      if (killedBy !== undefined) return;
      killedBy = signal;
      child.kill('SIGKILL');
      stderr.write(`\n${notice}\n`);
    };
    const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
      if (!forwarded) {
        forwarded = true;
        child.kill(signal);
        const graceMs = options.termGraceMs ?? SIGTERM_GRACE_MS;
        if (signal === 'SIGTERM')
          grace = setTimeout(
            () => kill(signal, messages.termGraceOver(graceMs, cellsStream(cellsDir))),
            graceMs,
          );
        return;
      }
      kill(signal, messages.quitAtOnce(signal, cellsStream(cellsDir)));
    };
    const onInt = (): void => onSignal('SIGINT');
    const onTerm = (): void => onSignal('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    child.on('message', (message: Partial<WorkerMessage>) => {
      if (typeof message?.cellsDir === 'string') cellsDir = message.cellsDir;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(grace);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      if (killedBy !== undefined) resolvePromise(signalExitCode(killedBy));
      else if (code !== null) resolvePromise(code);
      else if (signal === 'SIGINT' || signal === 'SIGTERM') resolvePromise(signalExitCode(signal));
      else {
        const by = signal ?? 'SIGKILL';
        stderr.write(`${messages.workerKilled(by, cellsStream(cellsDir))}\n`);
        resolvePromise(signalExitCode(by));
      }
    });
  });
}

/**
 * Called first thing in a worker started by {@link respawnWithMallocTuning}: the IPC channel must not keep the
 * worker alive, and the worker stops like on SIGTERM when the launcher dies (the channel closes), so it never
 * runs on orphaned.
 */
export function attachToLauncher(): void {
  if (process.env[WORKER_ENV] !== '1' || process.channel === undefined) return;
  process.channel.unref();
  process.once('disconnect', () => {
    process.kill(process.pid, 'SIGTERM');
  });
}

/** Tells the launcher (if any) where the run writes, for its notices. */
export function tellLauncher(message: WorkerMessage): void {
  if (process.env[WORKER_ENV] === '1' && process.connected) process.send?.(message);
}

/** Whether this process is a worker watched by a launcher. */
export function underLauncher(): boolean {
  return process.env[WORKER_ENV] === '1' && process.connected;
}
