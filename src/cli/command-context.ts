/**
 * What every command receives: the injected console and a place to put its exit code.
 *
 * @packageDocumentation
 */
import type { CliIo } from './cli-io.js';
import type { ExitCode } from './exit-code.js';

/** Shared state of one CLI invocation. */
export interface CommandContext {
  /** Where output goes and where relative paths start. */
  readonly io: CliIo;
  /** The arguments after the program name, as typed (recorded in reports). */
  readonly argv: readonly string[];
  /** The exit code an action decided on (e.g. {@link ExitCode.taskFailed} when a task failed). */
  exitCode: ExitCode;
}
