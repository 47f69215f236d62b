/**
 * Operators that move or pick elements: `Reshape`, `Transpose`, `Cast`, `Gather` (axis 0: embedding rows),
 * `GatherElements` (a target's log-probability), `ScatterND` (a mixture of experts' routing), and
 * `ConstantOfShape`, `Expand`, `ScatterElements`, `Equal` (used only inside gradients). The gradient of a gather sums the output gradient of every position that
 * picked a row, so rows picked several times (a token that occurs twice) accumulate: for `Gather` as a one-hot
 * matrix product, for `GatherElements` as a scatter-add into zeros.
 *
 * @packageDocumentation
 */
import { TENSOR_TYPES, tensorTypeOfOnnx } from '../../dtype.js';
import type { ValueInfo } from './diff-graph.js';
import type { InferContext, OpRule } from './op-rules.js';
import { inputInfo, intAttr, intsAttr } from './op-rules.js';
import { broadcastShapes, inversePermutation, sizeOf } from './shape.js';

function constantOf(ctx: InferContext, i: number, what: string): readonly number[] {
  const values = ctx.constant(i);
  if (values === undefined) throw new Error(`${what} must be an int64 constant of the graph`);
  return values;
}

function reshapeShape(ctx: InferContext): ValueInfo[] {
  const x = inputInfo(ctx, 0);
  const target = constantOf(ctx, 1, 'the Reshape shape').map((v, i) =>
    v === 0 ? (x.shape[i] as number) : v,
  );
  const known = target.filter((v) => v !== -1).reduce((p, v) => p * v, 1);
  const shape = target.map((v) => (v === -1 ? sizeOf(x.shape) / known : v));
  if (sizeOf(shape) !== sizeOf(x.shape))
    throw new Error(`cannot reshape [${x.shape.join(',')}] to [${target.join(',')}]`);
  return [{ shape, type: x.type }];
}

/** Layout and indexing rules. */
export const LAYOUT_RULES: Readonly<Record<string, OpRule>> = {
  Reshape: {
    infer: reshapeShape,
    grad: ({ d, node, dy }) => [d.reshape(dy[0] as string, d.shape(node.inputs[0] as string)), undefined],
  },
  Transpose: {
    infer: (ctx) => {
      const x = inputInfo(ctx, 0);
      const perm = intsAttr(ctx.attrs, 'perm') ?? x.shape.map((_, i) => x.shape.length - 1 - i);
      return [{ shape: perm.map((p) => x.shape[p] as number), type: x.type }];
    },
    grad: ({ d, node, dy }) => {
      const rank = d.shape(node.inputs[0] as string).length;
      const perm = intsAttr(node.attrs, 'perm') ?? Array.from({ length: rank }, (_, i) => rank - 1 - i);
      return [d.transpose(dy[0] as string, inversePermutation(perm))];
    },
  },
  Cast: {
    infer: (ctx) => {
      const type = tensorTypeOfOnnx(intAttr(ctx.attrs, 'to', 0));
      if (type === undefined) throw new Error('Cast to an unknown type');
      return [{ shape: inputInfo(ctx, 0).shape, type }];
    },
    // Only float → float casts carry a gradient; integer inputs never need one.
    grad: ({ dy }) => [dy[0]],
  },
  Gather: {
    infer: (ctx) => {
      const data = inputInfo(ctx, 0);
      if (intAttr(ctx.attrs, 'axis', 0) !== 0) throw new Error('Gather is supported on axis 0 only');
      return [{ shape: [...inputInfo(ctx, 1).shape, ...data.shape.slice(1)], type: data.type }];
    },
    // Row r's gradient is the sum of the output rows at the positions that picked r: oneHot(ids) · dy, a
    // [rows, positions] × [positions, width] product. Not a ScatterND with reduction 'add': ONNX Runtime's CPU
    // kernel splits the updates over its threads, which add into a repeated id's row unsynchronised, so with more
    // than one thread the trained weights differed from run to run (a matrix product sums in a fixed order).
    grad: ({ d, node, dy, needs }) => {
      if (!needs[0]) return [undefined, undefined];
      const [data, indices] = node.inputs as [string, string];
      const [rows, ...rowShape] = d.shape(data) as [number, ...number[]];
      const positions = sizeOf(d.shape(indices));
      const wide =
        d.info(indices).type === 'int64'
          ? indices
          : d.op1('Cast', [indices], { to: { int: TENSOR_TYPES.int64.onnx } });
      const ids = d.int64(
        Array.from({ length: rows }, (_, r) => r),
        [rows, 1],
      );
      const picked = d.op1('Equal', [ids, d.reshape(wide, [1, positions])]);
      const oneHot = d.op1('Cast', [picked], { to: { int: TENSOR_TYPES.float32.onnx } });
      const summed = d.op1('MatMul', [oneHot, d.reshape(dy[0] as string, [positions, sizeOf(rowShape)])]);
      return [d.reshape(summed, d.shape(data)), undefined];
    },
  },
  Equal: {
    infer: (ctx) => {
      const shape = broadcastShapes([inputInfo(ctx, 0).shape, inputInfo(ctx, 1).shape]);
      if (shape === undefined) throw new Error('Equal: shapes do not broadcast');
      return [{ shape, type: 'bool' }];
    },
  },
  GatherElements: {
    infer: (ctx) => [{ shape: inputInfo(ctx, 1).shape, type: inputInfo(ctx, 0).type }],
    grad: ({ d, node, dy, needs }) => {
      if (!needs[0]) return [undefined, undefined];
      const [data, indices] = node.inputs as [string, string];
      const grad = d.op1('ScatterElements', [d.zeros(d.shape(data)), indices, dy[0] as string], {
        axis: { int: intAttr(node.attrs, 'axis', 0) },
        reduction: { string: 'add' },
      });
      return [grad, undefined];
    },
  },
  ConstantOfShape: {
    infer: (ctx) => [{ shape: constantOf(ctx, 0, 'the ConstantOfShape shape'), type: 'float32' }],
  },
  Expand: {
    infer: (ctx) => {
      const x = inputInfo(ctx, 0);
      const shape = broadcastShapes([x.shape, constantOf(ctx, 1, 'the Expand shape')]);
      if (shape === undefined) throw new Error('Expand shapes do not broadcast');
      return [{ shape, type: x.type }];
    },
  },
  ScatterND: { infer: (ctx) => [inputInfo(ctx, 0)] },
  ScatterElements: { infer: (ctx) => [inputInfo(ctx, 0)] },
};
