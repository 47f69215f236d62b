/**
 * `--history` and `--compare-last` on `dantinox bench`: append the finished run to a DuckDB results history and
 * compare it with the previous run of the same model on the same machine.
 *
 * @packageDocumentation
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { compareReports, ResultsHistory, type SuiteReport } from '../benchmarking/index.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { CommandContext } from './command-context.js';
import { writeComparisons } from './commands/compare.js';
import { gitInfo } from './git-info.js';

/** The history options as commander parses them (a type alias, so it merges into bench's option record). */
export type HistoryCliOptions = {
  /** DuckDB file to append the run to. */
  readonly history?: string;
  /** Compare the run with the previous one of the same model and machine in the history. */
  readonly compareLast?: boolean;
};

/** Adds `--history <file>` and `--compare-last` to `command`. */
export function addHistoryOptions(command: Command): Command {
  return command
    .option('--history <file>', 'append the run to this DuckDB results history (created when missing)')
    .option(
      '--compare-last',
      'compare the run with the previous run of the same model on this machine (needs --history)',
    );
}

/**
 * Checks the history options before anything is measured.
 *
 * @throws {@link DantinoxError} `INVALID_OPTION` for `--compare-last` without `--history`, `IO` for a history
 * path that is a directory.
 */
export function checkHistoryOptions(options: HistoryCliOptions, cwd: string): void {
  if (options.compareLast === true && options.history === undefined) {
    throw new DantinoxError('INVALID_OPTION', messages.compareLastNeedsHistory());
  }
  if (options.history === undefined) return;
  const path = isAbsolute(options.history) ? options.history : resolve(cwd, options.history);
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    isDir = false;
  }
  if (isDir) throw new DantinoxError('IO', messages.historyIsDirectory(options.history));
}

/**
 * Appends `report` to the `--history` file (with the git commit and branch of the working directory) and, with
 * `--compare-last`, prints the comparison with the previous run of the same model on the same machine.
 */
export async function recordHistory(
  report: SuiteReport,
  options: HistoryCliOptions,
  ctx: CommandContext,
): Promise<void> {
  if (options.history === undefined) return;
  const path = isAbsolute(options.history) ? options.history : resolve(ctx.io.cwd, options.history);
  const history = await ResultsHistory.open(path);
  try {
    await history.add(report, gitInfo(ctx.io.cwd));
    ctx.io.stderr.write(`History: run ${report.runId} appended to ${options.history}\n`);
    if (options.compareLast !== true || report.runId === undefined) return;
    const previous = await history.previousRun(report.runId);
    const baseline = previous === undefined ? undefined : await history.report(previous);
    if (previous === undefined || baseline === undefined) {
      ctx.io.stdout.write(`\n${messages.noPreviousRun(options.history)}\n`);
      return;
    }
    ctx.io.stdout.write('\n');
    await writeComparisons(
      [compareReports(baseline, report, { baselineLabel: previous })],
      { format: 'text' },
      ctx,
    );
  } finally {
    history.close();
  }
}
