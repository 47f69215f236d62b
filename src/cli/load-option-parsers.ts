/**
 * The parsers of `dantinox load`'s flag values: sweep lists, durations, warm-up windows, start times, SLOs,
 * fractions and the goodput search's axis. Each refuses a bad value with a usage error naming what is allowed.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from 'commander';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type LoadWindow, parseDurationMs, parseSlo, type Slo } from '../serving/index.js';

const bad = (value: string, expected: string, example: string): never => {
  throw new InvalidArgumentError(messages.badCliValue(value, expected, example));
};

/** Parses a list of positive numbers or `inf` (`1,2,4,inf`); `inf` is `Infinity`. */
export function parseLoadList(value: string, integers: boolean): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const out = parts.map((p) => (p === 'inf' ? Number.POSITIVE_INFINITY : Number(p)));
  const ok = (n: number, p: string): boolean =>
    p !== '' &&
    n > 0 &&
    (n === Number.POSITIVE_INFINITY || (integers ? Number.isSafeInteger(n) : Number.isFinite(n)));
  if (parts.length === 0 || out.some((n, i) => !ok(n, parts[i] ?? '')))
    bad(
      value,
      `a comma-separated list of positive ${integers ? 'integers' : 'numbers'} or inf`,
      integers ? '1,4,16' : '1,2,4,inf',
    );
  return out;
}

/** Parses a duration (`60s`, `500ms`, `2m`, or a number of ms) in ms. */
export function parseDurationOption(value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined || ms <= 0) return bad(value, 'a duration such as 60s, 500ms or 2m', '60s');
  return ms;
}

/**
 * Parses `--start-at`: an ISO 8601 time with its time zone (`2026-12-06T10:00:00Z`, `…+01:00`) or Unix seconds
 * (`1796551200`, fractions allowed), in ms since the Unix epoch. A time without a zone is refused: clients in other
 * zones would read it as other instants.
 */
export function parseStartAt(value: string): number {
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const ms = Date.parse(text);
  if (!/^\d{4}-\d\d-\d\dT.*(?:Z|[+-]\d\d:?\d\d)$/i.test(text) || !Number.isFinite(ms))
    throw new InvalidArgumentError(messages.loadBadStartAt(value));
  return ms;
}

/** Parses a warm-up or cool-down window: a duration (`10s`) or a number of requests (`20`). */
export function parseWindow(value: string): LoadWindow {
  if (/^\s*\d+\s*$/.test(value)) return { requests: Number(value) };
  const ms = parseDurationMs(value);
  if (ms === undefined || !/[a-z]\s*$/.test(value))
    return bad(value, 'a number of requests (20) or a duration (10s, 500ms)', '10s');
  return { ms };
}

/** Parses `--slo` (`ttft=500ms,tpot=50ms`). */
export function parseSloOption(value: string): Slo {
  try {
    return parseSlo(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

/** Parses `--slo-target`: a fraction in (0, 1]. */
export function parseFraction(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > 0 && n <= 1)) bad(value, 'a fraction in (0, 1]', '0.9');
  return n;
}

/** The axis `--find-max-goodput` searches: as given, else rate when --rate is given, else concurrency. */
export function searchAxis(
  given: boolean | string | undefined,
  rate: readonly number[] | undefined,
): 'concurrency' | 'rate' {
  if (given === 'concurrency' || given === 'rate') return given;
  if (typeof given === 'string')
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.loadBadFlag('--find-max-goodput', given, 'concurrency or rate'),
    );
  return rate === undefined ? 'concurrency' : 'rate';
}

/** Parses `--burstiness`: a positive gamma shape (1 is Poisson). */
export function parseBurstiness(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > 0) || !Number.isFinite(n))
    bad(value, 'a positive number (1 is Poisson)', '0.5');
  return n;
}
