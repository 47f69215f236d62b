/**
 * Test harness for the CLI end-to-end tests: builds `dist/` when it is older than `src/` (once, across the
 * parallel test processes, under a lock file) and runs the real `dantinox` binary as a child process.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectGolden as expectGoldenFile } from '../golden.js';

/** Root of the repository. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The built bin entry, as `package.json` `bin` names it. */
export const BIN = join(ROOT, 'dist/cli/main.js');
const LOCK = join(ROOT, 'test/.output/build.lock');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  return existsSync(BIN) && statSync(BIN).mtimeMs >= newestMtime(join(ROOT, 'src'));
}

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * Makes sure `dist/` is built from the current sources (`tsc -p tsconfig.build.json`, as `npm run build`). The
 * compiler's exit code is not checked here (type errors are `npm run typecheck`'s job); the emitted bin is.
 */
export function ensureBuilt(): void {
  if (isFresh()) return;
  mkdirSync(dirname(LOCK), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      break;
    } catch {
      if (isFresh()) return;
      if (Date.now() > deadline) rmSync(LOCK, { force: true });
      sleep(250);
    }
  }
  try {
    if (!isFresh()) {
      spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
        {
          cwd: ROOT,
          stdio: 'ignore',
        },
      );
    }
  } finally {
    rmSync(LOCK, { force: true });
  }
  if (!existsSync(BIN)) throw new Error(`build did not produce ${BIN}`);
}

/** What one run of the binary produced. */
export interface CliRun {
  /** Exit code. */
  readonly code: number;
  /** Everything written to stdout. */
  readonly stdout: string;
  /** Everything written to stderr. */
  readonly stderr: string;
}

/** Runs `node dist/cli/main.js ...args` in `cwd` (default: the repository root) and collects its output. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return runProcess(process.execPath, [BIN, ...args], options);
}

/** Runs `file ...args` (e.g. `bash script.sh`) in `cwd` (default: the repository root) and collects its output. */
export function runProcess(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}

/** Asserts that `actual` equals the golden file `test/golden/cli/<name>` (see `test/golden.ts`). */
export function expectGolden(name: string, actual: string): void {
  expectGoldenFile(`cli/${name}`, actual);
}
