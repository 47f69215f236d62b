/**
 * Exit codes of the `dantinox` command.
 *
 * @packageDocumentation
 */

/**
 * Exit codes of the `dantinox` command: `ok` (0) when everything ran, `taskFailed` (1) when at least one
 * benchmark task or measurement failed (its row is in the results with `status` and `error`) or an unexpected
 * error stopped the run, `regression` (1) when `compare --fail-on-regression` found a regressed metric,
 * `usage` (2) for usage and configuration errors (unknown option, preset, task or chart, invalid config, missing or
 * unwritable file), which are reported before any measurement starts, `interrupted` (130 = 128 + SIGINT) and
 * `terminated` (143 = 128 + SIGTERM) when a signal stopped a run (every output is still written from what was
 * measured).
 */
export const ExitCode = {
  ok: 0,
  taskFailed: 1,
  regression: 1,
  usage: 2,
  interrupted: 130,
  terminated: 143,
} as const;

/** One of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
