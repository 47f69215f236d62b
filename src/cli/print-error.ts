/**
 * Turns any error that reaches the CLI into one clear message and an exit code.
 *
 * @packageDocumentation
 */
import { CommanderError } from 'commander';
import { DantinoxError, type ErrorCode, errorText } from '../errors.js';
import { messages } from '../messages.js';
import type { CliWriter } from './cli-io.js';
import { ExitCode } from './exit-code.js';

/** Error codes that mean "the user asked for something wrong": exit 2, before or instead of measuring. */
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_OPTION',
  'INVALID_MODEL_CONFIG',
  'INVALID_INPUT',
  'UNKNOWN_PLUGIN',
  'DUPLICATE_PLUGIN',
  'DEPENDENCY_MISSING',
  'IO',
  'UNSUPPORTED',
]);

/**
 * The exit code for an error that stopped a command: {@link ExitCode.usage} (2) for commander usage errors and
 * dantinox configuration/input errors, `0` for `--help`/`--version`, {@link ExitCode.taskFailed} (1) for engine
 * failures and anything unexpected.
 */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  if (error instanceof DantinoxError)
    return USAGE_CODES.has(error.code) ? ExitCode.usage : ExitCode.taskFailed;
  return ExitCode.taskFailed;
}

/**
 * Writes `error` to `out` as `error: <message>` (one line, or the header and issue lines of a validation
 * error). With `verbose`, the stack trace and the chain of causes follow. Commander's own errors are already
 * printed by commander and are not repeated.
 */
export function printError(error: unknown, out: CliWriter, verbose: boolean): void {
  if (error instanceof CommanderError) return;
  const known = error instanceof DantinoxError;
  const message = errorText(error);
  out.write(`error: ${known ? message : messages.unexpectedError(message)}\n`);
  if (!verbose) return;
  let current: unknown = error;
  let depth = 0;
  while (current !== undefined && depth < 8) {
    const stack = current instanceof Error ? (current.stack ?? current.message) : String(current);
    out.write(`${depth === 0 ? '' : 'caused by: '}${stack}\n`);
    current = current instanceof Error ? current.cause : undefined;
    depth++;
  }
}
