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
import { addLinear } from './linear.js';
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
  const project = (w: string): string => addLinear(ctx, x, ctx.matrix(`${prefix}.${w}.weight`), 'ffn');
  if (!ctx.fuseWeights) return [project('gate'), project('up')];
  const fused = {
    name: `${prefix}.gate_up.fused`,
    k: config.dim,
    n: 2 * f,
    data: () =>
      concatColumns(config.dim, [
        { data: ctx.data(`${prefix}.gate.weight`), cols: f },
        { data: ctx.data(`${prefix}.up.weight`), cols: f },
      ]),
  };
  const both = addLinear(ctx, x, fused, 'ffn');
  return g.node('Split', [both, g.int64([f, f])], 2, { axis: { int: -1 } }) as [string, string];
}

/** Adds the MLP whose weights are `${prefix}.{gate,up,down}.weight` over `x` (`[…, D]`); returns `[…, D]`. */
export function addMlp(ctx: GraphContext, prefix: string, x: string): string {
  const { g, config } = ctx;
  const project = (w: string, input: string): string =>
    addLinear(ctx, input, ctx.matrix(`${prefix}.${w}.weight`), 'ffn');
  let hidden: string;
  if (config.useSwiglu) {
    const [gate, up] = addGateUp(ctx, prefix, x, Math.round(config.expansion * config.dim));
    hidden = g.op('Mul', [addActivation(ctx, 'silu', gate), up]);
  } else {
    hidden = addActivation(ctx, config.activation, project('up', x));
  }
  return project('down', hidden);
}
