/**
 * Paths of the wrong kind — a file where a folder is needed and the reverse, a missing `--reference` — are one
 * line, exit 2, with the hint that fits the error (not "check that the directory is writable" for a file in the
 * way) and the flag the user typed (`--reference`, not `--model`).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { fakeRun } from '../benchmarking/compare/fake-runs.js';
import { captureIo } from './capture-io.js';

let cwd: string;

/** Runs the CLI in process in `cwd`; expects a one-line usage error and returns it. */
async function refusal(args: string[]): Promise<string> {
  const io = captureIo(cwd);
  const code = await runCli(args, io);
  const err = io.err.join('');
  expect(code, err).toBe(ExitCode.usage);
  expect(err.split('\n'), err).toHaveLength(2);
  expect(err).not.toContain('unexpected error');
  return err;
}

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'dantinox-hostile-paths-'));
  fakeRun({ seed: 1, runId: 'a' }).save(join(cwd, 'a', 'results.json'));
  fakeRun({ seed: 2, runId: 'b' }).save(join(cwd, 'b', 'results.json'));
  writeFileSync(join(cwd, 'afile'), 'x\n');
  mkdirSync(join(cwd, 'adir'));
});

describe('paths of the wrong kind', () => {
  it('a file in the way of an --out folder says so, for compare, plot, report and bench', async () => {
    for (const args of [
      ['compare', 'a', 'b', '--out', 'afile'],
      ['plot', 'a', '--out', 'afile'],
      ['report', 'a', '--out', 'afile/report.html'],
      ['bench', '--config', 'tiny', '--out', 'afile'],
      ['bench', '--config', 'tiny', '--out', 'afile/sub'],
    ]) {
      const err = await refusal(args);
      expect(err, args.join(' ')).toContain(
        'a file is in the way where a folder is needed; move that file or pass another --out',
      );
      expect(err, args.join(' ')).not.toContain('writable');
    }
  });

  it('a folder given where a file is read says it is a folder', async () => {
    for (const [args, what] of [
      [['bench', '--bench-config', 'adir'], 'benchmark config'],
      [['bench', '--config', 'adir'], 'model config'],
    ] as const) {
      const err = await refusal([...args]);
      expect(err).toMatch(
        new RegExp(
          `^error: Cannot read ${what} file ".*adir": it is a folder; pass the path of the file itself\\.\\n$`,
        ),
      );
    }
  });

  it('a folder given as --data is refused before any model is built', async () => {
    expect(await refusal(['bench', '--config', 'tiny', '--data', 'adir', '--out', 'd1'])).toBe(
      `error: ${messages.dataFileIsFolder('adir')}\n`,
    );
  });

  it('a --reference folder that is missing or holds no model names --reference, before any model is built', async () => {
    const kldAgainst = (reference: string, out: string) =>
      refusal(['bench', '--config', 'tiny', '--tasks', 'kld', '--reference', reference, '--out', out]);
    const missing = await kldAgainst('nope', 'r1');
    expect(missing).toBe(`error: ${messages.modelFolderMissing('nope', '--reference')}\n`);
    expect(missing).not.toContain('--model');
    const empty = await kldAgainst('adir', 'r2');
    expect(empty).toBe(
      `error: ${messages.referenceFolderIncomplete('adir', ['config.json', join('onnx', 'model.onnx')])}\n`,
    );
  });
});
