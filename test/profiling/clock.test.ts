import { describe, expect, it } from 'vitest';
import { createManualClock, hrtimeClock } from '../../src/profiling/index.js';

describe('clocks', () => {
  it('hrtimeClock reads monotonic nanoseconds as bigint', () => {
    const a = hrtimeClock.now();
    const b = hrtimeClock.now();
    expect(typeof a).toBe('bigint');
    expect(b >= a).toBe(true);
    expect(hrtimeClock.name).toBe('process.hrtime.bigint');
  });

  it('the manual clock moves only when told, by advance, set or its tick', () => {
    const clock = createManualClock({ start: 10n });
    expect([clock.now(), clock.now()]).toEqual([10n, 10n]);
    clock.advance(5);
    clock.advance(2.9); // truncated to 2 ns
    clock.advance(3n);
    expect(clock.now()).toBe(20n);
    clock.set(0n);
    expect(clock.now()).toBe(0n);
    const ticking = createManualClock({ tickNs: 40n });
    expect([ticking.now(), ticking.now(), ticking.now()]).toEqual([0n, 40n, 80n]);
  });
});
