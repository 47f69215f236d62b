import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LatencyTracker, quantileSorted } from '../../src/profiling/index.js';

const TARGET_NS = 5_000_000n;
const CALLS = 31;
const ATTEMPTS = 3;
/** Local tally of the conditional p50 check (how often it ran and was skipped), kept out of git. */
const TALLY = join(dirname(fileURLToPath(import.meta.url)), '..', '.output', 'real-clock-p50.json');

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

/** 31 timed 5 ms busy-waits after a dropped cold call: the tracker's samples and the work's own durations. */
async function measureSpins(): Promise<{ tracker: LatencyTracker; truth: number[] }> {
  const tracker = new LatencyTracker({ window: 100 });
  await tracker.measure(1, spin5ms); // cold call (JIT), then dropped
  tracker.reset();
  const truth: number[] = [];
  for (let i = 0; i < CALLS; i++) truth.push(await tracker.measure(1, spin5ms));
  return { tracker, truth };
}

/** Adds one outcome to the local tally and returns the totals. */
function tally(outcome: 'ran' | 'skipped'): { ran: number; skipped: number } {
  const totals = existsSync(TALLY)
    ? (JSON.parse(readFileSync(TALLY, 'utf8')) as { ran: number; skipped: number })
    : { ran: 0, skipped: 0 };
  totals[outcome]++;
  mkdirSync(dirname(TALLY), { recursive: true });
  writeFileSync(TALLY, JSON.stringify(totals));
  return totals;
}

describe('LatencyTracker with the real clock', () => {
  it('measures a 5 ms busy-wait with a per-call overhead < 2%, however loaded the machine', async () => {
    const { tracker, truth } = await measureSpins();
    const r = tracker.result();
    const timed = tracker.samplesMs();
    // Paired: per call, the tracker's sample minus the work's own duration is the tracker's overhead (two clock
    // reads and a call, ~µs). Its median is far below 2% of the sample even when preemption stretched the
    // work itself to 3–5× its 5 ms (seen with 3 extra busy processes on 2 cores).
    const relativeOverhead = truth.map((ms, i) => ((timed[i] as number) - ms) / ms).sort((a, b) => a - b);
    expect(r.nSamples).toBe(CALLS);
    expect(r.minMs).toBeGreaterThanOrEqual(5);
    expect(quantileSorted(relativeOverhead, 0.5)).toBeGreaterThanOrEqual(0);
    expect(quantileSorted(relativeOverhead, 0.5)).toBeLessThan(0.02);
    expect(r.throughputTps).toBeLessThanOrEqual(200);
  });

  it('p50 of a 5 ms busy-wait is within 2% of 5 ms when most calls ran undisturbed (skipped, and said so, otherwise)', async (ctx) => {
    // The known duration is only observable when at least half the calls ran undisturbed (their own duration
    // within 0.5% of 5 ms). Up to 3 attempts; on a machine too loaded for all three the test is reported as
    // skipped with the reason, and test/.output/real-clock-p50.json counts how often it ran on this machine.
    const seen: string[] = [];
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const { tracker, truth } = await measureSpins();
      const undisturbed = truth.filter((ms) => ms < 5.025).length;
      seen.push(`${undisturbed}/${CALLS}`);
      if (undisturbed <= CALLS / 2) continue;
      const p50 = tracker.result().p50Ms;
      expect(Math.abs(p50 - 5) / 5).toBeLessThan(0.02);
      const totals = tally('ran');
      await ctx.annotate(
        `p50 check ran on attempt ${attempt} (undisturbed calls: ${seen.join(', ')}); p50 = ${p50.toFixed(4)} ms; ` +
          `on this machine it ran ${totals.ran} times, was skipped ${totals.skipped}`,
      );
      return;
    }
    const totals = tally('skipped');
    const note =
      `machine too loaded: undisturbed calls ${seen.join(', ')} in ${ATTEMPTS} attempts (need > ${CALLS / 2}); ` +
      `on this machine the check ran ${totals.ran} times, was skipped ${totals.skipped}`;
    console.warn(`! p50-within-2% check skipped: ${note}`);
    ctx.skip(note);
  });
});
