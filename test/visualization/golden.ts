/**
 * Golden specs of the chart tests (`test/golden/visualization/<name>`, checked by the shared helper in
 * `test/golden.ts`: a missing file fails, `UPDATE_GOLDEN=1` regenerates) and the CSV fixtures they are built from.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectGoldenJson as expectGoldenJsonFile } from '../golden.js';

/** Asserts that `value` (pretty JSON) equals the golden file `test/golden/visualization/<name>`. */
export function expectGoldenJson(name: string, value: unknown): void {
  expectGoldenJsonFile(`visualization/${name}`, value);
}

/** Absolute path of a fixture in `test/fixtures`. */
export function fixture(name: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', name);
}
