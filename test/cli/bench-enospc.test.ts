/**
 * A run whose results cannot be written because the disk is full never exits 0 listing empty files as results.
 *
 * - Mid-run (the results files are symlinks to `/dev/full`, where every write fails with ENOSPC, made after the run
 *   is planned): the run exits 1, says once — naming the path — that there is no space left and to pass `--out`
 *   on another disk, lists no results file, leaves none behind (no empty or cut file) and records no history.
 * - Full from the start (a real 64 KiB tmpfs, filled): `bench` stops before building anything, one line, exit 2.
 *   Mounting needs root and CAP_SYS_ADMIN (CI containers may lack it): without them the test is skipped, and says
 *   why in its name and on stderr.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWriterLogger } from '../../src/benchmarking/logger.js';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { runBenchPlan } from '../../src/cli/run-bench-plan.js';
import { messages } from '../../src/messages.js';
import { tinyPlan } from '../runs/tiny-plan.js';
import { captureIo } from './capture-io.js';

const RESULTS = ['results.csv', 'results.json', 'results.jsonl'];

/** Mounts a 64 KiB tmpfs and fills it; the mount point, or why it could not be mounted. */
function fullTmpfs(): { readonly dir: string } | { readonly reason: string } {
  if (process.platform !== 'linux') return { reason: 'tmpfs mounts are Linux only' };
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-full-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { encoding: 'utf8' });
  if (mount.status !== 0)
    return { reason: `cannot mount a tmpfs (needs root and CAP_SYS_ADMIN): ${mount.stderr.trim()}` };
  spawnSync('dd', ['if=/dev/zero', `of=${join(dir, 'fill')}`, 'bs=4k']);
  return { dir };
}

const tmpfs = fullTmpfs();
const skipReason = 'reason' in tmpfs ? tmpfs.reason : undefined;
if (skipReason !== undefined) console.warn(`bench-enospc: the tmpfs test is skipped: ${skipReason}`);

afterAll(() => {
  if ('dir' in tmpfs) spawnSync('umount', [tmpfs.dir]);
});

describe('bench on a full disk', () => {
  it.skipIf(!existsSync('/dev/full'))(
    'results files failing with ENOSPC mid-run: exit 1, one "no space left" line naming the path and --out',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'dantinox-enospc-'));
      const io = captureIo(cwd);
      const plan = tinyPlan(cwd, 'out', {
        history: { history: 'h.duckdb' },
        logger: createWriterLogger(io.stderr, 'warn'),
      });
      for (const f of RESULTS) symlinkSync('/dev/full', join(cwd, 'out', f));
      const code = await runBenchPlan(
        plan,
        { quiet: true, format: 'table' },
        { io, argv: [], exitCode: ExitCode.ok },
      );
      const err = io.err.join('');
      expect(code, err).toBe(ExitCode.taskFailed);
      const noSpace = err.split('\n').filter((l) => l.includes('no space left'));
      expect(noSpace).toHaveLength(1);
      expect(noSpace[0]).toContain(`"${join(cwd, 'out', 'results.jsonl')}"`);
      expect(noSpace[0]).toContain('pass --out on another disk');
      expect(err).toContain(messages.resultsNotWritten(RESULTS, true));
      expect(io.out.join('')).not.toContain('Results:');
      // Nothing empty or cut short is left to pass for a result, and nothing reached the history.
      expect(readdirSync(join(cwd, 'out')).filter((f) => f.startsWith('results'))).toEqual([]);
      expect(existsSync(join(cwd, 'h.duckdb'))).toBe(false);
    },
    60_000,
  );

  it.skipIf(skipReason !== undefined)(
    `a full tmpfs as --out: one line naming it and --out, exit 2, before any model is built${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`,
    async () => {
      const dir = 'dir' in tmpfs ? tmpfs.dir : '';
      const cwd = mkdtempSync(join(tmpdir(), 'dantinox-enospc-'));
      const io = captureIo(cwd);
      const out = join(dir, 'out');
      const code = await runCli(['bench', '--config', 'tiny', '--no-calibrate', '--out', out], io);
      expect(code).toBe(ExitCode.usage);
      expect(io.err.join('')).toBe(`error: ${messages.outDirNotWritable(out, { code: 'ENOSPC' })}\n`);
      expect(readdirSync(out)).toEqual([]);
    },
    60_000,
  );
});
