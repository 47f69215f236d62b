/**
 * Benchmark runs re-execute themselves once with glibc malloc tuned, because fresh page faults in large
 * buffers swing ONNX Runtime timings by up to 2× (compare `DANTINOX_NO_RESPAWN=1 dantinox bench` with a plain
 * run). glibc reads these variables only at process start, so they cannot be set from inside the running process.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';

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
 * Whether this invocation should re-execute itself with {@link MALLOC_TUNING}: only for `bench`, only on
 * Linux (glibc), only when the variables are not already set, and not when {@link NO_RESPAWN_ENV} is `1`.
 */
export function needsMallocRespawn(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform !== 'linux' || env[NO_RESPAWN_ENV] === '1') return false;
  if (argv[0] !== 'bench' || argv.includes('--help') || argv.includes('-h')) return false;
  return Object.keys(MALLOC_TUNING).some((key) => env[key] === undefined);
}

/**
 * Runs `node <script> ...argv` as a child with {@link MALLOC_TUNING} added to the environment and the same
 * stdio, and resolves to its exit code. SIGINT and SIGTERM sent to the parent are forwarded to the child (a
 * terminal's Ctrl-C reaches both; the child ignores the duplicate, see `bench`), and the parent waits, so the
 * child can finish writing what it measured.
 */
export function respawnWithMallocTuning(script: string, argv: readonly string[]): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...argv], {
      stdio: 'inherit',
      env: { ...process.env, ...MALLOC_TUNING },
    });
    const forwardInt = (): void => {
      child.kill('SIGINT');
    };
    const forwardTerm = (): void => {
      child.kill('SIGTERM');
    };
    process.on('SIGINT', forwardInt);
    process.on('SIGTERM', forwardTerm);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forwardInt);
      process.off('SIGTERM', forwardTerm);
      resolvePromise(code ?? (signal === 'SIGINT' ? 130 : 1));
    });
  });
}
