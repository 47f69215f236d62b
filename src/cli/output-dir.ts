/**
 * `--out <dir>`: the directory a command writes into, created and checked for writability before any work.
 *
 * @packageDocumentation
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** A run directory name from a date: `2026-01-31_14-05-09` (local time, sortable, safe in every file system). */
export function timestampName(date: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}_${p(date.getHours())}-${p(date.getMinutes())}-${p(date.getSeconds())}`;
}

/**
 * Creates `dir` (relative to `cwd`) with its parents and checks that a file can be written in it, so an
 * unwritable `--out` fails in the first second, not after a long benchmark. Returns the absolute path.
 *
 * @throws {@link DantinoxError} with code `IO` when the directory cannot be created or written.
 */
export function prepareOutputDir(dir: string, cwd: string): string {
  const path = isAbsolute(dir) ? dir : resolve(cwd, dir);
  const probe = join(path, `.dantinox-write-test-${process.pid}`);
  try {
    mkdirSync(path, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (cause) {
    throw new DantinoxError('IO', messages.outDirNotWritable(dir, cause), { cause });
  }
  return path;
}
