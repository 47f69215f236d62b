import { describe, expect, expectTypeOf, it } from 'vitest';
import { createManualClock, LatencyTracker, profileFn } from '../../src/profiling/index.js';

describe('profileFn', () => {
  it('keeps the signature, returns the value and records one sample per call', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock });
    const add = (a: number, b: string): string => {
      clock.advance(1_000_000);
      return `${a}${b}`;
    };
    const timed = profileFn(add, tracker, { nTokens: 16 });
    expectTypeOf(timed).toEqualTypeOf<(a: number, b: string) => Promise<string>>();
    expect(await timed(1, 'x')).toBe('1x');
    expect(await timed(2, 'y')).toBe('2y');
    const r = tracker.result();
    expect([r.nSamples, r.totalTokens, r.meanMs]).toEqual([2, 32, 1]);
  });

  it('unwraps async functions, forwards `this`, and derives tokens from the arguments', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock });
    const model = {
      scale: 3,
      async generate(ids: number[]): Promise<number[]> {
        clock.advance(2_000_000);
        return ids.map((i) => i * this.scale);
      },
    };
    const timed = profileFn(model.generate, tracker, { nTokens: (ids) => ids.length });
    expectTypeOf(timed).returns.toEqualTypeOf<Promise<number[]>>();
    expect(await timed.call(model, [1, 2, 3])).toEqual([3, 6, 9]);
    expect(tracker.result().totalTokens).toBe(3);
  });

  it('records nothing for a failing call and rejects with its error', async () => {
    const tracker = new LatencyTracker({ clock: createManualClock() });
    const timed = profileFn(
      (): never => {
        throw new Error('nope');
      },
      tracker,
      { nTokens: 1 },
    );
    await expect(timed()).rejects.toThrow('nope');
    const badTokens = profileFn(() => 1, tracker, { nTokens: () => -1 });
    await expect(badTokens()).rejects.toThrow('`nTokens`');
    expect(tracker.size).toBe(0);
  });
});
