/**
 * The per-operator table's arithmetic by hand: groups, shares of the measured latency with the remainder row,
 * rates and the roofline place, the clamp when kernels exceed the latency, and kernels without a graph cost.
 */
import { describe, expect, it } from 'vitest';
import {
  type KernelEvent,
  kernelEventsOf,
  type NodeCost,
  type OperatorCall,
  operatorCategoryMs,
  operatorTable,
  operatorTableOfTrace,
  REMAINDER_OP,
} from '../../src/profiling/operator-table.js';

const costs: ReadonlyMap<string, NodeCost> = new Map([
  ['mm0', { flops: 2e6, bytes: 1e6 }],
  ['mm1', { flops: 2e6, bytes: 1e6 }],
  ['add', { flops: 0, bytes: 3e5 }],
]);

/** Two prefill calls of 1 ms and one decode step of 0.5 ms. */
const calls: OperatorCall[] = [
  { index: 3, phase: 'prefill', latencyUs: 1000, costs },
  { index: 4, phase: 'prefill', latencyUs: 1000, costs },
  { index: 5, phase: 'decode', latencyUs: 500, costs },
];

const k = (
  call: number,
  node: string,
  opType: string,
  durUs: number,
  shapes = 'float[1,8,32]',
): KernelEvent => ({
  call,
  node,
  opType,
  inputShapes: shapes,
  durUs,
});

describe('operatorTable', () => {
  it('groups by phase, op and shapes; shares of the latency sum to 1 with the remainder row', () => {
    const table = operatorTable({
      calls,
      kernels: [
        k(3, 'mm0', 'MatMul', 400),
        k(3, 'mm1', 'MatMul', 200),
        k(3, 'add', 'Add', 100),
        k(4, 'mm0', 'MatMul', 400),
        k(4, 'mm1', 'MatMul', 200),
        k(4, 'add', 'Add', 100),
        k(5, 'mm0', 'MatMul', 100, 'float[1,1,32]'),
        k(99, 'mm0', 'MatMul', 1e6), // not a timed call: ignored
      ],
      roofline: { peakGflops: 100, bandwidthGbs: 10 },
    });
    const prefill = table.rows.filter((r) => r.phase === 'prefill');
    expect(prefill.map((r) => [r.op, r.calls, r.nodes, r.totalUs, r.share])).toEqual([
      ['MatMul', 4, 2, 1200, 0.6],
      ['Add', 2, 1, 200, 0.1],
      [REMAINDER_OP, 2, 0, 600, 0.3],
    ]);
    const mm = prefill[0];
    // 8 MFLOP in 1.2 ms = 6.67 GFLOP/s; 4 MB in 1.2 ms = 3.33 GB/s; 2 FLOP/byte → bound min(100, 2 × 10) = 20.
    expect(mm?.flops).toBe(8e6);
    expect(mm?.bytes).toBe(4e6);
    expect(mm?.meanUs).toBe(300);
    expect(mm?.gflopsPerS).toBeCloseTo(8e6 / 1.2e-3 / 1e9, 12);
    expect(mm?.gbPerS).toBeCloseTo(4e6 / 1.2e-3 / 1e9, 12);
    expect(mm?.intensity).toBe(2);
    expect(mm?.attainableGflops).toBe(20);
    expect(mm?.fractionOfAttainable).toBeCloseTo(8e6 / 1.2e-3 / 1e9 / 20, 12);
    // No FLOPs: intensity 0, on the bandwidth slope at 0.
    expect(prefill[1]?.intensity).toBe(0);
    expect(prefill[2]?.category).toBe('remainder');
    for (const phase of ['prefill', 'decode'] as const) {
      const shares = table.rows.filter((r) => r.phase === phase).map((r) => r.share);
      expect(shares.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
    }
    expect(table.reconciliation).toEqual([
      {
        phase: 'prefill',
        calls: 2,
        latencyUs: 2000,
        kernelUs: 1400,
        remainderUs: 600,
        kernelFraction: 0.7,
        clamped: false,
      },
      {
        phase: 'decode',
        calls: 1,
        latencyUs: 500,
        kernelUs: 100,
        remainderUs: 400,
        kernelFraction: 0.2,
        clamped: false,
      },
    ]);
    expect(operatorCategoryMs(table.rows, 'prefill')).toEqual({
      matmul: 1.2,
      attention: 0,
      norm: 0,
      softmax: 0,
      other: 0.2,
    });
  });

  it('clamps the remainder to 0 and takes shares of the kernel time when kernels exceed the latency', () => {
    const table = operatorTable({
      calls: [{ index: 0, phase: 'decode', latencyUs: 100, costs }],
      kernels: [k(0, 'mm0', 'MatMul', 90), k(0, 'add', 'Add', 60)],
    });
    expect(table.reconciliation[0]).toMatchObject({ kernelUs: 150, remainderUs: 0, clamped: true });
    expect(table.reconciliation[0]?.kernelFraction).toBe(1.5);
    expect(table.rows.map((r) => [r.op, r.share])).toEqual([
      ['MatMul', 0.6],
      ['Add', 0.4],
      [REMAINDER_OP, 0],
    ]);
    // No roofline without ceilings.
    expect(table.rows[0]?.attainableGflops).toBeUndefined();
  });

  it('leaves FLOPs and bytes out of a group with a node the graph model does not know, and counts it', () => {
    const table = operatorTable({
      calls: [{ index: 0, phase: 'prefill', latencyUs: 100, costs }],
      kernels: [k(0, 'mm0', 'MatMul', 10), k(0, 'ort_fused_1', 'MatMul', 10)],
    });
    expect(table.uncostedKernels).toBe(1);
    expect(table.rows[0]?.flops).toBeUndefined();
    expect(table.rows[0]?.gflopsPerS).toBeUndefined();
  });

  it('reads the kernel events of a trace: node events ending in _kernel_time, with call and shapes', () => {
    const events = [
      {
        cat: 'ort,Node',
        dur: 7,
        args: {
          ort_name: 'n2_MatMul_kernel_time',
          op_name: 'MatMul',
          call: 4,
          input_type_shape: [{ float: [1, 8, 32] }, { int64: [2] }],
        },
      },
      { cat: 'ort,Node', dur: 1, args: { ort_name: 'n2_MatMul_fence_before', op_name: 'MatMul', call: 4 } },
      { cat: 'ort,Session', dur: 50, args: { ort_name: 'model_run', call: 4 } },
    ];
    expect(kernelEventsOf(events)).toEqual([
      { call: 4, node: 'n2_MatMul', opType: 'MatMul', inputShapes: 'float[1,8,32]; int64[2]', durUs: 7 },
    ]);
  });

  it('builds the table of a trace: timed engine spans (latency, shape) and the kernel events inside them', () => {
    const span = (call: number, name: string, phase: string, dur: number, seq: number, past: number) => ({
      ph: 'X',
      name,
      cat: `engine,${phase}`,
      dur,
      args: { call, phase, batch: 1, seq, past_length: past },
    });
    const node = (call: number, dur: number) => ({
      ph: 'X',
      name: 'MatMul',
      cat: 'ort,Node',
      dur,
      args: {
        ort_name: 'mm0_kernel_time',
        op_name: 'MatMul',
        call,
        input_type_shape: [{ float: [1, 4, 8] }],
      },
    });
    const events = [
      span(0, 'prefill', 'warmup', 900, 4, 0),
      span(1, 'prefill', 'timed', 1000, 4, 0),
      span(2, 'decodeStep', 'timed', 200, 1, 4),
      node(1, 600),
      node(2, 50),
    ];
    const shapes: string[] = [];
    const table = operatorTableOfTrace(events, {
      costs: (shape) => {
        shapes.push(`${shape.batch},${shape.seq},${shape.pastLength}`);
        return costs;
      },
    });
    expect(shapes).toEqual(['1,4,0', '1,1,4']);
    expect(table.reconciliation.map((r) => [r.phase, r.latencyUs, r.kernelUs])).toEqual([
      ['prefill', 1000, 600],
      ['decode', 200, 50],
    ]);
    expect(table.rows.find((r) => r.phase === 'decode' && r.op === 'MatMul')?.flops).toBe(2e6);
  });
});
