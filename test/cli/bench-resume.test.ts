/**
 * `dantinox bench --resume` (in process) into a folder holding another run: a matrix into a single run's folder, a
 * single run into a matrix's, or a single run of another model or task set is refused with one line naming
 * `--resume`, the folder and what differs, exit 2, the folder left as it was. Real runs of `tiny`.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { captureIo } from './capture-io.js';
import { TINY_SWEEP } from './tiny-sweep.js';

const SWEEP = [...TINY_SWEEP, '--no-calibrate', '--no-charts', '-q'];
const TINY = ['bench', '--config', 'tiny', ...SWEEP];

let cwd: string;

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'dx-resume-'));
  for (const args of [
    [...TINY, '--tasks', 'throughput', '--out', 'flat'],
    [...TINY, '--tasks', 'throughput', '--dtype', 'fp32,q8', '--out', 'matrix'],
  ]) {
    const io = captureIo(cwd);
    expect(await runCli(args, io), io.err.join('')).toBe(ExitCode.ok);
  }
}, 120_000);

/** Every file under `dir`, with its content. */
const snapshot = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(join(cwd, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const path = join(e.parentPath, e.name);
        return [path, readFileSync(path, 'utf8')];
      }),
  );

describe('dantinox bench --resume into another run', () => {
  it.each([
    [
      'a matrix into a single run',
      'flat',
      ['--tasks', 'throughput', '--dtype', 'fp32,q8'],
      messages.resumeLayoutMismatch('flat', 'single'),
    ],
    [
      'a single run into a matrix',
      'matrix',
      ['--tasks', 'throughput'],
      messages.resumeLayoutMismatch('matrix', 'matrix'),
    ],
    [
      'another task set',
      'flat',
      ['--tasks', 'latency'],
      messages.resumeRunMismatch('flat', [{ flag: '--tasks', there: 'throughput', here: 'latency' }]),
    ],
  ])('%s: one line, exit 2, the folder untouched', async (_what, out, flags, line) => {
    const before = snapshot(out);
    const io = captureIo(cwd);
    expect(await runCli([...TINY, ...flags, '--resume', '--out', out], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${line}\n`);
    expect(io.out).toEqual([]);
    expect(snapshot(out)).toEqual(before);
  });

  it('another model: one line naming both models, exit 2', async () => {
    const io = captureIo(cwd);
    const args = [
      'bench',
      '--config',
      'small',
      ...SWEEP,
      '--tasks',
      'throughput',
      '--resume',
      '--out',
      'flat',
    ];
    expect(await runCli(args, io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(
      `error: ${messages.resumeRunMismatch('flat', [{ flag: '--config/--model', there: 'tiny', here: 'small' }])}\n`,
    );
  });

  it('the same command resumes: nothing to do, exit 0', async () => {
    const io = captureIo(cwd);
    expect(await runCli([...TINY, '--tasks', 'throughput', '--resume', '--out', 'flat'], io)).toBe(
      ExitCode.ok,
    );
    expect(io.out.join('')).toBe('Nothing to do: flat already holds a complete run (--resume).\n');
  });
});
