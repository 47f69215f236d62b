/**
 * llama.cpp's own programs (`llama-server`, `llama-bench`), built from the exact source release `node-llama-cpp`
 * ships inside its package (`llama/gitRelease.bundle`, a git bundle), with the system's cmake and C++ compiler, into
 * a cache folder: `$DANTINOX_LLAMA_CPP_DIR`, else `$XDG_CACHE_HOME/dantinox/llama.cpp`, else
 * `~/.cache/dantinox/llama.cpp`. A build whose source is the bundle's commit is reused; about ten minutes on two
 * cores otherwise. For benchmark scripts only, never for the tests.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';

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

/** What a build runs: git clones the bundle, cmake configures and drives the build, a C++ compiler compiles. */
const BUILD_TOOLS: readonly { tool: string; names: readonly string[]; chosenBy?: 'CXX' }[] = [
  { tool: 'git', names: ['git'] },
  { tool: 'cmake', names: ['cmake'] },
  { tool: 'a C++ compiler (c++, g++ or clang++)', names: ['c++', 'g++', 'clang++'], chosenBy: 'CXX' },
];

const isExecutableFile = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * The build tools found in none of the folders of `path` (a `PATH` value): git, cmake, a C++ compiler — `cxx` (the
 * `CXX` variable, a name or a path) when set, as cmake takes it, else any of c++, g++, clang++.
 */
export function missingBuildTools(path: string, cxx?: string): string[] {
  const folders = path.split(delimiter).filter((folder) => folder !== '');
  const found = (name: string): boolean =>
    isAbsolute(name)
      ? isExecutableFile(name)
      : folders.some((folder) => isExecutableFile(join(folder, name)));
  return BUILD_TOOLS.filter(({ names, chosenBy }) => {
    const candidates = chosenBy === 'CXX' && cxx !== undefined && cxx !== '' ? [cxx] : names;
    return !candidates.some(found);
  }).map(({ tool }) => tool);
}

/**
 * Ends the script with one line when a build tool (of `only`, else any) is missing, before anything is cloned or
 * deleted.
 */
function requireBuildTools(programs: readonly LlamaCppProgram[], only?: readonly string[]): void {
  const missing = missingBuildTools(process.env['PATH'] ?? '', process.env['CXX']).filter(
    (tool) => only === undefined || only.includes(tool),
  );
  if (missing.length === 0) return;
  process.stderr.write(
    `llama.cpp: ${missing.join(', ')} not found on PATH; building ${programs.join(' and ')} from node-llama-cpp's llama.cpp source needs git, cmake and a C++ compiler: install them (Debian: apt-get install git cmake g++) and run again.\n`,
  );
  process.exit(2);
}

const git = (args: string[], cwd?: string): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * Builds `programs` (those missing or of another commit) and returns where they are. Prints what it does on
 * stderr; ends the script with one line when git, cmake or a C++ compiler is missing, and throws with the tool's
 * output when cmake or the compiler fails.
 */
export function buildLlamaCpp(programs: readonly LlamaCppProgram[]): LlamaCppBuild {
  const root = llamaCppCacheDir();
  const src = join(root, 'src');
  const build = join(root, 'build');
  const binDir = join(build, 'bin');
  const bundle = bundlePath();
  requireBuildTools(programs, ['git']);
  const commit = git(['bundle', 'list-heads', bundle]).split(/\s+/)[0] ?? '';
  const current = existsSync(join(src, '.git')) ? git(['rev-parse', 'HEAD'], src) : '';
  const missing = programs.filter((p) => !existsSync(join(binDir, p)) || current !== commit);
  if (missing.length > 0) requireBuildTools(programs);
  if (current !== commit) {
    process.stderr.write(`llama.cpp: cloning ${commit.slice(0, 12)} from ${bundle}\n`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    git(['clone', '--quiet', bundle, src]);
  }
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
