/**
 * Timer overhead and resolution, calibrated once per clock.
 */
import { type Clock, hrtimeClock } from './clock.js';
import { checkPositiveInt } from './option-checks.js';

/** What calibrating a clock found, in nanoseconds. */
export interface TimerDiagnostics {
  /** Name of the clock calibrated. */
  readonly clockName: string;
  /**
   * Median delta of back-to-back readings, in ns: the cost one timed sample pays for reading the clock
   * (bias added to every measured latency). 0 when most deltas are 0, i.e. the timer is coarser than a read.
   */
  readonly overheadNs: number;
  /**
   * Smallest positive delta seen, in ns: an upper bound on the timer's resolution (for a fine timer it is the
   * read cost itself). `NaN` when no positive delta was seen.
   */
  readonly resolutionNs: number;
  /** Fraction of back-to-back deltas that were exactly 0 (high → the timer is coarse). */
  readonly zeroFraction: number;
  /** Number of back-to-back pairs measured (after warm-up). */
  readonly nPairs: number;
}

/** Options of {@link calibrateTimer}. */
export interface CalibrateTimerOptions {
  /**
   * Back-to-back pairs measured.
   * @default 10_000
   */
  pairs?: number;
  /**
   * Pairs read and discarded first, so the JIT has compiled the read path.
   * @default 1_000
   */
  warmupPairs?: number;
  /**
   * Recalibrate even if this clock was calibrated before.
   * @default false
   */
  refresh?: boolean;
}

const cache = new WeakMap<Clock, TimerDiagnostics>();

/**
 * Calibrates `clock` once and memoises the result per clock object: after `warmupPairs` discarded pairs, it
 * reads the clock twice back to back `pairs` times. The overhead is the **median** of those deltas (robust to
 * the occasional preemption or GC pause, which only lengthens a few pairs; a breakdown point of 1/2 where
 * the mean has 0), and the resolution is the smallest positive delta. About 1 ms for the default clock.
 *
 * The overhead is reported, not subtracted from samples: a latency tracker's samples each include about one
 * `overheadNs`, which matters only for sub-microsecond work.
 *
 * @example
 * ```ts
 * const { overheadNs, resolutionNs } = calibrateTimer(); // e.g. ~30–70 ns for process.hrtime.bigint
 * ```
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when `pairs` or `warmupPairs` is not a positive integer.
 */
export function calibrateTimer(
  clock: Clock = hrtimeClock,
  options: CalibrateTimerOptions = {},
): TimerDiagnostics {
  const { pairs = 10_000, warmupPairs = 1_000, refresh = false } = options;
  checkPositiveInt('pairs', pairs);
  checkPositiveInt('warmupPairs', warmupPairs);
  const cached = cache.get(clock);
  if (cached !== undefined && !refresh) return cached;
  for (let i = 0; i < warmupPairs; i++) {
    clock.now();
    clock.now();
  }
  const deltas = new Float64Array(pairs);
  for (let i = 0; i < pairs; i++) {
    const a = clock.now();
    const b = clock.now();
    deltas[i] = Number(b - a);
  }
  deltas.sort();
  let zeros = 0;
  let resolution = Number.NaN;
  for (const delta of deltas) {
    if (delta === 0) zeros++;
    else if (delta > 0) {
      resolution = delta;
      break;
    }
  }
  const mid = pairs >> 1;
  const median = pairs % 2 === 1 ? (deltas[mid] ?? 0) : ((deltas[mid - 1] ?? 0) + (deltas[mid] ?? 0)) / 2;
  const result: TimerDiagnostics = Object.freeze({
    clockName: clock.name,
    overheadNs: median,
    resolutionNs: resolution,
    zeroFraction: zeros / pairs,
    nPairs: pairs,
  });
  cache.set(clock, result);
  return result;
}
