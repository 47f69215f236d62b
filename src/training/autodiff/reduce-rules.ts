/**
 * Reductions over axes: `ReduceSum`, `ReduceMean` (axes as a constant input, opset 18), `Softmax` and
 * `LogSoftmax` (over one axis, the last in every training graph).
 *
 * - ReduceSum/ReduceMean: the gradient is the output gradient broadcast back over the reduced axes (÷ n for the
 *   mean).
 * - Softmax `y`: `dx = y ⊙ (dy − Σ dy ⊙ y)` along the axis.
 * - LogSoftmax `y`: `dx = dy − exp(y) ⊙ Σ dy` along the axis.
 *
 * @packageDocumentation
 */
import type { ValueInfo } from './diff-graph.js';
import type { GradientContext, InferContext, OpRule } from './op-rules.js';
import { inputInfo, intAttr, normaliseAxis } from './op-rules.js';
import { sizeOf } from './shape.js';

/** The reduced axes of a Reduce node (all of them when the axes input is omitted), non-negative. */
function reducedAxes(rank: number, axes: readonly number[] | undefined): number[] {
  if (axes === undefined) return Array.from({ length: rank }, (_, i) => i);
  return axes.map((a) => normaliseAxis(a, rank));
}

function reduceShape(ctx: InferContext): ValueInfo[] {
  const x = inputInfo(ctx, 0);
  const axes = reducedAxes(x.shape.length, ctx.inputs[1] === undefined ? undefined : ctx.constant(1));
  if (ctx.inputs[1] !== undefined && ctx.constant(1) === undefined)
    throw new Error('Reduce axes must be an int64 constant of the graph');
  const keep = intAttr(ctx.attrs, 'keepdims', 1) === 1;
  const shape = keep
    ? x.shape.map((d, i) => (axes.includes(i) ? 1 : d))
    : x.shape.filter((_, i) => !axes.includes(i));
  return [{ shape, type: x.type }];
}

function reduceGrad(mean: boolean) {
  return ({ d, node, dy }: GradientContext): (string | undefined)[] => {
    const [x, axesInput] = node.inputs as [string, string | undefined];
    const shape = d.shape(x);
    const axes = reducedAxes(shape.length, axesInput ? d.constantValues(axesInput) : undefined);
    const kept = shape.map((dim, i) => (axes.includes(i) ? 1 : dim));
    let g = d.reshape(dy[0] as string, kept);
    if (mean) g = d.op1('Mul', [g, d.float([sizeOf(kept) / sizeOf(shape)])]);
    return [d.op1('Expand', [g, d.int64(shape)]), undefined];
  };
}

const lastAxisOnly = (ctx: InferContext): ValueInfo[] => {
  const x = inputInfo(ctx, 0);
  if (normaliseAxis(intAttr(ctx.attrs, 'axis', -1), x.shape.length) !== x.shape.length - 1)
    throw new Error('Softmax and LogSoftmax are supported over the last axis only');
  return [x];
};

/** Reduction rules. */
export const REDUCE_RULES: Readonly<Record<string, OpRule>> = {
  ReduceSum: { infer: reduceShape, grad: reduceGrad(false) },
  ReduceMean: { infer: reduceShape, grad: reduceGrad(true) },
  Softmax: {
    infer: lastAxisOnly,
    grad: ({ d, node, dy }) => {
      const y = node.outputs[0] as string;
      const g = dy[0] as string;
      const dot = d.op1('ReduceSum', [d.op1('Mul', [g, y]), d.int64([-1])], { keepdims: { int: 1 } });
      return [d.op1('Mul', [y, d.op1('Sub', [g, dot])])];
    },
  },
  LogSoftmax: {
    infer: lastAxisOnly,
    grad: ({ d, node, dy }) => {
      const y = node.outputs[0] as string;
      const g = dy[0] as string;
      const total = d.op1('ReduceSum', [g, d.int64([-1])], { keepdims: { int: 1 } });
      return [d.op1('Sub', [g, d.op1('Mul', [d.op1('Exp', [y]), total])])];
    },
  },
};
