/**
 * `npm run mutation:planted`: applies each mutation of `mutations.ts` to a temporary copy of the repository, runs the
 * test files it names there, and expects them to fail. A baseline run first checks that those files pass on the
 * unmutated copy. Prints the kill rate; any surviving mutation fails the run. Not part of `npm test` (it runs the
 * relevant tests once per mutation: minutes). `MUTATION=<id>[,<id>…]` runs only those.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MUTATIONS, type Mutation } from './mutations.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SKIP = new Set(['node_modules', 'dist', 'dist-bench', '.git', 'results', 'coverage']);
const only = process.env['MUTATION']?.split(',');
const selected = MUTATIONS.filter((m) => only === undefined || only.includes(m.id));
let copy = '';
const outcome = new Map<string, 'killed' | 'survived'>();

/** Runs vitest on `files` inside the copy; returns its exit code and the tail of its output. */
function runTests(files: readonly string[]): { code: number; tail: string } {
  const run = spawnSync(
    process.execPath,
    [join(copy, 'node_modules/vitest/vitest.mjs'), 'run', ...files, '--reporter=dot'],
    {
      cwd: copy,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true', UPDATE_GOLDEN: '', NO_COLOR: '1', MUTATION: '' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return { code: run.status ?? -1, tail: `${run.stdout}${run.stderr}`.split('\n').slice(-25).join('\n') };
}

/** Applies `m` to the copy and returns the function that undoes it. */
function apply(m: Mutation): () => void {
  const path = join(copy, m.file);
  const original = readFileSync(path, 'utf8');
  if (m.replace === null) {
    rmSync(path);
  } else {
    const count = original.split(m.find).length - 1;
    if (count !== 1)
      throw new Error(`mutation ${m.id} no longer applies: ${m.file} has ${count} copies of its text`);
    writeFileSync(path, original.replace(m.find, m.replace));
  }
  return () => writeFileSync(path, original);
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'dantinox-mutation-'));
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (src) => {
      const rel = relative(ROOT, src);
      return !SKIP.has(rel.split('/')[0] as string) && !rel.startsWith('test/.output');
    },
  });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
});

afterAll(() => {
  if (copy !== '') rmSync(copy, { recursive: true, force: true });
  const killed = [...outcome.values()].filter((o) => o === 'killed').length;
  const lines = [...outcome].map(([id, o]) => `  ${o === 'killed' ? 'killed  ' : 'SURVIVED'} ${id}`);
  console.log(`\nMutation check: ${killed} of ${outcome.size} mutations killed\n${lines.join('\n')}`);
});

describe('mutation check', () => {
  it('baseline: the listed test files pass on the unmutated copy', () => {
    const files = [...new Set(selected.flatMap((m) => m.tests))];
    const run = runTests(files);
    expect(run.code, run.tail).toBe(0);
  });

  it.each(selected.map((m) => [m.id, m] as const))('%s is caught', (_id, m) => {
    const undo = apply(m);
    try {
      const run = runTests(m.tests);
      outcome.set(m.id, run.code === 0 ? 'survived' : 'killed');
      expect(run.code, `survived: ${m.defect}\n${run.tail}`).not.toBe(0);
    } finally {
      undo();
    }
  });
});
