/**
 * The per-node costs of `countGraphFlops` on the `tiny` preset: every node's FLOPs add up to the graph's total,
 * the per-operator table's grouping (op type + input shapes) loses none of them, bytes are inputs plus outputs at
 * their element sizes, and the count does not depend on the order the nodes are written in.
 */
import { describe, expect, it } from 'vitest';
import { ModelConfig } from '../../../src/models/model-config.js';
import { onnx } from '../../../src/models/onnx/graph-builder.js';
import { countGraphFlops, type GraphNodeCost } from '../../../src/models/onnx/graph-flops.js';
import { buildTransformerGraph } from '../../../src/models/onnx/transformer-graph.js';
import { numElements, type WeightMap, weightSpecs } from '../../../src/models/weights.js';
import { type KernelEvent, type OperatorCall, operatorTable } from '../../../src/profiling/operator-table.js';

const config = ModelConfig.preset('tiny');
const weights: WeightMap = new Map(
  weightSpecs(config).map((s) => [s.name, { dims: s.dims, data: new Float32Array(numElements(s.dims)) }]),
);
const graph = buildTransformerGraph(config, weights).builder.encode();

/** The call shapes of the latency task: a prefill, decode steps, a prefill at depth. */
const SHAPES = [
  { batchSize: 1, seqLen: 16, pastLength: 0 },
  { batchSize: 1, seqLen: 1, pastLength: 16 },
  { batchSize: 2, seqLen: 8, pastLength: 5 },
] as const;

const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

describe('countGraphFlops per node, tiny', () => {
  for (const shape of SHAPES) {
    const label = `batch ${shape.batchSize}, ${shape.seqLen} tokens after ${shape.pastLength}`;
    it(`${label}: the nodes' FLOPs add up to the total; only matrix products have FLOPs`, () => {
      const g = countGraphFlops(graph, shape);
      // Integers below 2^53 added in any order: exact.
      expect(sum(g.nodes.map((n) => n.flops))).toBe(g.total);
      const products = new Set(['MatMul', 'FusedMatMul', 'Gemm']);
      for (const n of g.nodes) if (!products.has(n.opType)) expect(n.flops, n.name).toBe(0);
      expect(new Set(g.nodes.map((n) => n.name)).size).toBe(g.nodes.length);
    });

    it(`${label}: grouped by op type and input shapes, the table keeps every FLOP and byte`, () => {
      const g = countGraphFlops(graph, shape);
      const costs = new Map(g.nodes.map((n) => [n.name, n]));
      const phase = shape.seqLen === 1 ? 'decode' : 'prefill';
      // One kernel per node in each of two calls of this shape.
      const calls: OperatorCall[] = [0, 1].map((index) => ({ index, phase, latencyUs: 10_000, costs }));
      const kernels: KernelEvent[] = calls.flatMap((c) =>
        g.nodes.map((n: GraphNodeCost) => ({
          call: c.index,
          node: n.name,
          opType: n.opType,
          inputShapes: JSON.stringify(n.inputShapes),
          durUs: 1,
        })),
      );
      const table = operatorTable({ kernels, calls });
      const groups = table.rows.filter((r) => r.category !== 'remainder');
      expect(table.uncostedKernels).toBe(0);
      expect(sum(groups.map((r) => r.flops ?? Number.NaN))).toBe(2 * g.total);
      expect(sum(groups.map((r) => r.bytes ?? Number.NaN))).toBe(2 * sum(g.nodes.map((n) => n.bytes)));
      expect(sum(groups.map((r) => r.calls))).toBe(2 * g.nodes.length);
      expect(sum(groups.map((r) => r.nodes))).toBe(g.nodes.length);
    });
  }

  it('bytes of the first projection: input, float32 weight and output, 4 bytes each', () => {
    const g = countGraphFlops(graph, { seqLen: 16 });
    const first = g.nodes.find((n) => n.opType === 'MatMul') as GraphNodeCost;
    const [x, w] = first.inputShapes as [number[], number[]];
    expect(x).toEqual([1, 16, config.dim]);
    const out = w[1] as number;
    expect(first.bytes).toBe(4 * (16 * config.dim + config.dim * out + 16 * out));
    expect(first.flops).toBe(2 * 16 * config.dim * out);
  });

  it('does not depend on the order the nodes are written in (the LM head first, as written to disk)', () => {
    const proto = onnx.ModelProto.decode(graph);
    const nodes = proto.graph?.node ?? [];
    const reordered = onnx.ModelProto.encode({
      ...proto,
      graph: { ...proto.graph, node: [...nodes.slice(-1), ...nodes.slice(0, -1)] },
    }).finish();
    const a = countGraphFlops(graph, { seqLen: 16 });
    const b = countGraphFlops(reordered, { seqLen: 16 });
    expect(b.total).toBe(a.total);
    const byName = (g: typeof a) => new Map(g.nodes.map((n) => [n.name, [n.flops, n.bytes]]));
    expect(byName(b)).toEqual(byName(a));
  });
});
