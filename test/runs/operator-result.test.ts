/**
 * The `operators` row with the latency's named parts, by hand: the remainder row replaced by part rows whose chart
 * rows are `remainder`, the part metrics and the goal flag, and why the parts are missing when a probe failed.
 */
import { describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/report.js';
import type { ChromeTrace } from '../../src/profiling/chrome-trace.js';
import { LATENCY_PART_LABELS, latencyParts, UNEXPLAINED_OP } from '../../src/profiling/latency-parts.js';
import { REMAINDER_OP } from '../../src/profiling/operator-table.js';
import type { TraceEvent } from '../../src/profiling/trace-recorder.js';
import { operatorChartRows, operatorResult } from '../../src/runs/operator-result.js';

const x = (cat: string, name: string, dur: number, args: Record<string, unknown>): TraceEvent => ({
  ph: 'X',
  name,
  cat,
  ts: 0,
  dur,
  pid: 1,
  tid: 1,
  args,
});

/** One 1,000 µs prefill with 700 µs of MatMul. */
const trace: ChromeTrace = {
  traceEvents: [
    x('engine,timed', 'prefill', 1000, { call: 0 }),
    x('ort,Node', 'MatMul', 700, { ort_name: 'mm_kernel_time', op_name: 'MatMul', call: 0 }),
  ],
  displayTimeUnit: 'ms',
  otherData: {},
};

/** 700 kernels + 100 session + 50 copy + 100 JS: 50 µs (5%) unexplained, the goal just met. */
const parts = [
  latencyParts({
    phase: 'prefill',
    calls: 1,
    latencyUs: 1000,
    kernelUs: 700,
    sessionUs: 100,
    outputCopyUs: 50,
    jsUs: 100,
  }),
];

describe('operatorResult with named parts', () => {
  it('replaces the remainder row by the parts and the rest, with their metrics and the goal flag', () => {
    const built = operatorResult({ trace, parts });
    const { table, result } = built as NonNullable<typeof built>;
    expect(table.rows.map((r) => r.op)).toEqual([
      'MatMul',
      LATENCY_PART_LABELS.session,
      LATENCY_PART_LABELS.outputCopy,
      LATENCY_PART_LABELS.js,
      UNEXPLAINED_OP,
    ]);
    expect(result.metrics['operators_prefill_session_ms']).toBe(0.1);
    expect(result.metrics['operators_prefill_output_copy_ms']).toBe(0.05);
    expect(result.metrics['operators_prefill_js_ms']).toBe(0.1);
    expect(result.metrics['operators_prefill_profiler_ms']).toBeUndefined(); // not measured
    expect(result.metrics['operators_prefill_unexplained_ms']).toBe(0.05);
    expect(result.metrics['operators_prefill_explained_fraction']).toBe(0.95);
    expect(result.meta?.['operators_prefill_explained_goal_met']).toBe(true);
    // The chart rows (report.html's table, the roofline chart) take every part row as remainder.
    const report = new SuiteReport({ results: [result], modelMeta: { model: 'm' } });
    const categories = operatorChartRows(report).map((r) => [r['op'], r['category']]);
    expect(categories).toEqual([
      ['MatMul', 'matmul'],
      ...[...Object.values(LATENCY_PART_LABELS).filter((l) => l !== 'profiler'), UNEXPLAINED_OP].map((l) => [
        l,
        'remainder',
      ]),
    ]);
  });
  it('keeps the one remainder row and says why when the parts could not be measured', () => {
    const built = operatorResult({ trace, partsUnavailable: 'no memory' });
    const { table, result } = built as NonNullable<typeof built>;
    expect(table.rows.map((r) => r.op)).toEqual(['MatMul', REMAINDER_OP]);
    expect(result.meta?.['operators_parts_unavailable']).toBe('no memory');
    expect(result.metrics['operators_prefill_explained_fraction']).toBeUndefined();
  });
});
