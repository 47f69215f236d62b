/**
 * `makeDirectory` makes a folder with its parents and, when it cannot, fails with the error of the folder that
 * could not be made: on a read-only file system Node's recursive `mkdir` says `ENOENT`, which read as "check that
 * the directory is writable" where the advice is "the file system is read-only". The read-only case mounts a
 * tmpfs (root and CAP_SYS_ADMIN; skipped, saying why, without them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../src/make-directory.js';
import { messages } from '../src/messages.js';
import { prepareOutputDir } from '../src/runs/output-dir.js';
import { thrown } from './thrown.js';

/** The `code` of the error `fn` throws (`undefined` when it throws none). */
function errorCodeOf(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return undefined;
}

/** Mounts an empty read-only tmpfs; the mount point, or why it could not be mounted. */
function readOnlyTmpfs(): { readonly dir: string } | { readonly reason: string } {
  if (process.platform !== 'linux') return { reason: 'tmpfs mounts are Linux only' };
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-ro-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=16k', 'tmpfs', dir], { encoding: 'utf8' });
  if (mount.status !== 0)
    return { reason: `cannot mount a tmpfs (needs root and CAP_SYS_ADMIN): ${mount.stderr.trim()}` };
  return { dir };
}

const readOnly = readOnlyTmpfs();
const skipReason = 'reason' in readOnly ? readOnly.reason : undefined;
if (skipReason !== undefined) console.warn(`make-directory: the read-only test is skipped: ${skipReason}`);

afterAll(() => {
  if ('dir' in readOnly) spawnSync('umount', [readOnly.dir]);
});

describe('makeDirectory', () => {
  it('makes a folder with its missing parents, and accepts one that exists', () => {
    const root = mkdtempSync(join(tmpdir(), 'dantinox-mkdir-'));
    const path = join(root, 'a', 'b', 'c');
    makeDirectory(path);
    expect(statSync(path).isDirectory()).toBe(true);
    makeDirectory(path);
    makeDirectory(root);
    expect(statSync(path).isDirectory()).toBe(true);
  });

  it('fails with the error of a file in the way', () => {
    const root = mkdtempSync(join(tmpdir(), 'dantinox-mkdir-'));
    writeFileSync(join(root, 'file'), 'x');
    expect(errorCodeOf(() => makeDirectory(join(root, 'file')))).toBe('EEXIST');
    expect(errorCodeOf(() => makeDirectory(join(root, 'file', 'a', 'b')))).toBe('ENOTDIR');
  });

  it.skipIf(skipReason !== undefined)(
    `fails with EROFS on a read-only file system, one level down or several (not ENOENT)${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`,
    () => {
      const dir = 'dir' in readOnly ? readOnly.dir : '';
      for (const path of [join(dir, 'run'), join(dir, 'a', 'b', 'run')]) {
        expect(errorCodeOf(() => makeDirectory(path))).toBe('EROFS');
        expect(existsSync(path)).toBe(false);
      }
      // What `bench --out` says of it: the read-only advice, not "check that the directory is writable".
      const out = join(dir, 'results', 'run');
      const error = thrown(() => prepareOutputDir(out, tmpdir()));
      expect(error.message).toBe(messages.outDirNotWritable(out, { code: 'EROFS' }));
      expect(error.message).toContain('the file system is read-only; pass --out <dir> on a writable one');
    },
  );
});
