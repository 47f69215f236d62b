/**
 * Argument checks shared by the profiling layer. Each throws a {@link DantinoxError} with code `INVALID_OPTION`
 * and a message from `messages.invalidNumberOption` naming the option, the value received and what is allowed.
 *
 * @internal
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/**
 * Asserts that `value` is an integer ≥ 1.
 *
 * @throws {@link DantinoxError} with code `INVALID_OPTION` otherwise.
 */
export function checkPositiveInt(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption(name, value, 'a positive integer'),
    );
  }
}

/**
 * Asserts that `value` is an integer ≥ 0.
 *
 * @throws {@link DantinoxError} with code `INVALID_OPTION` otherwise.
 */
export function checkNonNegativeInt(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption(name, value, 'a non-negative integer'),
    );
  }
}

/**
 * Asserts that `value` is a finite number ≥ 0.
 *
 * @throws {@link DantinoxError} with code `INVALID_OPTION` otherwise.
 */
export function checkNonNegativeNumber(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption(name, value, 'a finite number ≥ 0'),
    );
  }
}

/**
 * Asserts that `value` is one of `allowed`.
 *
 * @throws {@link DantinoxError} with code `INVALID_OPTION` and a did-you-mean suggestion otherwise.
 */
export function checkOneOf<T extends string>(
  kind: string,
  value: unknown,
  allowed: readonly T[],
): asserts value is T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new DantinoxError('INVALID_OPTION', messages.unknownName(kind, String(value), allowed));
  }
}
