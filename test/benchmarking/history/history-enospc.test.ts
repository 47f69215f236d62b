/**
 * A history file that cannot be created on a full disk is not left behind: DuckDB creates the file, then fails
 * to write its header; an empty file would make every later `history add` fail with "not a valid DuckDB database
 * file", even once there is space. Mounts a 64 KiB tmpfs and fills it (root and CAP_SYS_ADMIN; skipped, saying
 * why, without them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ResultsHistory } from '../../../src/benchmarking/history/results-history.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';

/** Mounts a 64 KiB tmpfs and fills it; the mount point, or why it could not be mounted. */
function fullTmpfs(): { readonly dir: string } | { readonly reason: string } {
  if (process.platform !== 'linux') return { reason: 'tmpfs mounts are Linux only' };
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-history-full-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { encoding: 'utf8' });
  if (mount.status !== 0)
    return { reason: `cannot mount a tmpfs (needs root and CAP_SYS_ADMIN): ${mount.stderr.trim()}` };
  spawnSync('dd', ['if=/dev/zero', `of=${join(dir, 'fill')}`, 'bs=4k']);
  return { dir };
}

const tmpfs = fullTmpfs();
const skipReason = 'reason' in tmpfs ? tmpfs.reason : undefined;
if (skipReason !== undefined) console.warn(`history-enospc: the tmpfs test is skipped: ${skipReason}`);

afterAll(() => {
  if ('dir' in tmpfs) spawnSync('umount', [tmpfs.dir]);
});

it.skipIf(skipReason !== undefined)(
  `a new history on a full disk: "no space left" advice, no file left, and a later open with space creates it${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`,
  async () => {
    const dir = 'dir' in tmpfs ? tmpfs.dir : '';
    const path = join(dir, 'h.duckdb');
    let caught: unknown;
    try {
      (await ResultsHistory.open(path)).close();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DantinoxError);
    const error = caught as DantinoxError;
    expect(error.code).toBe('IO');
    expect(error.message).toBe(messages.historyNotCreated(path, error.cause));
    expect(error.message).toContain(
      'No space left on its disk: free some space or pass --history a path on another disk',
    );
    expect(readdirSync(dir).sort()).toEqual(['fill']);
    rmSync(join(dir, 'fill'));
    const history = await ResultsHistory.open(path);
    expect(await history.schemaVersion()).toBeGreaterThan(0);
    history.close();
    expect(existsSync(path)).toBe(true);
  },
  60_000,
);
