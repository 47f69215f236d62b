import { describe, expect, it } from 'vitest';
import type { RawExchange } from '../../../src/serving/client/http-connection.js';
import {
  defaultWorkers,
  laneConcurrency,
  STREAMS_PER_WORKER,
} from '../../../src/serving/client/load-lanes.js';
import { type LoadClock, monotonicMs, REAL_CLOCK, sendLoop } from '../../../src/serving/client/send-loop.js';

/**
 * A manual clock and a fake server on it: time moves only when the loop sleeps; each request is answered `serviceMs`
 * after it is sent (when the loop next sleeps past that time).
 */
function manual(serviceMs: number) {
  let t = 0;
  const pending: { at: number; resolve: () => void }[] = [];
  const advance = async (to: number): Promise<void> => {
    for (;;) {
      pending.sort((a, b) => a.at - b.at);
      const next = pending[0];
      if (next === undefined || next.at > to) break;
      pending.shift();
      t = Math.max(t, next.at);
      next.resolve();
      await new Promise((r) => setImmediate(r));
    }
    t = Math.max(t, to);
  };
  const clock: LoadClock = { now: () => t, sleep: (ms) => advance(t + ms) };
  const send = (_index: number): Promise<{ raw: RawExchange }[]> => {
    const sentAtMs = t;
    return new Promise((resolve) =>
      pending.push({
        at: t + serviceMs,
        resolve: () =>
          resolve([{ raw: { status: 'complete', sentAtMs, httpStatus: 200, reads: [], endedAtMs: t } }]),
      }),
    );
  };
  // Requests still waiting when the loop awaits its last ones finish in time order.
  const drain = setInterval(() => void advance(t + serviceMs), 1);
  return { clock, send, stop: () => clearInterval(drain) };
}

describe('sendLoop', () => {
  it("an open loop sends its lane's requests at their planned times; a full lane queues them, and says how long", async () => {
    const m = manual(25);
    const schedule = [0, 10, 20, 30, 40, 50];
    try {
      const lane1 = await sendLoop({
        send: m.send,
        schedule,
        total: 6,
        durationMs: Number.POSITIVE_INFINITY,
        concurrency: 1,
        lane: 1,
        lanes: 2,
        originMs: 0,
        clock: m.clock,
      });
      // Lane 1 of 2 sends indices 1, 3, 5 (planned 10, 30, 50); one in flight at a time, 25 ms each.
      expect(lane1.sent.map((s) => [s.index, s.plannedMs, s.queueMs, s.raw.sentAtMs])).toEqual([
        [1, 10, 0, 10],
        [3, 30, 5, 35],
        [5, 50, 10, 60],
      ]);
    } finally {
      m.stop();
    }
  });

  it('stops sending when a request would go out later than planned by more than maxLagMs (queue included)', async () => {
    const m = manual(100);
    try {
      const result = await sendLoop({
        send: m.send,
        schedule: [0, 10, 20, 30],
        total: 4,
        durationMs: Number.POSITIVE_INFINITY,
        concurrency: 1,
        maxLagMs: 50,
        originMs: 0,
        clock: m.clock,
      });
      expect(result.stoppedEarly).toBe('saturated');
      expect(result.sent.map((s) => s.index)).toEqual([0]);
    } finally {
      m.stop();
    }
  });

  it('a closed loop of one lane per request count: the lanes together send every index once', async () => {
    const lanes = await Promise.all(
      [0, 1, 2].map(async (lane) => {
        const m = manual(5);
        try {
          return await sendLoop({
            send: m.send,
            total: 10,
            durationMs: Number.POSITIVE_INFINITY,
            concurrency: 2,
            lane,
            lanes: 3,
            originMs: 0,
            clock: m.clock,
          });
        } finally {
          m.stop();
        }
      }),
    );
    const indices = lanes.flatMap((l) => l.sent.map((s) => s.index)).sort((a, b) => a - b);
    expect(indices).toEqual(Array.from({ length: 10 }, (_, i) => i));
    for (const l of lanes) for (const s of l.sent) expect(s.queueMs).toBe(0);
  });

  it('the real clock waits until the time, never less', async () => {
    for (const ahead of [0.3, 1, 3.7]) {
      const at = monotonicMs() + ahead;
      await REAL_CLOCK.until?.(at);
      expect(monotonicMs()).toBeGreaterThanOrEqual(at);
    }
  });
});

describe('lanes', () => {
  it('splits a concurrency over lanes, the first lanes taking the remainder', () => {
    expect([0, 1, 2].map((l) => laneConcurrency(7, l, 3))).toEqual([3, 2, 2]);
    expect([0, 1].map((l) => laneConcurrency(64, l, 2))).toEqual([32, 32]);
    expect(laneConcurrency(Number.POSITIVE_INFINITY, 1, 2)).toBe(Number.POSITIVE_INFINITY);
  });

  it('defaults to one event loop per 64 requests in flight, at most one per CPU', () => {
    expect(STREAMS_PER_WORKER).toBe(64);
    expect(defaultWorkers(64, 8)).toBe(1);
    expect(defaultWorkers(65, 8)).toBe(2);
    expect(defaultWorkers(256, 2)).toBe(2);
    expect(defaultWorkers(1024, 8)).toBe(8);
    expect(defaultWorkers(Number.POSITIVE_INFINITY, 8)).toBe(1);
  });
});
