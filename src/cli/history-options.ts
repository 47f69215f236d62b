/**
 * `--history` and `--compare-last` on `dantinox bench`: append the finished run to a DuckDB results history and
 * compare it with the previous run of the same variant on the same machine.
 *
 * @packageDocumentation
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { HistoryOptions } from '../runs/index.js';

/** Adds `--history <file>` and `--compare-last` to `command`. */
export function addHistoryOptions(command: Command): Command {
  return command
    .option('--history <file>', 'append the run to this DuckDB results history (created when missing)')
    .option(
      '--compare-last',
      'compare the run with the previous run of the same variant (model, weights, dtype, engine, threads) on this machine, or with --repeat n its n runs with the n before them (needs --history)',
    );
}

/**
 * Checks the history options before anything is measured.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for `--compare-last` without `--history`, `IO` for a history
 * path that is a directory.
 */
export function checkHistoryOptions(options: HistoryOptions, cwd: string): void {
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
