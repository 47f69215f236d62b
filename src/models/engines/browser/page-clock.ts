/**
 * The clock of the browser target: it moves only when the page reports how long a call took inside it, so a task
 * that reads it around a call measures the page's own timing of that call and never the message round trip.
 *
 * @packageDocumentation
 */
import type { Clock } from '../../../profiling/clock.js';

/** A {@link Clock} (ns) advanced by in-page durations. */
export class PageClock implements Clock {
  /** Recorded in reports as the clock's name. */
  readonly name = 'performance.now (inside the browser page)';
  #ns = 0n;

  /** The sum of every in-page duration reported so far, in ns. */
  now(): bigint {
    return this.#ns;
  }

  /** Adds one call's in-page duration, `ms` milliseconds (rounded to the nanosecond). */
  advance(ms: number): void {
    this.#ns += BigInt(Math.round(ms * 1e6));
  }
}
