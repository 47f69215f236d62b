/**
 * `dantinox bench --repeat N` (in process): bad values and `--shard` refused with one line naming `--repeat`; a real
 * run of `tiny` writes `run-1/`, `run-2/` and the report of both at the top, says each round on stderr, and
 * `dantinox compare` reads the folder as 2 runs per side.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { captureIo } from './capture-io.js';
import { TINY_SWEEP } from './tiny-sweep.js';

const TINY = ['--config', 'tiny', '--tasks', 'throughput', ...TINY_SWEEP, '--no-calibrate'];

describe('dantinox bench --repeat', () => {
  it('refuses a value that is not an integer ≥ 1 in one line naming --repeat (and the --help hint), exit 2', async () => {
    for (const value of ['0', '-1', '2.5', 'three']) {
      const io = captureIo(mkdtempSync(join(tmpdir(), 'dantinox-repeat-')));
      expect(await runCli(['bench', ...TINY, '--repeat', value], io)).toBe(ExitCode.usage);
      const [line, hint, ...rest] = io.err.join('').trim().split('\n');
      expect(line).toBe(
        `error: option '--repeat <n>' argument '${value}' is invalid. "${value}" is not a positive integer, e.g. 4.`,
      );
      expect([hint, ...rest]).toEqual(['(run the command with --help for usage and examples)']);
    }
  });

  it('refuses --repeat with --shard before anything runs, exit 2', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-repeat-'));
    const io = captureIo(cwd);
    const code = await runCli(['bench', ...TINY, '--repeat', '2', '--shard', '0/2', '--out', 'o'], io);
    expect(code).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${messages.repeatWithShard()}\n`);
    expect(existsSync(join(cwd, 'o'))).toBe(false);
  });

  it('runs the rounds into run-1/ and run-2/ with report.html on top; compare takes 2 runs per side', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-repeat-'));
    const io = captureIo(cwd);
    expect(await runCli(['bench', ...TINY, '--repeat', '2', '--out', 'out'], io), io.err.join('')).toBe(
      ExitCode.ok,
    );
    const err = io.err.join('');
    expect(err).toContain(`Round [1/2] → ${join('out', 'run-1')}\n`);
    expect(err.indexOf('Round [2/2]')).toBeGreaterThan(err.indexOf('Round [1/2]'));
    const out = io.out.join('');
    expect(out).toMatch(/Results: out\n {2}(charts\/\S+\n {2})*report\.html\n {2}run-1\/\n {2}run-2\/\n/);
    expect(out).toContain('dantinox compare out -- <later --repeat folder>');
    expect(existsSync(join(cwd, 'out/report.html'))).toBe(true);
    expect(existsSync(join(cwd, 'out/run-2/results.json'))).toBe(true);
    const compared = captureIo(cwd);
    expect(await runCli(['compare', 'out/run-1', 'out/run-2', '--', 'out'], compared)).toBe(ExitCode.ok);
    expect(compared.out.join('')).toMatch(/^out \(2 runs\) vs .* \(2 runs\) \(baseline\)/);
  }, 120_000);
});
