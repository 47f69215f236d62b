import { describe, expect, it } from 'vitest';
import { type Clock, calibrateTimer, createManualClock, hrtimeClock } from '../../src/profiling/index.js';

describe('calibrateTimer', () => {
  it('measures a simulated 40 ns read cost as overhead and resolution', () => {
    const d = calibrateTimer(createManualClock({ tickNs: 40n }), { pairs: 101, warmupPairs: 1 });
    expect(d).toEqual({
      clockName: 'manual',
      overheadNs: 40,
      resolutionNs: 40,
      zeroFraction: 0,
      nPairs: 101,
    });
  });

  it('takes the median, so a few preempted pairs do not move it', () => {
    let reads = 0;
    let t = 0n;
    const clock: Clock = {
      name: 'jittery',
      now: () => {
        reads++;
        t += reads % 50 === 0 ? 1_000_000n : 30n; // one read in 50 pays a 1 ms pause
        return t;
      },
    };
    const d = calibrateTimer(clock, { pairs: 1000, warmupPairs: 10 });
    expect(d.overheadNs).toBe(30);
    expect(d.resolutionNs).toBe(30);
  });

  it('reports a coarse timer: zero overhead, the tick as resolution, and the zero fraction', () => {
    let reads = 0;
    const coarse: Clock = { name: 'coarse', now: () => BigInt(Math.floor(reads++ / 9) * 1000) }; // 1 µs steps every 9 reads
    const d = calibrateTimer(coarse, { pairs: 1000, warmupPairs: 1 });
    expect(d.overheadNs).toBe(0);
    expect(d.resolutionNs).toBe(1000);
    expect(d.zeroFraction).toBeCloseTo(8 / 9, 1); // one pair in 9 straddles a step
    expect(
      Number.isNaN(calibrateTimer(createManualClock(), { pairs: 10, warmupPairs: 1 }).resolutionNs),
    ).toBe(true);
  });

  it('memoises per clock unless refreshed', () => {
    const clock = createManualClock({ tickNs: 7n });
    const first = calibrateTimer(clock, { pairs: 11, warmupPairs: 1 });
    expect(calibrateTimer(clock)).toBe(first);
    expect(calibrateTimer(clock, { pairs: 11, warmupPairs: 1, refresh: true })).not.toBe(first);
  });

  it('calibrates process.hrtime.bigint to a positive sub-10-µs overhead', () => {
    const d = calibrateTimer(hrtimeClock);
    expect(d.clockName).toBe('process.hrtime.bigint');
    expect(d.overheadNs).toBeGreaterThan(0);
    expect(d.overheadNs).toBeLessThan(10_000);
    expect(d.resolutionNs).toBeLessThanOrEqual(d.overheadNs);
  });
});
