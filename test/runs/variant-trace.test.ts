/**
 * `bench --trace` on the real engine: the tiny preset on ONNX Runtime with its profiler on, the latency task with a
 * depth sweep, assembled into a trace that Perfetto's JSON importer accepts, whose kernel events are those of the
 * timed calls, inside their calls and inside the task span; and the metadata of an engine without kernel events.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { type OperatorTable, timedCallsOf } from '../../src/profiling/operator-table.js';
import { operatorResult } from '../../src/runs/operator-result.js';
import { callCostsOf } from '../../src/runs/trace-operators.js';
import { startVariantTrace } from '../../src/runs/variant-trace.js';
import { chromeTraceProblems, within, type XEvent } from '../profiling/trace-schema.js';
import { traceTinyLatency } from './traced-tiny.js';

describe('a variant trace', () => {
  it('ort: our spans and the kernel events of the timed calls, on one clock', async () => {
    const { engine, written } = await traceTinyLatency();
    const parsed = JSON.parse(readFileSync(written.path, 'utf8'));
    // The per-operator table of the same timed calls, costed by the graph model.
    const costs = callCostsOf(engine);
    const built = operatorResult({
      trace: written.trace,

      ...(costs === undefined ? {} : { costs }),
    });
    expect(built).toBeDefined();
    const table = built?.table as OperatorTable;
    expect(table.uncostedKernels).toBe(0);
    for (const phase of ['prefill', 'decode'] as const) {
      const rows = table.rows.filter((r) => r.phase === phase);
      expect(
        rows.some((r) => r.op === 'MatMul' && (r.flops ?? 0) > 0 && (r.gflopsPerS ?? 0) > 0),
        phase,
      ).toBe(true);
      expect(rows.reduce((s, r) => s + r.share, 0)).toBeCloseTo(1, 9);
      // Every matrix product of the graph ran: the table's FLOPs are the graph model's totals of those calls.
      const timed = timedCallsOf(written.trace.traceEvents, costs).filter((c) => c.phase === phase);
      const graphTotal = timed.reduce(
        (s, c) => s + [...(c.costs?.values() ?? [])].reduce((t, n) => t + n.flops, 0),
        0,
      );
      expect(rows.reduce((s, r) => s + (r.flops ?? 0), 0)).toBe(graphTotal);
    }
    expect(chromeTraceProblems(parsed)).toEqual([]);
    const events = parsed.traceEvents.filter((e: XEvent) => e.ph === 'X') as XEvent[];
    const task = events.find((e) => e.cat === 'task') as XEvent;
    expect(task.name).toBe('latency');
    // Every span and every kernel event falls inside the task span.
    for (const e of events) expect(within(e, task), `${e.cat} ${e.name}`).toBe(true);
    // One model_run per engine call; kernel events only of timed calls, each inside its call.
    expect(parsed.otherData.ort_runs).toBe(parsed.otherData.engine_calls);
    const calls = new Map(
      events.filter((e) => e.cat?.startsWith('engine')).map((e) => [e.args?.['call'], e]),
    );
    const kernels = events.filter((e) => e.pid === 2);
    expect(kernels.some((e) => e.cat === 'ort,Node' && e.name === 'MatMul')).toBe(true);
    for (const k of kernels) {
      const call = calls.get(k.args?.['call']) as XEvent;
      expect(call.args?.['phase']).toBe('timed');
      expect(within(k, call), k.name).toBe(true);
    }
    const cells = events.filter((e) => e.cat === 'cell').map((e) => e.name);
    expect(cells).toEqual(
      expect.arrayContaining(['prefill@16', 'decode@16', 'prefill@16+d32', 'decode@d32']),
    );
  }, 60_000);

  it('llama.cpp: our spans and a metadata event saying why kernel events are absent', () => {
    const trace = startVariantTrace('llama.cpp');
    expect(trace.profileFilePrefix).toBeUndefined();
    const folder = mkdtempSync(join(tmpdir(), 'dantinox-trace-test-'));
    const parsed = JSON.parse(readFileSync(trace.write(folder, 'tiny-llama').path, 'utf8'));
    expect(chromeTraceProblems(parsed)).toEqual([]);
    expect(parsed.traceEvents.find((e: XEvent) => e.name === 'kernel_events_absent')?.args?.reason).toBe(
      messages.traceKernelsAbsent('llama.cpp'),
    );
  });
});
