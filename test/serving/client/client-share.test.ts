import { describe, expect, it } from 'vitest';
import { clientSends, shareSlots } from '../../../src/serving/client/client-share.js';

describe('client shares', () => {
  it('deals a point over client processes: slots round-robin, open-loop requests every count-th', () => {
    const two = (index: number) => ({ index, count: 2 });
    expect([0, 1].map((i) => shareSlots(4, two(i)))).toEqual([2, 2]);
    expect([0, 1].map((i) => shareSlots(3, two(i)))).toEqual([2, 1]);
    expect([0, 1].map((i) => shareSlots(1, two(i)))).toEqual([1, 0]);
    expect([0, 1, 2].map((i) => shareSlots(7, { index: i, count: 3 }))).toEqual([3, 2, 2]);
    expect(shareSlots(Number.POSITIVE_INFINITY, two(1))).toBe(Number.POSITIVE_INFINITY);
    const sends = (index: number, concurrency: number, scheduled: boolean) =>
      Array.from({ length: 9 }, (_, k) => k).filter((k) =>
        clientSends(k, concurrency, scheduled, two(index)),
      );
    expect(sends(0, 3, true)).toEqual([0, 2, 4, 6, 8]);
    expect(sends(1, 3, true)).toEqual([1, 3, 5, 7]);
    // Closed loop, 3 slots over 2 clients: client 0 holds slots 0 and 2, so two thirds of the requests.
    expect(sends(0, 3, false)).toEqual([0, 2, 3, 5, 6, 8]);
    expect(sends(1, 3, false)).toEqual([1, 4, 7]);
    expect(sends(1, Number.POSITIVE_INFINITY, false)).toEqual([1, 3, 5, 7]);
    // Every request is exactly one client's, for any counts.
    for (const count of [1, 2, 3, 5])
      for (const concurrency of [1, 2, 4, 7, Number.POSITIVE_INFINITY])
        for (const scheduled of [true, false])
          for (let k = 0; k < 40; k++) {
            const owners = Array.from({ length: count }, (_, index) => index).filter((index) =>
              clientSends(k, concurrency, scheduled, { index, count }),
            );
            expect(owners).toHaveLength(1);
          }
  });
});
