import { describe, expect, it } from 'vitest';
import { buildChromeTrace, ENGINE_PID } from '../../src/profiling/chrome-trace.js';
import type { EngineCallSpan } from '../../src/profiling/trace-recorder.js';
import { chromeTraceProblems } from './trace-schema.js';

/** Three calls on dantinox's clock (µs): a warm-up at 100, a timed call at 200, a cache fill at 300. */
const calls: EngineCallSpan[] = [
  { index: 0, name: 'decodeStep', startUs: 100, endUs: 140, phase: 'warmup' },
  { index: 1, name: 'decodeStep', startUs: 200, endUs: 240, phase: 'timed' },
  { index: 2, name: 'prefill', startUs: 300, endUs: 390, phase: 'prepare' },
];
/** ORT's profile of them: its clock starts 95 µs earlier than ours minus 5 µs of JS before each run. */
const ort = [
  { cat: 'Session', name: 'session_initialization', ts: 1, dur: 3, pid: 9, tid: 9 },
  { cat: 'Session', name: 'model_run', ts: 10, dur: 30, pid: 9, tid: 77 },
  { cat: 'Node', name: 'mm_kernel_time', ts: 12, dur: 10, pid: 9, tid: 77, args: { op_name: 'MatMul' } },
  { cat: 'Session', name: 'model_run', ts: 110, dur: 30, pid: 9, tid: 77 },
  { cat: 'Node', name: 'mm_kernel_time', ts: 112, dur: 10, pid: 9, tid: 77, args: { op_name: 'MatMul' } },
  { cat: 'Node', name: 'sm_kernel_time', ts: 125, dur: 4, pid: 9, tid: 78, args: { op_name: 'Softmax' } },
  { cat: 'Session', name: 'model_run', ts: 210, dur: 80, pid: 9, tid: 77 },
  { cat: 'Node', name: 'mm_kernel_time', ts: 212, dur: 70, pid: 9, tid: 77, args: { op_name: 'MatMul' } },
];

describe('buildChromeTrace', () => {
  it('keeps the kernel events of the timed calls only, moved onto our clock inside their call', () => {
    const trace = buildChromeTrace({ name: 'tiny', spans: [], engineCalls: calls, ortProfile: ort });
    expect(chromeTraceProblems(trace)).toEqual([]);
    const kernels = trace.traceEvents.filter((e) => e.pid === ENGINE_PID && e.ph === 'X');
    // Offsets per call: 90, 90, 90 → median 90; only call 1 is timed.
    expect(trace.otherData['ort_clock_offset_us']).toBe(90);
    expect(kernels.map((e) => [e.name, e.ts, e.dur, e.tid])).toEqual([
      ['model_run', 200, 30, 1],
      ['MatMul', 202, 10, 1],
      ['Softmax', 215, 4, 2],
    ]);
    expect(trace.otherData['timed_calls_with_kernels']).toBe(1);
    const names = trace.traceEvents.filter((e) => e.ph === 'M').map((e) => e.args?.['name']);
    expect(names).toContain('ORT thread 77');
    expect(names).toContain('ONNX Runtime (timed calls only)');
  });

  it('clamps a run that the median offset would put outside its call', () => {
    const late = calls.map((c) => (c.index === 1 ? { ...c, startUs: 230, endUs: 270 } : c));
    const trace = buildChromeTrace({ name: 'tiny', spans: [], engineCalls: late, ortProfile: ort });
    const run = trace.traceEvents.find((e) => e.pid === ENGINE_PID && e.name === 'model_run');
    expect(run?.ts).toBe(230); // offset 120 for this call instead of the median 90
    expect(trace.otherData['ort_max_call_adjust_us']).toBe(30);
  });

  it('says why kernel events are absent when there is no profile', () => {
    const trace = buildChromeTrace({
      name: 'x',
      spans: [],
      engineCalls: calls,
      kernelsAbsent: 'llama.cpp has none',
    });
    expect(chromeTraceProblems(trace)).toEqual([]);
    const absent = trace.traceEvents.find((e) => e.name === 'kernel_events_absent');
    expect(absent).toMatchObject({ ph: 'M', pid: 1, tid: 1, args: { reason: 'llama.cpp has none' } });
    expect(trace.traceEvents.some((e) => e.pid === ENGINE_PID)).toBe(false);
  });
});
