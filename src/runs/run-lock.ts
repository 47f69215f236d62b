/**
 * The lock of a run folder: one process writes a folder at a time. `planRun` takes it when it claims the folder
 * (before `--force` may clear anything), `runMatrix` releases it when the run ends, and the process's exit
 * releases it on any other way out; a lock whose owner process is dead is stale and taken over.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** File name of the lock in a run folder. */
export const RUN_LOCK_FILE = '.dantinox.lock';

/** What a lock file holds: who writes the folder. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly token: string;
}

/** A held run-folder lock. */
export interface RunLock {
  /** The lock file (absolute). */
  readonly path: string;
  /** Removes the lock file if it is still this lock's (idempotent). */
  release(): void;
}

/** The owner recorded in the lock file at `path`; `undefined` when it holds no owner (garbled, or gone). */
function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner> | null;
    if (
      typeof owner?.pid === 'number' &&
      typeof owner.host === 'string' &&
      typeof owner.since === 'string' &&
      typeof owner.token === 'string'
    )
      return owner as LockOwner;
  } catch {
    // unreadable or not JSON: no owner
  }
  return undefined;
}

/**
 * Whether process `pid` of this machine is running: it exists (`EPERM`: it belongs to another user) and is not a
 * zombie. A process killed with SIGKILL stays in the process table as a zombie until its parent (or init, when the
 * parent died with it) collects it, and signal 0 still reaches it then; Linux's `/proc/<pid>/stat` tells the two
 * apart (state `Z` or `X`).
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
  return !hasEnded(pid);
}

/** Whether `/proc` reports process `pid` as a zombie or dead; `false` where there is no `/proc`. */
function hasEnded(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "<pid> (<command, may hold spaces and parentheses>) <state> …"
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

/** Whether `owner` may still be writing: alive on this machine, or on another machine (which cannot be asked). */
function isLive(owner: LockOwner | undefined): owner is LockOwner {
  if (owner === undefined) return false;
  return owner.host !== hostname() || isAlive(owner.pid);
}

/**
 * Takes the lock of the run folder `dir` (absolute, existing) for this process: the lock file is written whole
 * under a temporary name and linked into place, so another process sees either no lock or a complete one. A lock
 * whose owner is a dead process of this machine (killed with SIGKILL, say), or that records no owner, is stale and
 * replaced. `shownDir` is the folder as messages show it, given with `flag`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when a live process holds the folder (naming it; `--force`
 * does not override it); `IO` when the lock cannot be written.
 */
export function acquireRunLock(dir: string, shownDir: string, flag: '--out' | '--resume' = '--out'): RunLock {
  const path = join(dir, RUN_LOCK_FILE);
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const temp = `${path}.${process.pid}.${owner.token}`;
  try {
    writeFileSync(temp, `${JSON.stringify(owner)}\n`);
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temp, path);
        break;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
        const holder = readOwner(path);
        if (isLive(holder))
          throw new DantinoxError(
            'INVALID_OPTION',
            messages.outDirLocked(shownDir, holder.pid, holder.host, holder.since, path, flag),
          );
        if (attempt >= 2) throw error;
        rmSync(path, { force: true }); // stale: its owner is dead
      }
    }
  } catch (cause) {
    if (cause instanceof DantinoxError) throw cause;
    throw new DantinoxError('IO', messages.outDirNotWritable(shownDir, cause), { cause });
  } finally {
    rmSync(temp, { force: true });
  }
  const release = (): void => {
    process.removeListener('exit', release);
    if (readOwner(path)?.token === owner.token) rmSync(path, { force: true });
  };
  process.on('exit', release);
  return { path, release };
}
