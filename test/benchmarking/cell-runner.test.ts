import { describe, expect, it } from 'vitest';
import { type CellBudget, runCell } from '../../src/benchmarking/cell-runner.js';
import { MIN_TIMED_CALLS } from '../../src/benchmarking/config.js';
import { createManualClock } from '../../src/profiling/clock.js';

/** Timed calls of a cell whose calls take `callMs` and whose untimed preparation takes `prepareMs`, on a manual clock. */
async function timedCalls(callMs: number, budget: Partial<CellBudget>, prepareMs = 0): Promise<number> {
  const clock = createManualClock();
  const record = await runCell(
    {
      task: 't',
      cell: 'c',
      phase: 'prefill',
      tokensPerCall: 1,
      ...(prepareMs > 0 ? { before: async () => clock.advance(prepareMs * 1e6) } : {}),
      call: async () => clock.advance(callMs * 1e6),
    },
    { nWarmup: 1, minWarmupMs: 0, nMeasure: 20, minMeasureMs: 0, maxCellMs: 600_000, ...budget },
    { clock },
  );
  expect(record.status).toBe('completed');
  return record.samplesMs?.length ?? 0;
}

describe('runCell under maxMeasureMs', () => {
  it('cuts a slow cell at the cap after at least ten calls, and leaves fast cells their nMeasure', async () => {
    expect(MIN_TIMED_CALLS).toBe(10);
    // 100 ms calls, cap 3 s: the timed phase reaches 3,000 ms after 30 calls, past nMeasure = 20: no cut.
    expect(await timedCalls(100, { maxMeasureMs: 3000 })).toBe(20);
    // 200 ms calls: 3,000 ms after 15 calls.
    expect(await timedCalls(200, { maxMeasureMs: 3000 })).toBe(15);
    // 190 ms calls: 15 calls are 2,850 ms, the 16th reaches 3,040 ms.
    expect(await timedCalls(190, { maxMeasureMs: 3000 })).toBe(16);
    // 1 s calls: the cap is reached after 3, but ten are made.
    expect(await timedCalls(1000, { maxMeasureMs: 3000 })).toBe(MIN_TIMED_CALLS);
    // No cap (0, or absent): nMeasure.
    expect(await timedCalls(1000, { maxMeasureMs: 0 })).toBe(20);
    expect(await timedCalls(1000, {})).toBe(20);
  });

  it('never cuts below nMeasure when nMeasure is under ten', async () => {
    expect(await timedCalls(1000, { nMeasure: 4, maxMeasureMs: 500 })).toBe(4);
    expect(await timedCalls(1000, { nMeasure: 12, maxMeasureMs: 500 })).toBe(MIN_TIMED_CALLS);
  });

  it('counts the untimed preparations of the timed phase against the cap', async () => {
    // 10 ms calls after 290 ms refills: 300 ms per call, so the 3,000 ms cap ends the phase after ten calls.
    expect(await timedCalls(10, { maxMeasureMs: 3000 }, 290)).toBe(10);
    expect(await timedCalls(10, { maxMeasureMs: 0 }, 290)).toBe(20);
  });

  it('predicts a capped cell from its capped calls, so it is not skipped for calls it will not make', async () => {
    // 5 s calls, nMeasure 20: 100 s uncapped is over the 60 s budget (skipped); capped at 10 calls, 50 s fits.
    const budget = { nMeasure: 20, maxCellMs: 60_000 };
    const clock = createManualClock();
    const spec = {
      task: 't',
      cell: 'c',
      phase: 'prefill',
      tokensPerCall: 1,
      call: async () => clock.advance(5e9),
    };
    const base = { nWarmup: 1, minWarmupMs: 0, minMeasureMs: 0, ...budget };
    expect((await runCell(spec, base, { clock })).status).toBe('skipped');
    const capped = await runCell(spec, { ...base, maxMeasureMs: 3000 }, { clock });
    expect(capped.status).toBe('completed');
    expect(capped.samplesMs).toHaveLength(10);
  });
});
