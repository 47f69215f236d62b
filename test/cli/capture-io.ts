/** An injected console for in-process CLI tests: records stdout and stderr, fixed clock, given working folder. */
import { type CliIo, runCli } from '../../src/cli/index.js';
import type { CliRun } from './built-cli.js';

/** A {@link CliIo} writing into `out` and `err`, in `cwd`, at 2026-01-31 04:05:09 local time. */
export function captureIo(cwd: string): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    cwd,
    now: () => new Date(2026, 0, 31, 4, 5, 9),
  };
}

/**
 * Runs the CLI in this process, in `cwd`, and collects its output as {@link CliRun}, as a child process's run
 * does: the CLI tests' one in-process run, which saves the second a process start costs.
 */
export async function runCliInProcess(args: readonly string[], cwd: string): Promise<CliRun> {
  const io = captureIo(cwd);
  const code = await runCli(args, io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}
