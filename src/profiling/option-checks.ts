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
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` otherwise.
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
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` otherwise.
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
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` otherwise.
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
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` and a did-you-mean suggestion otherwise.
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

/** Numeric fields of a model config that every count reads, with what they must be. */
const CONFIG_NUMBERS = [
  ['dim', 1],
  ['nHeads', 1],
  ['headSize', 1],
  ['numBlocks', 1],
  ['vocabSize', 1],
  ['maxContext', 1],
  ['kvHeads', 1],
  ['nExperts', 1],
  ['topK', 1],
] as const;

/**
 * Asserts that `config` is an object whose size fields are positive integers and whose `expansion` is a positive
 * number, so a count never silently returns NaN for a config that did not come from `ModelConfig.parse`.
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_MODEL_CONFIG` naming the first bad field.
 */
export function checkConfigNumbers(config: unknown): void {
  if (config === null || typeof config !== 'object') {
    throw new DantinoxError(
      'INVALID_MODEL_CONFIG',
      messages.invalidNumberOption('config', config, 'a ModelConfig (from ModelConfig.parse or a preset)'),
    );
  }
  const c = config as Record<string, unknown>;
  for (const [key] of CONFIG_NUMBERS) {
    const v = c[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
      throw new DantinoxError(
        'INVALID_MODEL_CONFIG',
        messages.invalidNumberOption(
          `config.${key}`,
          v,
          'a positive integer (parse the config with ModelConfig.parse)',
        ),
      );
    }
  }
  const e = c['expansion'];
  if (typeof e !== 'number' || !Number.isFinite(e) || e <= 0) {
    throw new DantinoxError(
      'INVALID_MODEL_CONFIG',
      messages.invalidNumberOption(
        'config.expansion',
        e,
        'a positive number (parse the config with ModelConfig.parse)',
      ),
    );
  }
}

/**
 * Asserts that `options` is an object (the options argument of a count).
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` otherwise.
 */
export function checkOptionsObject(fn: string, options: unknown, example: string): void {
  if (options === null || typeof options !== 'object') {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption(`${fn} options`, options, `an object such as ${example}`),
    );
  }
}
