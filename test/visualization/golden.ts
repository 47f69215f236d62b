/**
 * Golden-file helper (Observable Plot's harness): compares a value with `test/golden/visualization/<name>`,
 * writing the file when it is missing or when `UPDATE_GOLDEN=1`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'golden', 'visualization');

/** Asserts that `value` (pretty JSON) equals the golden file `name`, (re)generating it when asked or missing. */
export function expectGoldenJson(name: string, value: unknown): void {
  const path = join(GOLDEN_DIR, name);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env['UPDATE_GOLDEN'] === '1' || !existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.warn(`! generated golden file ${path}`);
  }
  expect(text).toBe(readFileSync(path, 'utf8'));
}

/** Absolute path of a fixture in `test/fixtures`. */
export function fixture(name: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', name);
}
