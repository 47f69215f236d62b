import { describe, expect, it } from 'vitest';
import { runCell } from '../../src/benchmarking/cell-runner.js';
import { createManualClock } from '../../src/profiling/clock.js';
import { ENGINE_RUN_CAT, TraceRecorder } from '../../src/profiling/trace-recorder.js';
import { chromeTraceProblems, within, type XEvent } from './trace-schema.js';

describe('TraceRecorder on a manual clock', () => {
  it('records nested spans with exact times, and engine calls with the phase of the span around them', async () => {
    const clock = createManualClock();
    const trace = new TraceRecorder(clock);
    await trace.span('task', 'task', async () => {
      clock.advance(1_000); // 1 µs
      await trace.span(
        'call',
        'timed',
        async () => {
          clock.advance(2_000);
          await trace.engineCall('decodeStep', async () => clock.advance(5_000));
        },
        { phase: 'timed' },
      );
      await trace.engineCall('prefill', async () => clock.advance(3_000));
    });
    const events = trace.events();
    expect(events.map((e) => [e.name, e.ts, e.dur, e.cat])).toEqual([
      ['decodeStep', 3, 5, 'engine,timed'],
      ['call', 1, 7, 'timed'],
      ['prefill', 8, 3, 'engine,other'],
      ['task', 0, 11, 'task'],
    ]);
    expect(trace.engineCalls()).toEqual([
      { index: 0, name: 'decodeStep', startUs: 3, endUs: 8, phase: 'timed' },
      { index: 1, name: 'prefill', startUs: 8, endUs: 11, phase: 'other' },
    ]);
    expect(trace.phase).toBe('other');
  });

  it('records the engine run inside the engine call in progress, with its ordinal and described result', async () => {
    const clock = createManualClock();
    const trace = new TraceRecorder(clock);
    // Outside an engine call the run is not recorded.
    expect(await trace.engineRun('session.run', async () => 7)).toBe(7);
    await trace.engineCall('prefill', async () => {
      clock.advance(1_000);
      await trace.engineRun(
        'session.run',
        async () => {
          clock.advance(4_000);
          return [10, 20];
        },
        (bytes) => ({ output_bytes: bytes }),
      );
      clock.advance(2_000);
    });
    expect(trace.events().map((e) => [e.name, e.cat, e.ts, e.dur, e.args])).toEqual([
      ['session.run', ENGINE_RUN_CAT, 1, 4, { call: 0, output_bytes: [10, 20] }],
      ['prefill', 'engine,other', 0, 7, { call: 0, phase: 'other' }],
    ]);
  });

  it('records a span whose work throws, and restores the phase', async () => {
    const trace = new TraceRecorder(createManualClock());
    await expect(
      trace.span('bad', 'cell', async () => Promise.reject(new Error('boom')), { phase: 'warmup' }),
    ).rejects.toThrow('boom');
    expect(trace.events().map((e) => e.name)).toEqual(['bad']);
    expect(trace.phase).toBe('other');
  });

  it('runCell: the cell span holds its warm-up calls, untimed preparations and timed calls, in order', async () => {
    const clock = createManualClock();
    const trace = new TraceRecorder(clock);
    const record = await runCell(
      {
        task: 't',
        cell: 'decode@d8',
        phase: 'decode_depth',
        tokensPerCall: 1,
        before: async () => trace.engineCall('prefill', async () => clock.advance(50_000)),
        call: async () => trace.engineCall('decodeStep', async () => clock.advance(10_000)),
      },
      { nWarmup: 2, minWarmupMs: 0, nMeasure: 3, minMeasureMs: 0, maxCellMs: 60_000 },
      { clock, tracer: trace },
    );
    expect(record.status).toBe('completed');
    // The cache fills are not timed: each timed call is 10 µs.
    expect(record.metrics['mean_ms']).toBeCloseTo(0.01, 12);
    const events = trace.events() as XEvent[];
    expect(chromeTraceProblems({ traceEvents: events })).toEqual([]);
    const cell = events.find((e) => e.cat === 'cell') as XEvent;
    expect(cell.name).toBe('decode@d8');
    for (const e of events) expect(within(e, cell), e.name).toBe(true);
    const ordered = events.filter((e) => e.cat !== 'cell' && !e.cat?.startsWith('engine'));
    ordered.sort((a, b) => a.ts - b.ts);
    expect(ordered.map((e) => e.cat)).toEqual([
      'prepare',
      'warmup',
      'prepare',
      'warmup',
      'prepare',
      'timed',
      'prepare',
      'timed',
      'prepare',
      'timed',
    ]);
    expect(trace.engineCalls().map((c) => c.phase)).toEqual([
      'prepare',
      'warmup',
      'prepare',
      'warmup',
      'prepare',
      'timed',
      'prepare',
      'timed',
      'prepare',
      'timed',
    ]);
  });
});
