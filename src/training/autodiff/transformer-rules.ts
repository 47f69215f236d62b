/**
 * The fused transformer operators the forward graph uses and their gradients, written with plain operators:
 *
 * - `SimplifiedLayerNormalization` (RMSNorm; its optional second output, the inverse RMS `r`, is kept for the
 *   gradient): with `x̂ = x·r`, `dx = r·(dx̂ − x̂·mean(dx̂ ⊙ x̂))`, `dw = Σ dy ⊙ x̂` over the rows, where `dx̂ = dy ⊙ w`.
 * - `LayerNormalization` (outputs mean and inverse standard deviation `r` kept): with `x̂ = (x − μ)·r`,
 *   `dx = r·(dx̂ − mean(dx̂) − x̂·mean(dx̂ ⊙ x̂))`, `dw = Σ dy ⊙ x̂`, `db = Σ dy`.
 * - `RotaryEmbedding` (ONNX Runtime's, rotate-half): a rotation of each pair of features by its position's angle,
 *   so its gradient is the rotation by the opposite angle — the same operator with the sine table negated.
 * - `Gelu` (exact erf form): `dx = dy·(Φ(x) + x·φ(x))`, Φ and φ the standard normal CDF and density.
 *
 * All norms normalise over the last axis.
 *
 * @packageDocumentation
 */
import { MS_DOMAIN } from '../../models/onnx/graph-builder.js';
import type { ValueInfo } from './diff-graph.js';
import type { GradientContext, InferContext, OpRule } from './op-rules.js';
import { inputInfo, intAttr, normaliseAxis } from './op-rules.js';

function normShape(statistics: number) {
  return (ctx: InferContext): ValueInfo[] => {
    const x = inputInfo(ctx, 0);
    const rank = x.shape.length;
    if (normaliseAxis(intAttr(ctx.attrs, 'axis', -1), rank) !== rank - 1)
      throw new Error('norms are supported over the last axis only');
    const stat: ValueInfo = { shape: [...x.shape.slice(0, -1), 1], type: 'float32' };
    return [x, ...Array.from({ length: statistics }, () => stat)];
  };
}

/** `mean(v)` over the last axis, kept as an axis of 1. */
function rowMean(ctx: GradientContext, v: string): string {
  return ctx.d.op1('ReduceMean', [v, ctx.d.int64([-1])], { keepdims: { int: 1 } });
}

function rmsNormGrad(ctx: GradientContext): (string | undefined)[] {
  const { d, node, dy, needs } = ctx;
  const [x, w] = node.inputs as [string, string];
  const r = node.outputs[1];
  if (r === undefined || r === '')
    throw new Error('SimplifiedLayerNormalization needs its inv_std_var output');
  const g = dy[0] as string;
  const xhat = d.op1('Mul', [x, r]);
  const dxhat = d.op1('Mul', [g, w]);
  const dx = needs[0]
    ? d.op1('Mul', [
        r,
        d.op1('Sub', [dxhat, d.op1('Mul', [xhat, rowMean(ctx, d.op1('Mul', [dxhat, xhat]))])]),
      ])
    : undefined;
  const dw = needs[1] ? d.sumTo(d.op1('Mul', [g, xhat]), d.shape(w)) : undefined;
  return [dx, dw];
}

function layerNormGrad(ctx: GradientContext): (string | undefined)[] {
  const { d, node, dy, needs } = ctx;
  const [x, w, b] = node.inputs as [string, string, string | undefined];
  const [, mean, r] = node.outputs;
  if (!mean || !r) throw new Error('LayerNormalization needs its Mean and InvStdDev outputs');
  const g = dy[0] as string;
  const xhat = d.op1('Mul', [d.op1('Sub', [x, mean]), r]);
  const dxhat = d.op1('Mul', [g, w]);
  const centred = d.op1('Sub', [dxhat, rowMean(ctx, dxhat)]);
  const dx = needs[0]
    ? d.op1('Mul', [
        r,
        d.op1('Sub', [centred, d.op1('Mul', [xhat, rowMean(ctx, d.op1('Mul', [dxhat, xhat]))])]),
      ])
    : undefined;
  const dw = needs[1] ? d.sumTo(d.op1('Mul', [g, xhat]), d.shape(w)) : undefined;
  const db = b !== undefined && needs[2] ? d.sumTo(g, d.shape(b)) : undefined;
  return [dx, dw, db];
}

function rotaryGrad({ d, node, dy, needs }: GradientContext): (string | undefined)[] {
  if (needs[2] || needs[3]) throw new Error('RotaryEmbedding tables are constants: no gradient');
  const [, positions, cos, sin] = node.inputs as [string, string, string, string];
  const back = d.op1('RotaryEmbedding', [dy[0] as string, positions, cos, d.op1('Neg', [sin])], node.attrs);
  return [back, undefined, undefined, undefined];
}

function geluGrad({ d, node, dy }: GradientContext): (string | undefined)[] {
  const x = node.inputs[0] as string;
  const cdf = d.op1('Mul', [
    d.float([0.5]),
    d.op1('Add', [d.float([1]), d.op1('Erf', [d.op1('Mul', [x, d.float([Math.SQRT1_2])])])]),
  ]);
  const density = d.op1('Mul', [
    d.op1('Exp', [d.op1('Mul', [d.op1('Mul', [x, x]), d.float([-0.5])])]),
    d.float([1 / Math.sqrt(2 * Math.PI)]),
  ]);
  const slope = d.op1('Add', [cdf, d.op1('Mul', [x, density])]);
  return [d.op1('Mul', [dy[0] as string, slope])];
}

/** Norm, rotary and GELU rules. */
export const TRANSFORMER_RULES: Readonly<Record<string, OpRule>> = {
  SimplifiedLayerNormalization: { infer: normShape(1), grad: rmsNormGrad },
  LayerNormalization: { infer: normShape(2), grad: layerNormGrad },
  RotaryEmbedding: { domain: MS_DOMAIN, infer: (ctx) => [inputInfo(ctx, 0)], grad: rotaryGrad },
  Gelu: { infer: (ctx) => [inputInfo(ctx, 0)], grad: geluGrad },
};
