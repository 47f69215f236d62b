/**
 * The llama.cpp build of the benchmark scripts names the tools it lacks (git, cmake, a C++ compiler) before it
 * clones or deletes anything: `missingBuildTools` looks for them in the folders of a `PATH` value, as the shell would.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingBuildTools } from '../../bench/llama-cpp-build.js';

const root = mkdtempSync(join(tmpdir(), 'dantinox-build-tools-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder holding the named programs: executable files, or (`mode` 0o644) files that are not executable. */
function folder(name: string, programs: readonly string[], mode = 0o755): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const program of programs) {
    writeFileSync(join(dir, program), '#!/bin/sh\n');
    chmodSync(join(dir, program), mode);
  }
  return dir;
}

const COMPILER = 'a C++ compiler (c++, g++ or clang++)';

describe('missingBuildTools', () => {
  it('finds every tool across the folders of PATH, and any one compiler name will do', () => {
    const path = [folder('a', ['git']), folder('b', ['cmake', 'clang++'])].join(delimiter);
    expect(missingBuildTools(path)).toEqual([]);
  });

  it('names each missing tool, in the order a build needs them', () => {
    expect(missingBuildTools(folder('empty', []))).toEqual(['git', 'cmake', COMPILER]);
    expect(missingBuildTools(folder('no-cmake', ['git', 'g++']))).toEqual(['cmake']);
    expect(missingBuildTools('')).toEqual(['git', 'cmake', COMPILER]);
  });

  it('does not count files that are not executable, nor folders with a program name', () => {
    const path = [folder('plain', ['git', 'cmake', 'c++'], 0o644), folder('dirs', [])].join(delimiter);
    mkdirSync(join(root, 'dirs', 'git'));
    expect(missingBuildTools(path)).toEqual(['git', 'cmake', COMPILER]);
  });

  it('takes CXX as the compiler when set, by name or by path, instead of the usual names', () => {
    const usual = folder('usual', ['git', 'cmake', 'g++']);
    expect(missingBuildTools(usual, 'icpx')).toEqual([COMPILER]);
    expect(missingBuildTools([usual, folder('intel', ['icpx'])].join(delimiter), 'icpx')).toEqual([]);
    expect(missingBuildTools(usual, join(root, 'usual', 'g++'))).toEqual([]);
    expect(missingBuildTools(usual, join(root, 'nowhere', 'g++'))).toEqual([COMPILER]);
    expect(missingBuildTools(usual, '')).toEqual([]);
  });
});
