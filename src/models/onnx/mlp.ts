/**
 * The dense feed-forward block: `down(act(x @ up))`, or SwiGLU `down(silu(x @ gate) * (x @ up))` (gate and up
 * fused into one product unless the context's `fuseWeights` is off). GELU is the exact erf form (ONNX `Gelu`,
 * approximate "none"); SiLU is ONNX Runtime's `QuickGelu` with α = 1 (x·σ(x)); ReLU is ONNX `Relu`.
 *
 * @packageDocumentation
 */
import type { Activation } from '../model-config.js';
import { MS_DOMAIN } from './graph-builder.js';
import type { GraphContext } from './graph-context.js';
import { concatColumns } from './weight-layout.js';

/** Adds the activation `kind` over `x`. */
export function addActivation(ctx: GraphContext, kind: Activation, x: string): string {
  if (kind === 'gelu') return ctx.g.op('Gelu', [x], { approximate: { string: 'none' } });
  if (kind === 'relu') return ctx.g.op('Relu', [x]);
  return ctx.g.op('QuickGelu', [x], { alpha: { float: 1 } }, { domain: MS_DOMAIN });
}

/**
 * Adds SwiGLU's gate and up projections of `x`: one product over the column-concatenated `[D, 2F]` weights, then
 * a split, or (`fuseWeights` off) two products over the canonical weights; returns `[gate, up]`.
 */
function addGateUp(ctx: GraphContext, prefix: string, x: string, f: number): [string, string] {
  const { g, config } = ctx;
  const project = (w: string): string =>
    g.op('MatMul', [x, ctx.weight(`${prefix}.${w}.weight`)], {}, { tag: 'ffn' });
  if (!ctx.fuseWeights) return [project('gate'), project('up')];
  const fused = ctx.derived(`${prefix}.gate_up.fused`, [config.dim, 2 * f], () =>
    concatColumns(config.dim, [
      { data: ctx.data(`${prefix}.gate.weight`), cols: f },
      { data: ctx.data(`${prefix}.up.weight`), cols: f },
    ]),
  );
  const both = g.op('MatMul', [x, fused], {}, { tag: 'ffn' });
  return g.node('Split', [both, g.int64([f, f])], 2, { axis: { int: -1 } }) as [string, string];
}

/** Adds the MLP whose weights are `${prefix}.{gate,up,down}.weight` over `x` (`[…, D]`); returns `[…, D]`. */
export function addMlp(ctx: GraphContext, prefix: string, x: string): string {
  const { g, config } = ctx;
  let hidden: string;
  if (config.useSwiglu) {
    const [gate, up] = addGateUp(ctx, prefix, x, Math.round(config.expansion * config.dim));
    hidden = g.op('Mul', [addActivation(ctx, 'silu', gate), up]);
  } else {
    const up = g.op('MatMul', [x, ctx.weight(`${prefix}.up.weight`)], {}, { tag: 'ffn' });
    hidden = addActivation(ctx, config.activation, up);
  }
  return g.op('MatMul', [hidden, ctx.weight(`${prefix}.down.weight`)], {}, { tag: 'ffn' });
}
