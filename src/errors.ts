/**
 * The one error class of dantinox. Callers switch on {@link DantinoxError.code}; there is no `instanceof`
 * hierarchy beyond {@link ValidationError}, which carries the list of problems it found.
 *
 * @packageDocumentation
 */
import { messages } from './messages.js';

/**
 * What went wrong, as a stable string-literal code.
 *
 * - `INVALID_OPTION`: an option or argument is out of range or of the wrong type.
 * - `INVALID_MODEL_CONFIG`: a {@link ModelConfig} failed validation.
 * - `INVALID_INPUT`: data handed to a model or a chart is malformed (token id out of range, missing column…).
 * - `UNKNOWN_PLUGIN` / `DUPLICATE_PLUGIN`: a registry lookup or registration failed.
 * - `DEPENDENCY_MISSING`: an optional package is not installed.
 * - `RUNTIME_ERROR`: the inference engine failed.
 * - `IO`: reading or writing a file failed.
 * - `UNSUPPORTED`: the request is valid but not supported by this version.
 */
export type ErrorCode =
  | 'INVALID_OPTION'
  | 'INVALID_MODEL_CONFIG'
  | 'INVALID_INPUT'
  | 'UNKNOWN_PLUGIN'
  | 'DUPLICATE_PLUGIN'
  | 'DEPENDENCY_MISSING'
  | 'RUNTIME_ERROR'
  | 'IO'
  | 'UNSUPPORTED';

/** Options of {@link DantinoxError}: the error code and an optional underlying cause. */
export interface DantinoxErrorOptions {
  /** The error that caused this one, kept for debugging. */
  cause?: unknown;
}

/**
 * The error thrown by every dantinox API: a message that says what was wrong, what is allowed and how to fix
 * it, plus a machine-readable {@link ErrorCode}.
 *
 * @example
 * ```ts
 * try { ModelConfig.parse({ dim: 500, nHeads: 12 }); }
 * catch (e) { if (e instanceof DantinoxError && e.code === 'INVALID_MODEL_CONFIG') console.error(e.message); }
 * ```
 */
export class DantinoxError extends Error {
  /** The stable code that names the kind of failure. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options: DantinoxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DantinoxError';
    this.code = code;
  }
}

/** One problem found while validating an input: where it is (a dotted path) and what is wrong with it. */
export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `nHeads`; empty for a whole-object problem. */
  readonly path: string;
  /** What was wrong, the value received and what is allowed. */
  readonly message: string;
}

/**
 * A validation failure that lists every problem at once (not just the first), so a user fixes their config in
 * one pass. Its message is a header line followed by one `  - path: message` line per issue.
 */
export class ValidationError extends DantinoxError {
  /** Every problem found, in the order they were checked. */
  readonly issues: readonly ValidationIssue[];

  constructor(code: ErrorCode, header: string, issues: readonly ValidationIssue[]) {
    super(code, [header, ...issues.map((i) => `  - ${i.path ? `${i.path}: ` : ''}${i.message}`)].join('\n'));
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

/**
 * The message of a thrown value: `error.message` for an `Error`, else its string form. Never throws: a value with
 * no string form (`throw Object.create(null)`, a `toString` that throws) gets a message saying so.
 */
export function errorText(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return messages.unprintableThrown(Object.prototype.toString.call(error));
  }
}
