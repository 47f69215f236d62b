/**
 * Parsers for CLI option values: each returns the typed value or throws commander's `InvalidArgumentError`,
 * which commander reports as `error: option '--x <n>' argument 'abc' is invalid. <why>` (exit 2).
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from 'commander';
import { type Dtype, parseDtype } from '../dtype.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { CALIBRATION_MS_RANGE, DEFAULT_CALIBRATION_MS } from '../runs/calibration-step.js';

/** Parses a positive integer such as `4`. */
export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError(messages.badCliValue(value, 'a positive integer', '4'));
  }
  return n;
}

/** Parses a calibration budget in ms (`--calibration-ms`): an integer within {@link CALIBRATION_MS_RANGE}. */
export function parseCalibrationMs(value: string): number {
  const { min, max } = CALIBRATION_MS_RANGE;
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(
      messages.badCliValue(value, `an integer from ${min} to ${max} (ms)`, String(DEFAULT_CALIBRATION_MS)),
    );
  }
  return n;
}

/** Parses a TCP port: an integer from 0 (any free port) to 65535. */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n > 65535) {
    throw new InvalidArgumentError(
      messages.badCliValue(value, 'a TCP port from 0 (any free port) to 65535', '8080'),
    );
  }
  return n;
}

/** A parser of integers from `min` to `max` (e.g. `--vocab-size`, 257 to 1048576), with `example` in its error. */
export function integerInRange(min: number, max: number, example: string): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(
        messages.badCliValue(value, `an integer from ${min} to ${max}`, example),
      );
    }
    return n;
  };
}

/**
 * A parser of comma-separated lists of `allowed` values (e.g. `--orders 1,2,3`), each value once, in the order
 * given; a value is matched as written.
 */
export function choiceList<T extends string | number>(
  allowed: readonly T[],
  example: string,
): (value: string) => T[] {
  return (value: string): T[] => {
    const parts = value.split(',').map((p) => p.trim());
    const picked = parts.map((p) => allowed.find((a) => String(a) === p));
    if (parts.length === 0 || picked.some((p) => p === undefined) || new Set(parts).size !== parts.length) {
      throw new InvalidArgumentError(
        messages.badCliValue(value, `a comma-separated list of ${allowed.join(', ')}, each once`, example),
      );
    }
    return picked as T[];
  };
}

/** Parses a non-negative integer such as `0` (seeds). */
export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(messages.badCliValue(value, 'a non-negative integer', '0'));
  }
  return n;
}

/** Parses a non-negative number such as `1000` or `0.5` (durations in ms). */
export function parseNonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError(messages.badCliValue(value, 'a non-negative number', '1000'));
  }
  return n;
}

/** Parses a fraction in [0, 1) such as `0.1` (dropout) or `0.95` (Adam's β₂). */
export function parseUnitFraction(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n >= 1) {
    throw new InvalidArgumentError(
      messages.badCliValue(value, 'a number from 0 up to (not including) 1', '0.1'),
    );
  }
  return n;
}

/** Parses a number strictly between 0 and 1 such as `0.95` (a confidence level). */
export function parseOpenFraction(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > 0 && n < 1)) {
    throw new InvalidArgumentError(
      messages.badCliValue(value, 'a number between 0 and 1, both excluded', '0.95'),
    );
  }
  return n;
}

/** Parses a positive number such as `2` or `1.0625` (bytes per element). */
export function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError(messages.badCliValue(value, 'a positive number', '2'));
  }
  return n;
}

/** Parses a comma-separated list of positive integers such as `64,128,256`. */
export function parsePositiveIntList(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (
    parts.length === 0 ||
    parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1 || !Number.isSafeInteger(Number(p)))
  ) {
    throw new InvalidArgumentError(
      messages.badCliValue(value, 'a comma-separated list of positive integers', '64,128,256'),
    );
  }
  return parts.map(Number);
}

/** Parses a comma-separated list of non-negative integers such as `0,512,1024` (context depths). */
export function parseNonNegativeIntList(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p) || !Number.isSafeInteger(Number(p)))) {
    throw new InvalidArgumentError(
      messages.badCliValue(value, 'a comma-separated list of non-negative integers', '0,512,1024'),
    );
  }
  return parts.map(Number);
}

/** Parses a comma-separated list of names such as `throughput,latency`, dropping empty entries. */
export function parseNameList(value: string): string[] {
  return value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** Parses a weight dtype such as `q4` or `float16` (see the dtype table), naming the known ones otherwise. */
export function parseDtypeOption(value: string): Dtype {
  try {
    return parseDtype(value);
  } catch (error) {
    if (error instanceof DantinoxError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}
