/**
 * Clocks for timing: a monotonic nanosecond clock (`process.hrtime.bigint()`) and a manual clock for tests.
 */

/**
 * A monotonic clock reading nanoseconds as a `bigint`. Take differences of two readings in bigint, then
 * convert (`Number(t1 - t0)`): converting absolute readings to `number` loses precision after ~104 days of
 * uptime.
 */
export interface Clock {
  /** Name of the clock, recorded in reports (e.g. `process.hrtime.bigint`). */
  readonly name: string;
  /** The current reading, in nanoseconds from an arbitrary origin. */
  now(): bigint;
}

/** The default clock: `process.hrtime.bigint()`, monotonic nanoseconds (Node ≥ 10.7). */
export const hrtimeClock: Clock = Object.freeze({
  name: 'process.hrtime.bigint',
  now: (): bigint => process.hrtime.bigint(),
});

/** A {@link Clock} that moves only when told to: deterministic timing in tests. */
export interface ManualClock extends Clock {
  /** Moves the clock forward by `ns` nanoseconds (a number is truncated to an integer). */
  advance(ns: bigint | number): void;
  /** Sets the reading to `ns` nanoseconds. */
  set(ns: bigint): void;
}

/** Options of {@link createManualClock}. */
export interface ManualClockOptions {
  /**
   * Initial reading, in nanoseconds.
   * @default 0n
   */
  start?: bigint;
  /**
   * Nanoseconds the clock advances after each `now()` call, simulating the cost of reading a real timer.
   * @default 0n
   */
  tickNs?: bigint;
}

/**
 * Creates a manual clock for tests: `now()` returns the current reading (then adds `tickNs`), and `advance`
 * and `set` move it.
 *
 * @example
 * ```ts
 * const clock = createManualClock();
 * const tracker = new LatencyTracker({ clock });
 * await tracker.measure(1, () => clock.advance(5_000_000)); // records exactly 5 ms
 * ```
 */
export function createManualClock(options: ManualClockOptions = {}): ManualClock {
  let reading = options.start ?? 0n;
  const tick = options.tickNs ?? 0n;
  return {
    name: 'manual',
    now(): bigint {
      const value = reading;
      reading += tick;
      return value;
    },
    advance(ns: bigint | number): void {
      reading += typeof ns === 'bigint' ? ns : BigInt(Math.trunc(ns));
    },
    set(ns: bigint): void {
      reading = ns;
    },
  };
}
