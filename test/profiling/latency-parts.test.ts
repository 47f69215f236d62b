/**
 * The latency's named parts by hand: each part's µs and share, the unexplained rest (negative when parts overlap), the ≥ 95% goal at its boundaries, the remainder row split into
 * part rows, and what a trace gives each phase (JS = engine span − session.run span, kernels per call, outputs).
 * Every number is exact in binary floating point or compared with `toBeCloseTo` at 12 digits (one division).
 */
import { describe, expect, it } from 'vitest';
import {
  EXPLAINED_GOAL,
  formatLatencyParts,
  isRemainderOp,
  LATENCY_PART_LABELS,
  latencyPartNeeds,
  latencyParts,
  splitRemainder,
  UNEXPLAINED_OP,
} from '../../src/profiling/latency-parts.js';
import { operatorTable, REMAINDER_OP, type TraceEventLike } from '../../src/profiling/operator-table.js';
import { ENGINE_RUN_CAT } from '../../src/profiling/trace-recorder.js';

/** A 1,000 µs call: 700 kernels, 100 session, 50 copy, 40 JS, 200 profiler. */
const full = {
  phase: 'prefill' as const,
  calls: 4,
  latencyUs: 1000,
  kernelUs: 700,
  sessionUs: 100,
  outputCopyUs: 50,
  jsUs: 40,
  profilerUs: 200,
};

/** `full` without the profiler's part. */
const { profilerUs: _profiler, ...unprofiled } = full;

describe('latencyParts', () => {
  it('gives each part its µs and share of the latency, in LATENCY_PARTS order', () => {
    const p = latencyParts({ ...full, profilerUs: 1000 / 17 }); // 58.82…
    expect(p.kernelShare).toBe(0.7);
    expect(p.parts.map((x) => x.part)).toEqual(['session', 'outputCopy', 'js', 'profiler']);
    expect(p.parts.map((x) => x.share).slice(0, 3)).toEqual([0.1, 0.05, 0.04]);
    expect(p.parts[3]?.us).toBeCloseTo(1000 / 17, 12);
    expect(p.missing).toEqual([]);
  });
  it('leaves the rest unexplained: 1000 − 700 − 100 − 50 − 40 − 58.8 = 51.2 µs, 5.1% — the goal missed', () => {
    const p = latencyParts({ ...full, profilerUs: 1000 / 17 });
    expect(p.unexplainedUs).toBeCloseTo(110 - 1000 / 17, 9);
    expect(p.explainedFraction).toBeCloseTo(1 - p.unexplainedShare, 12);
    expect(p.goalMet).toBe(false);
  });
  it('meets the goal at exactly 5% unexplained, misses it just above', () => {
    const at = latencyParts({ ...unprofiled, jsUs: 100 }); // 1000 − 950 = 50
    expect(at.unexplainedUs).toBe(50);
    expect(at.goalMet).toBe(true);
    const above = latencyParts({ ...unprofiled, jsUs: 99 });
    expect(above.unexplainedUs).toBe(51);
    expect(above.goalMet).toBe(false);
    expect(EXPLAINED_GOAL).toBe(0.95);
  });
  it('calls parts that add up to more than 105% of the latency overlap: negative rest, goal missed', () => {
    const over = latencyParts(full); // 700 + 100 + 50 + 40 + 200 = 1090
    expect(over.unexplainedUs).toBeCloseTo(-90, 9);
    expect(over.explainedFraction).toBeCloseTo(1.09, 12);
    expect(over.goalMet).toBe(false);
    const edge = latencyParts({ ...full, jsUs: 0, profilerUs: 200 }); // 1050: −5%, the boundary
    expect(edge.unexplainedUs).toBeCloseTo(-50, 9);
    expect(edge.goalMet).toBe(true);
  });
  it('counts a part not measured as missing, its time in the rest', () => {
    const p = latencyParts({ phase: 'decode', calls: 2, latencyUs: 400, kernelUs: 300, jsUs: 20 });
    expect(p.missing).toEqual(['session', 'outputCopy', 'profiler']);
    expect(p.parts).toEqual([{ part: 'js', us: 20, share: 0.05 }]);
    expect(p.unexplainedUs).toBe(80);
    expect(p.unexplainedShare).toBe(0.2);
  });
  it('treats a non-finite measurement as not measured', () => {
    const p = latencyParts({ ...unprofiled, sessionUs: Number.NaN });
    expect(p.missing).toEqual(['session', 'profiler']);
  });
  it('gives a zero latency zero shares and a missed goal', () => {
    const p = latencyParts({ phase: 'decode', calls: 0, latencyUs: 0, kernelUs: 0 });
    expect(p.kernelShare).toBe(0);
    expect(p.explainedFraction).toBe(0);
    expect(p.goalMet).toBe(false);
  });
});

describe('splitRemainder', () => {
  const table = operatorTable({
    calls: [
      { index: 0, phase: 'prefill', latencyUs: 1000 },
      { index: 1, phase: 'prefill', latencyUs: 1000 },
      { index: 2, phase: 'decode', latencyUs: 100 },
    ],
    kernels: [
      { call: 0, node: 'a', opType: 'MatMul', inputShapes: '', durUs: 700 },
      { call: 1, node: 'a', opType: 'MatMul', inputShapes: '', durUs: 700 },
      { call: 2, node: 'a', opType: 'MatMul', inputShapes: '', durUs: 60 },
    ],
  });
  const parts = latencyParts({ ...unprofiled, calls: 2 });

  it('replaces the phase remainder row with one row per part and the rest; the shares still sum to 1', () => {
    const split = splitRemainder(table, [parts]);
    const prefill = split.rows.filter((r) => r.phase === 'prefill');
    expect(prefill.map((r) => r.op)).toEqual([
      'MatMul',
      LATENCY_PART_LABELS.session,
      LATENCY_PART_LABELS.outputCopy,
      LATENCY_PART_LABELS.js,
      UNEXPLAINED_OP,
    ]);
    expect(prefill.slice(1).map((r) => r.totalUs)).toEqual([200, 100, 80, 220]);
    expect(prefill.slice(1).map((r) => r.meanUs)).toEqual([100, 50, 40, 110]);
    expect(prefill.reduce((s, r) => s + r.share, 0)).toBeCloseTo(1, 12);
    expect(prefill.slice(1).every((r) => r.category === 'remainder')).toBe(true);
  });
  it('keeps the remainder row of a phase without parts', () => {
    const decode = splitRemainder(table, [parts]).rows.filter((r) => r.phase === 'decode');
    expect(decode.map((r) => r.op)).toEqual(['MatMul', REMAINDER_OP]);
  });
  it('keeps the remainder row of a clamped phase', () => {
    const clamped = operatorTable({
      calls: [{ index: 0, phase: 'prefill', latencyUs: 100 }],
      kernels: [{ call: 0, node: 'a', opType: 'MatMul', inputShapes: '', durUs: 150 }],
    });
    expect(splitRemainder(clamped, [parts]).rows.map((r) => r.op)).toEqual(['MatMul', REMAINDER_OP]);
  });
  it('names every non-operator row', () => {
    for (const op of [REMAINDER_OP, UNEXPLAINED_OP, ...Object.values(LATENCY_PART_LABELS)])
      expect(isRemainderOp(op)).toBe(true);
    expect(isRemainderOp('MatMul')).toBe(false);
  });
});

describe('latencyPartNeeds', () => {
  const span = (name: string, cat: string, dur: number, args: Record<string, unknown>): TraceEventLike => ({
    ph: 'X',
    name,
    cat,
    dur,
    args,
  });
  const kernel = (call: number, dur: number): TraceEventLike => ({
    ph: 'X',
    cat: 'ort,Node',
    dur,
    args: { ort_name: `n${dur}_kernel_time`, op_name: 'MatMul', call },
  });
  const run = (call: number, dur: number, bytes: number[]): TraceEventLike =>
    span('session.run', ENGINE_RUN_CAT, dur, { call, feeds: 5, fetches: bytes.length, output_bytes: bytes });
  const events: TraceEventLike[] = [
    span('prefill', 'engine,timed', 1000, { call: 1 }),
    span('prefill', 'engine,timed', 1200, { call: 2 }),
    span('prefill', 'engine,timed', 1100, { call: 3 }),
    run(1, 900, [10, 20]),
    run(2, 1100, [10, 40, 5]),
    run(3, 1000, [10, 20]),
    kernel(1, 600),
    kernel(1, 100),
    kernel(2, 700),
    kernel(2, 50),
    kernel(2, 50),
    kernel(3, 650),
    kernel(3, 100),
    span('decodeStep', 'engine,timed', 100, { call: 4 }), // no session.run span: decode left out
    kernel(4, 50),
  ];

  it('reads per phase the means per call and the kinds of call, largest first', () => {
    const [prefill, ...rest] = latencyPartNeeds(events);
    expect(rest).toEqual([]);
    expect(prefill).toEqual({
      phase: 'prefill',
      calls: 3,
      latencyUs: 1100,
      kernelUs: 750, // (700 + 800 + 750) / 3
      jsUs: 100, // (100 + 100 + 100) / 3
      kinds: [
        { calls: 2, kernelsPerCall: 2, feeds: 5, fetches: 2, outputBytes: [10, 20] },
        { calls: 1, kernelsPerCall: 3, feeds: 5, fetches: 3, outputBytes: [10, 40, 5] },
      ],
    });
  });
  it('gives nothing for a trace without session.run spans', () => {
    expect(latencyPartNeeds(events.filter((e) => e.cat !== ENGINE_RUN_CAT))).toEqual([]);
  });
});

describe('formatLatencyParts', () => {
  it('prints per phase the share explained, the verdict and one line per part', () => {
    const text = formatLatencyParts([latencyParts({ ...unprofiled, jsUs: 100 })]);
    expect(text.split('\n')).toEqual([
      'prefill: 4 calls, 1.000 ms per call, 95.0% explained — goal met (|unexplained| ≤ 5%)',
      '  kernels                           0.700 ms    70.0%',
      '  ORT session (Identity graph)      0.100 ms    10.0%',
      '  binding output copy               0.050 ms     5.0%',
      '  dantinox JS                       0.100 ms    10.0%',
      '  profiler                      not measured',
      '  unexplained                       0.050 ms     5.0%',
    ]);
  });
});
