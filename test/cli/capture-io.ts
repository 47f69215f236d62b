/** An injected console for in-process CLI tests: records stdout and stderr, fixed clock, given working folder. */
import type { CliIo } from '../../src/cli/index.js';

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
