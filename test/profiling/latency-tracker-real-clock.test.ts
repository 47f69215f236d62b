import { describe, expect, it } from 'vitest';
import { LatencyTracker, quantileSorted } from '../../src/profiling/index.js';

const TARGET_NS = 5_000_000n;

/**
 * Busy-waits on process.hrtime.bigint until 5 ms have elapsed and returns how long it really ran, in ms, from
 * its own first to last clock read. It cannot finish early; it finishes late only when the OS deschedules the
 * process across the 5 ms mark (on a loaded 2-core machine, often by a few ms).
 */
function spin5ms(): number {
  const start = process.hrtime.bigint();
  const end = start + TARGET_NS;
  let now = start;
  while (now < end) now = process.hrtime.bigint();
  return Number(now - start) / 1e6;
}

describe('LatencyTracker with the real clock', () => {
  it('measures a 5 ms busy-wait: per-call overhead < 2%, and p50 within 2% of 5 ms when the work ran undisturbed', async () => {
    const tracker = new LatencyTracker({ window: 100 });
    await tracker.measure(1, spin5ms); // cold call (JIT), then dropped
    tracker.reset();
    const truth: number[] = [];
    for (let i = 0; i < 31; i++) truth.push(await tracker.measure(1, spin5ms));
    const r = tracker.result();
    const timed = tracker.samplesMs();
    // Paired: per call, the tracker's sample minus the work's own duration is the tracker's overhead (two clock
    // reads and a call, ~µs). Its median is far below 2% of the sample even when preemption stretched the
    // work itself to 3–5× its 5 ms (seen with 3 extra busy processes on 2 cores).
    const relativeOverhead = truth.map((ms, i) => ((timed[i] as number) - ms) / ms).sort((a, b) => a - b);
    expect(r.minMs).toBeGreaterThanOrEqual(5);
    expect(quantileSorted(relativeOverhead, 0.5)).toBeGreaterThanOrEqual(0);
    expect(quantileSorted(relativeOverhead, 0.5)).toBeLessThan(0.02);
    // The known duration itself: when at least half the calls ran undisturbed (their own duration within 0.5% of
    // 5 ms, as on a machine that is not overloaded), the tracker's p50 is within 2% of 5 ms. On an overloaded
    // machine this condition may not hold; the paired check above still does.
    const undisturbed = truth.filter((ms) => ms < 5.025).length;
    if (undisturbed > truth.length / 2) expect(Math.abs(r.p50Ms - 5) / 5).toBeLessThan(0.02);
    expect(r.throughputTps).toBeLessThanOrEqual(200);
  });
});
