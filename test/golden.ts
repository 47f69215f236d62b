/**
 * Golden files under `test/golden/`: a test compares its output with a committed file and never creates it. A
 * missing file fails the test; `UPDATE_GOLDEN=1` (re)writes the files a run touches, and is refused under
 * `CI=true`, so CI always compares against what was reviewed and committed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** `test/golden/`, the root of every golden file. */
export const GOLDEN_ROOT = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const REPO_ROOT = join(GOLDEN_ROOT, '..', '..');

/** Environment variables the golden check reads (`process.env` by default; injectable for its own tests). */
export interface GoldenEnv {
  readonly [name: string]: string | undefined;
}

/** True when golden files should be rewritten; throws under CI, where regenerating would hide a change. */
function updating(env: GoldenEnv): boolean {
  if (env['UPDATE_GOLDEN'] !== '1') return false;
  if (env['CI'] !== undefined && env['CI'] !== '' && env['CI'] !== 'false' && env['CI'] !== '0')
    throw new Error(
      'UPDATE_GOLDEN=1 is refused when CI is set: regenerate golden files locally, review the diff and commit them.',
    );
  return true;
}

/**
 * Asserts that `actual` equals the golden file at `path` (absolute). A missing file fails with the command that
 * creates it; with `UPDATE_GOLDEN=1` (not under CI) the file is written instead and the change is reported.
 */
export function expectGoldenAt(path: string, actual: string, env: GoldenEnv = process.env): void {
  const shown = relative(REPO_ROOT, path);
  if (updating(env)) {
    if (existsSync(path) && readFileSync(path, 'utf8') === actual) return;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    console.warn(`! UPDATE_GOLDEN=1: wrote ${shown}; review the diff before committing`);
    return;
  }
  if (!existsSync(path))
    throw new Error(
      `Golden file ${shown} is missing. Create it with \`UPDATE_GOLDEN=1 npx vitest run <this test file>\`, review it and commit it.`,
    );
  expect(actual, `output differs from the golden file ${shown} (UPDATE_GOLDEN=1 rewrites it)`).toBe(
    readFileSync(path, 'utf8'),
  );
}

/** Asserts that `actual` equals `test/golden/<name>` (see {@link expectGoldenAt}). */
export function expectGolden(name: string, actual: string): void {
  expectGoldenAt(join(GOLDEN_ROOT, name), actual);
}

/** Asserts that `value` as pretty JSON (2 spaces, final newline) equals `test/golden/<name>`. */
export function expectGoldenJson(name: string, value: unknown): void {
  expectGolden(name, `${JSON.stringify(value, null, 2)}\n`);
}
