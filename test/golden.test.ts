import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectGoldenAt } from './golden.js';

const dir = mkdtempSync(join(tmpdir(), 'dx-golden-'));
const quiet = (): void => void vi.spyOn(console, 'warn').mockImplementation(() => {});

afterEach(() => vi.restoreAllMocks());

describe('golden files', () => {
  it('a missing golden file fails the test and is not created', () => {
    const path = join(dir, 'missing.txt');
    expect(() => expectGoldenAt(path, 'x', {})).toThrow(/is missing\. Create it with `UPDATE_GOLDEN=1/);
    expect(existsSync(path)).toBe(false);
  });

  it('a different output fails; an equal one passes', () => {
    const path = join(dir, 'same.txt');
    writeFileSync(path, 'a\n');
    expect(() => expectGoldenAt(path, 'b\n', {})).toThrow(/differs from the golden file/);
    expect(() => expectGoldenAt(path, 'a\n', {})).not.toThrow();
  });

  it('UPDATE_GOLDEN=1 writes the file (outside CI)', () => {
    quiet();
    const path = join(dir, 'sub', 'new.txt');
    expectGoldenAt(path, 'fresh\n', { UPDATE_GOLDEN: '1' });
    expect(readFileSync(path, 'utf8')).toBe('fresh\n');
    expectGoldenAt(path, 'changed\n', { UPDATE_GOLDEN: '1', CI: 'false' });
    expect(readFileSync(path, 'utf8')).toBe('changed\n');
  });

  it('under CI=true UPDATE_GOLDEN=1 is refused: a missing or different file always fails', () => {
    const missing = join(dir, 'ci-missing.txt');
    expect(() => expectGoldenAt(missing, 'x', { UPDATE_GOLDEN: '1', CI: 'true' })).toThrow(/refused when CI/);
    expect(existsSync(missing)).toBe(false);
    expect(() => expectGoldenAt(missing, 'x', { CI: 'true' })).toThrow(/is missing/);
    const path = join(dir, 'ci-same.txt');
    writeFileSync(path, 'a\n');
    expect(() => expectGoldenAt(path, 'b\n', { UPDATE_GOLDEN: '1', CI: '1' })).toThrow(/refused when CI/);
    expect(readFileSync(path, 'utf8')).toBe('a\n');
  });
});
