import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { acquireRunLock, RUN_LOCK_FILE } from '../../src/runs/run-lock.js';
import { ensureBuilt, ROOT } from '../cli/built-cli.js';

/** The pid of a process that has exited (a pid is not reused at once: the kernel hands them out in order). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid ?? 0;
}

const lockOf = (pid: number, host = hostname()): string =>
  JSON.stringify({ pid, host, since: '2026-01-31T04:05:09.000Z', token: 'abc' });

describe('acquireRunLock', () => {
  it('holds the folder: a second taker is refused naming the owner, until the first releases it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-lock-'));
    const lock = acquireRunLock(dir, 'run');
    expect(readdirSync(dir)).toEqual([RUN_LOCK_FILE]);
    const owner = JSON.parse(readFileSync(lock.path, 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, host: hostname() });
    let error: unknown;
    try {
      acquireRunLock(dir, 'run');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DantinoxError);
    expect((error as DantinoxError).code).toBe('INVALID_OPTION');
    expect((error as Error).message).toBe(
      messages.outDirLocked('run', process.pid, hostname(), owner.since, lock.path),
    );
    expect(readdirSync(dir)).toEqual([RUN_LOCK_FILE]); // the refused taker left nothing behind
    lock.release();
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
    acquireRunLock(dir, 'run').release();
  });

  it('takes over a stale lock (its owner died) or one that records no owner', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-lock-'));
    const pid = deadPid();
    writeFileSync(join(dir, RUN_LOCK_FILE), lockOf(pid));
    const lock = acquireRunLock(dir, 'run');
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
    writeFileSync(join(dir, RUN_LOCK_FILE), '{"pid": 1');
    acquireRunLock(dir, 'run').release();
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'takes over the lock of a killed owner not yet collected by its parent (a zombie)',
    async () => {
      // `sleep 0.1` ends at once, but its parent execs into `sleep 10`, which never collects it: a zombie.
      const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 10'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      try {
        const pid = Number(
          await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(`${d}`))),
        );
        await new Promise((resolve) => setTimeout(resolve, 600));
        expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /);
        const dir = mkdtempSync(join(tmpdir(), 'dantinox-lock-'));
        writeFileSync(join(dir, RUN_LOCK_FILE), lockOf(pid));
        const lock = acquireRunLock(dir, 'run');
        expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
        lock.release();
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );

  it('a lock of a live process, or of another machine, is never taken over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-lock-'));
    writeFileSync(join(dir, RUN_LOCK_FILE), lockOf(process.pid));
    expect(() => acquireRunLock(dir, 'run')).toThrow(/is being written by another dantinox process/);
    writeFileSync(join(dir, RUN_LOCK_FILE), lockOf(deadPid(), `not-${hostname()}`));
    expect(() => acquireRunLock(dir, 'run')).toThrow(/is being written by another dantinox process/);
  });

  it('release leaves a lock that is no longer its own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-lock-'));
    const lock = acquireRunLock(dir, 'run');
    writeFileSync(lock.path, lockOf(process.pid)); // another token: taken over meanwhile
    lock.release();
    expect(readFileSync(lock.path, 'utf8')).toBe(lockOf(process.pid));
  });

  it('is released when the process exits without releasing it', { timeout: 180_000 }, () => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-lock-'));
    const script = `import { acquireRunLock } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/runs/run-lock.js')).href)};
acquireRunLock(${JSON.stringify(dir)}, 'run'); process.exit(3);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
    expect(child.status, child.stderr.toString()).toBe(3);
    expect(readdirSync(dir)).toEqual([]);
  });
});
