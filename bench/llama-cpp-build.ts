/**
 * llama.cpp's own programs (`llama-server`, `llama-bench`), built from the exact source release `node-llama-cpp`
 * ships inside its package (`llama/gitRelease.bundle`, a git bundle), with the system's cmake and C++ compiler, into
 * a cache folder: `$DANTINOX_LLAMA_CPP_DIR`, else `$XDG_CACHE_HOME/dantinox/llama.cpp`, else
 * `~/.cache/dantinox/llama.cpp`. A build whose source is the bundle's commit is reused; about ten minutes on two
 * cores otherwise. For benchmark scripts only, never for the tests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, homedir } from 'node:os';
import { join } from 'node:path';

/** A llama.cpp program this module can build. */
export type LlamaCppProgram = 'llama-server' | 'llama-bench';

/** Where the built programs are, and which llama.cpp commit they are. */
export interface LlamaCppBuild {
  /** Folder holding the programs. */
  readonly binDir: string;
  /** The source commit (the bundle's HEAD). */
  readonly commit: string;
}

/** The cache folder of the build. */
export function llamaCppCacheDir(): string {
  const explicit = process.env['DANTINOX_LLAMA_CPP_DIR'];
  if (explicit !== undefined && explicit !== '') return explicit;
  const cache = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(cache, 'dantinox', 'llama.cpp');
}

/** The git bundle of llama.cpp's source inside the installed node-llama-cpp (found along Node's module paths). */
function bundlePath(): string {
  const require = createRequire(import.meta.url);
  const folders = require.resolve.paths('node-llama-cpp') ?? [];
  const bundle = folders
    .map((folder) => join(folder, 'node-llama-cpp', 'llama', 'gitRelease.bundle'))
    .find((path) => existsSync(path));
  if (bundle === undefined)
    throw new Error(
      'node-llama-cpp and its llama.cpp source bundle (llama/gitRelease.bundle) are not installed; run npm ci',
    );
  return bundle;
}

const git = (args: string[], cwd?: string): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * Builds `programs` (those missing or of another commit) and returns where they are. Prints what it does on
 * stderr; throws with the tool's output when cmake or the compiler fails.
 */
export function buildLlamaCpp(programs: readonly LlamaCppProgram[]): LlamaCppBuild {
  const root = llamaCppCacheDir();
  const src = join(root, 'src');
  const build = join(root, 'build');
  const binDir = join(build, 'bin');
  const bundle = bundlePath();
  const commit = git(['bundle', 'list-heads', bundle]).split(/\s+/)[0] ?? '';
  const current = existsSync(join(src, '.git')) ? git(['rev-parse', 'HEAD'], src) : '';
  if (current !== commit) {
    process.stderr.write(`llama.cpp: cloning ${commit.slice(0, 12)} from ${bundle}\n`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    git(['clone', '--quiet', bundle, src]);
  }
  const missing = programs.filter((p) => !existsSync(join(binDir, p)) || current !== commit);
  if (missing.length > 0) {
    process.stderr.write(
      `llama.cpp: building ${missing.join(', ')} in ${build} (about ten minutes on 2 cores)\n`,
    );
    const run = (args: string[]) => execFileSync('cmake', args, { stdio: ['ignore', 'ignore', 'inherit'] });
    run([
      '-S',
      src,
      '-B',
      build,
      '-DCMAKE_BUILD_TYPE=Release',
      '-DLLAMA_CURL=OFF',
      '-DLLAMA_BUILD_TESTS=OFF',
      '-DLLAMA_BUILD_EXAMPLES=OFF',
      '-DGGML_NATIVE=ON',
    ]);
    run(['--build', build, '--target', ...missing, '-j', String(availableParallelism())]);
  }
  return { binDir, commit };
}
