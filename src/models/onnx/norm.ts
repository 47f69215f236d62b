/**
 * Normalisation layers of the graph: LayerNorm (ONNX `LayerNormalization`, weight + bias) or RMSNorm (ONNX
 * Runtime's `SimplifiedLayerNormalization`, weight only), both over the last axis with ε = 1e-5.
 *
 * @packageDocumentation
 */
import type { GraphContext } from './graph-context.js';

/** Normalisation epsilon shared with the reference model. */
export const NORM_EPSILON = 1e-5;

/** Adds the norm whose weights are `${prefix}.weight` (+ `.bias` for LayerNorm) over `x`; returns its output. */
export function addNorm(ctx: GraphContext, prefix: string, x: string): string {
  const attrs = { axis: { int: -1 }, epsilon: { float: NORM_EPSILON } };
  const w = ctx.weight(`${prefix}.weight`);
  if (ctx.config.norm === 'layernorm') {
    return ctx.g.op('LayerNormalization', [x, w, ctx.weight(`${prefix}.bias`)], attrs);
  }
  return ctx.g.op('SimplifiedLayerNormalization', [x, w], attrs);
}
