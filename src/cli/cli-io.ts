/**
 * The console and environment the CLI writes to, injected so tests and library users can capture output.
 *
 * @packageDocumentation
 */

/** Something text can be written to: `process.stdout`, `process.stderr` or a test buffer. */
export interface CliWriter {
  /** Writes `text` as is (no newline added). */
  write(text: string): unknown;
  /** Whether the writer is an interactive terminal (live progress bars are drawn only then). */
  readonly isTTY?: boolean;
}

/** Where the CLI reads its environment from and writes its output to. */
export interface CliIo {
  /** Results, summaries and JSON: what a user pipes into another program. */
  readonly stdout: CliWriter;
  /** Progress, warnings and errors. */
  readonly stderr: CliWriter;
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
  /** The current time, used to name default output directories. */
  now(): Date;
}

/** The real process console: stdout, stderr, `process.cwd()` and the system clock. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), now: () => new Date() };
}
