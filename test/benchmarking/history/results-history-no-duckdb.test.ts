/**
 * `ResultsHistory.open` without `@duckdb/node-api` (an install that lost it): `DEPENDENCY_MISSING` with the
 * import's error, before any file is touched. The package is mocked for this test only (`vi.doMock`, undone after,
 * as the mutation runs share one module cache).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResultsHistory } from '../../../src/benchmarking/history/results-history.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';

afterEach(() => {
  vi.doUnmock('@duckdb/node-api');
});

describe('ResultsHistory.open without DuckDB', () => {
  it('refuses with DEPENDENCY_MISSING and the import error, creating no file', async () => {
    vi.doMock('@duckdb/node-api', () => {
      throw new Error('Cannot find package @duckdb/node-api');
    });
    const path = join(mkdtempSync(join(tmpdir(), 'dantinox-history-no-duckdb-')), 'h.duckdb');
    const error = await ResultsHistory.open(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DantinoxError);
    expect((error as DantinoxError).code).toBe('DEPENDENCY_MISSING');
    expect((error as DantinoxError).cause).toBeInstanceOf(Error);
    expect((error as DantinoxError).message).toBe(
      messages.historyNeedsDuckdb((error as DantinoxError).cause),
    );
    expect(existsSync(path)).toBe(false);
    vi.doUnmock('@duckdb/node-api');
    (await ResultsHistory.open(path)).close();
    expect(existsSync(path)).toBe(true);
  });
});
