/**
 * Normalisation layers of the graph: LayerNorm (ONNX `LayerNormalization`, weight + bias) or RMSNorm (ONNX
 * Runtime's `SimplifiedLayerNormalization`, weight only), both over the last axis with ε = 1e-5; after a
 * residual connection, the add and the norm are one fused `Skip…Normalization` node.
 *
 * @packageDocumentation
 */
import { MS_DOMAIN } from './graph-builder.js';
import type { GraphContext } from './graph-context.js';

/** Normalisation epsilon shared with the reference model. */
export const NORM_EPSILON = 1e-5;

/**
 * Adds `sum = x + residual` and `norm(sum)` as one fused ONNX Runtime node (`SkipLayerNormalization` or
 * `SkipSimplifiedLayerNormalization`); returns `[normalised, sum]`.
 */
export function addSkipNorm(
  ctx: GraphContext,
  prefix: string,
  x: string,
  residual: string,
): [string, string] {
  const w = ctx.weight(`${prefix}.weight`);
  const layer = ctx.config.norm === 'layernorm';
  const normed = ctx.g.fresh('skipnorm');
  const sum = ctx.g.fresh('residual');
  ctx.g.node(
    layer ? 'SkipLayerNormalization' : 'SkipSimplifiedLayerNormalization',
    layer ? [x, residual, w, ctx.weight(`${prefix}.bias`)] : [x, residual, w],
    [normed, '', '', sum],
    { epsilon: { float: NORM_EPSILON } },
    { domain: MS_DOMAIN },
  );
  return [normed, sum];
}

/** Adds the norm whose weights are `${prefix}.weight` (+ `.bias` for LayerNorm) over `x`; returns its output. */
export function addNorm(ctx: GraphContext, prefix: string, x: string): string {
  const attrs = { axis: { int: -1 }, epsilon: { float: NORM_EPSILON } };
  const w = ctx.weight(`${prefix}.weight`);
  if (ctx.config.norm === 'layernorm') {
    return ctx.g.op('LayerNormalization', [x, w, ctx.weight(`${prefix}.bias`)], attrs);
  }
  return ctx.g.op('SimplifiedLayerNormalization', [x, w], attrs);
}
