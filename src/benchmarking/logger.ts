/**
 * The injectable logger of the benchmarking layer. Library code never writes to the console: warnings and notes
 * go to a {@link Logger}, which the CLI points at stderr and tests point at an array.
 *
 * @packageDocumentation
 */

/** Severity of a log line. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Receives log lines. */
export interface Logger {
  /** Writes one message at `level`. */
  log(level: LogLevel, message: string): void;
}

/** A sink for text, e.g. `process.stderr` or a string collector in tests. */
export interface TextWriter {
  /** Writes `text` as is (callers add newlines). */
  write(text: string): unknown;
  /** Whether the sink is an interactive terminal (enables the live progress bar). */
  readonly isTTY?: boolean;
}

/** A logger that drops everything. */
export const silentLogger: Logger = { log: () => {} };

/**
 * A logger that writes `[level] message` lines to `writer`, ignoring levels below `minLevel`.
 *
 * @param minLevel - lowest level written. @default 'info'
 */
export function createWriterLogger(writer: TextWriter, minLevel: LogLevel = 'info'): Logger {
  const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  return {
    log(level, message) {
      if (order[level] >= order[minLevel]) writer.write(`[${level}] ${message}\n`);
    },
  };
}
