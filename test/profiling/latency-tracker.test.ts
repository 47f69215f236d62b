import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import {
  countFlops,
  createManualClock,
  LatencyTracker,
  ProfilingResult,
  quantileSorted,
} from '../../src/profiling/index.js';

/** A sample: elapsed ms (whole µs so ns conversion is exact) and tokens. */
const sample = fc.record({
  us: fc.integer({ min: 0, max: 5_000_000 }),
  tokens: fc.integer({ min: 0, max: 4096 }),
});

describe('LatencyTracker rolling window', () => {
  it('equals a naive recomputation over the last N samples of random record sequences', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(sample, { maxLength: 120 }),
        (window, records) => {
          const tracker = new LatencyTracker({ window, clock: createManualClock() });
          for (const r of records) tracker.record(r.us / 1000, r.tokens);
          const kept = records.slice(-window);
          const ms = kept.map((r) => r.us / 1000);
          const sorted = [...ms].sort((a, b) => a - b);
          const result = tracker.result();
          expect(tracker.size).toBe(kept.length);
          expect(result.nSamples).toBe(kept.length);
          expect(result.nRecorded).toBe(records.length);
          expect(Array.from(tracker.samplesMs())).toEqual(ms);
          if (kept.length === 0) {
            expect(result).toEqual(ProfilingResult.empty());
            return;
          }
          const tokens = kept.reduce((a, r) => a + r.tokens, 0);
          const totalUs = kept.reduce((a, r) => a + r.us, 0);
          expect(result.totalTokens).toBe(tokens);
          expect(result.totalMs).toBeCloseTo(totalUs / 1000, 9);
          expect(result.throughputTps).toBeCloseTo(totalUs === 0 ? 0 : tokens / (totalUs / 1e6), 6);
          expect(result.meanMs).toBeCloseTo(totalUs / 1000 / kept.length, 9);
          expect(result.minMs).toBe(sorted[0]);
          expect(result.maxMs).toBe(sorted[sorted.length - 1]);
          for (const [q, got] of [
            [0.5, result.p50Ms],
            [0.9, result.p90Ms],
            [0.95, result.p95Ms],
            [0.99, result.p99Ms],
          ] as const) {
            expect(got).toBeCloseTo(quantileSorted(sorted, q), 9);
          }
          expect(result.firstMs).toBe((records[0]?.us ?? 0) / 1000);
        },
      ),
    );
  });

  it('grows past its initial capacity and wraps correctly for a large window', () => {
    const tracker = new LatencyTracker({ window: 3000 });
    for (let i = 0; i < 7000; i++) tracker.record(i, 1);
    const ms = tracker.samplesMs();
    expect(ms.length).toBe(3000);
    expect([ms[0], ms[2999]]).toEqual([4000, 6999]);
    expect(tracker.result().firstMs).toBe(0);
  });

  it('gives an empty result of zeros, with no confidence interval, and resets', () => {
    const tracker = new LatencyTracker();
    const empty = tracker.result();
    expect([
      empty.nSamples,
      empty.meanMs,
      empty.p50Ms,
      empty.p99Ms,
      empty.throughputTps,
      empty.firstMs,
    ]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(empty.p50CiMs.every(Number.isNaN)).toBe(true);
    expect(String(empty)).toContain('(no samples recorded)');
    tracker.record(3, 10);
    expect(tracker.firstMs).toBe(3);
    tracker.reset();
    expect([tracker.size, tracker.firstMs]).toEqual([0, undefined]);
  });

  it('rejects bad windows and samples', () => {
    expect(() => new LatencyTracker({ window: 0 })).toThrow(
      messages.invalidNumberOption('window', 0, 'a positive integer'),
    );
    const tracker = new LatencyTracker();
    expect(() => tracker.record(-1, 1)).toThrow(
      messages.invalidNumberOption('elapsedMs', -1, 'a finite number ≥ 0'),
    );
    expect(() => tracker.record(1, Number.NaN)).toThrow('`nTokens` must be a finite number ≥ 0');
    expect(() => tracker.measure(-2, () => 1)).toThrow('`nTokens`');
  });
});

describe('LatencyTracker.measure with a manual clock', () => {
  it('times a sync fn exactly and returns its value', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock });
    const value = await tracker.measure(128, () => {
      clock.advance(5_000_000);
      return 'done';
    });
    expect(value).toBe('done');
    const r = tracker.result();
    expect([r.nSamples, r.meanMs, r.totalTokens, r.throughputTps]).toEqual([1, 5, 128, 25_600]);
  });

  it('awaits an async fn before stopping the clock', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock });
    const value = await tracker.measure(1, async () => {
      await Promise.resolve();
      clock.advance(2_000_000);
      return 42;
    });
    expect(value).toBe(42);
    expect(tracker.result().p50Ms).toBe(2);
  });

  it('awaits the barrier before starting and before stopping the clock', async () => {
    const clock = createManualClock();
    const events: string[] = [];
    const tracker = new LatencyTracker({
      clock,
      barrier: async () => {
        events.push(`barrier@${clock.now()}`);
        await Promise.resolve();
        clock.advance(1_000_000); // pending device work finishing: 1 ms per barrier
      },
    });
    await tracker.measure(1, () => {
      events.push(`fn@${clock.now()}`);
      clock.advance(3_000_000);
    });
    // start = 1 ms (after the first barrier), stop = 1 + 3 + 1 = 5 ms: the second barrier's wait is timed.
    expect(events).toEqual(['barrier@0', 'fn@1000000', 'barrier@4000000']);
    expect(tracker.result().meanMs).toBe(4);
  });

  it('records nothing when fn throws or rejects, and rethrows', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock, barrier: () => undefined });
    const plain = new LatencyTracker({ clock });
    const boom = new Error('boom');
    for (const t of [tracker, plain]) {
      await expect(
        t.measure(1, () => {
          throw boom;
        }),
      ).rejects.toBe(boom);
      await expect(t.measure(1, () => Promise.reject(boom))).rejects.toBe(boom);
      expect(t.size).toBe(0);
    }
  });

  it('keeps the first (cold) call after it leaves the window', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock, window: 2 });
    for (const ms of [50, 1, 1, 1]) await tracker.measure(1, () => clock.advance(ms * 1e6));
    expect(tracker.firstMs).toBe(50);
    expect(tracker.result().maxMs).toBe(1);
  });
});

describe('LatencyTracker.span', () => {
  it('records one sample on `await using` disposal, after the barrier', async () => {
    const clock = createManualClock();
    const order: string[] = [];
    const tracker = new LatencyTracker({
      clock,
      barrier: () => {
        order.push('barrier');
        clock.advance(500_000);
      },
    });
    {
      await using _span = await tracker.span(64);
      order.push('body');
      clock.advance(2_000_000);
    }
    expect(order).toEqual(['barrier', 'body', 'barrier']);
    const r = tracker.result();
    expect([r.nSamples, r.meanMs, r.totalTokens]).toEqual([1, 2.5, 64]);
  });

  it('ends once, returns the elapsed ms, and can be cancelled', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock });
    const span = await tracker.span(1);
    clock.advance(7_000_000);
    expect(await span.end()).toBe(7);
    expect(await span.end()).toBe(7);
    await span[Symbol.asyncDispose]();
    expect(tracker.size).toBe(1);
    const cancelled = await tracker.span(1);
    cancelled.cancel();
    expect(cancelled.ended).toBe(true);
    await cancelled[Symbol.asyncDispose]();
    expect(tracker.size).toBe(1);
  });

  it('still records when the block throws (disposers cannot see the error) unless cancelled', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock });
    const attempt = async (cancel: boolean) => {
      await using span = await tracker.span(1);
      try {
        throw new Error('fail');
      } catch (e) {
        if (cancel) span.cancel();
        throw e;
      }
    };
    await expect(attempt(false)).rejects.toThrow('fail');
    expect(tracker.size).toBe(1);
    await expect(attempt(true)).rejects.toThrow('fail');
    expect(tracker.size).toBe(1);
  });
});

describe('ProfilingResult', () => {
  it('prints the seed lines first, then the new fields, and flags p99 from < 100 samples', async () => {
    const clock = createManualClock();
    const tracker = new LatencyTracker({ clock });
    for (let i = 1; i <= 20; i++) await tracker.measure(256, () => clock.advance(i * 1_000_000));
    const text = String(tracker.result());
    const lines = text.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'Profiling (20 samples, 5,120 tokens):',
      '  latency mean : 10.50 ms',
      '  latency p50  : 10.50 ms',
      '  latency p99  : 19.81 ms  (only 20 samples: p99 lies between the two largest, not a tail estimate)',
      '  throughput   : 24,381 tokens/s',
    ]);
    expect(lines).toContain('  p50 95% CI   : [6.00, 15.00] ms'); // n = 20: ranks (6, 15)
    expect(lines).toContain('  p99 95% CI   : n/a (needs ≥ 368 samples)');
    expect(lines).toContain('  first call   : 1.00 ms');
  });

  it('attaches a FLOPs breakdown as the seed does', () => {
    const tracker = new LatencyTracker();
    tracker.record(1, 1);
    const flops = countFlops(ModelConfig.preset('tiny'), { seqLen: 8 });
    const r = tracker.result({ flops });
    expect(r.flops).toBe(flops);
    expect(String(r)).toContain(`  flops        : ${String(flops)}`);
    expect(tracker.result().withFlops(flops).flops).toBe(flops);
  });
});
