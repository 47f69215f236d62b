/**
 * The dense feed-forward block: `down(act(x @ up))`, or SwiGLU `down(silu(x @ gate) * (x @ up))`. GELU is the
 * exact erf form (ONNX `Gelu`, approximate "none"); SiLU is ONNX Runtime's `QuickGelu` with α = 1
 * (x·σ(x)); ReLU is ONNX `Relu`.
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

/** Adds the MLP whose weights are `${prefix}.{gate,up,down}.weight` over `x` (`[…, D]`); returns `[…, D]`. */
export function addMlp(ctx: GraphContext, prefix: string, x: string): string {
  const { g, config } = ctx;
  const f = Math.round(config.expansion * config.dim);
  let hidden: string;
  if (config.useSwiglu) {
    // Gate and up in one product over [D, 2F], then split.
    const fused = ctx.derived(`${prefix}.gate_up.fused`, [config.dim, 2 * f], () =>
      concatColumns(config.dim, [
        { data: ctx.data(`${prefix}.gate.weight`), cols: f },
        { data: ctx.data(`${prefix}.up.weight`), cols: f },
      ]),
    );
    const both = g.op('MatMul', [x, fused], {}, { tag: 'ffn' });
    const [gate, up] = g.node('Split', [both, g.int64([f, f])], 2, { axis: { int: -1 } }) as [string, string];
    hidden = g.op('Mul', [addActivation(ctx, 'silu', gate), up]);
  } else {
    const up = g.op('MatMul', [x, ctx.weight(`${prefix}.up.weight`)], {}, { tag: 'ffn' });
    hidden = addActivation(ctx, config.activation, up);
  }
  return g.op('MatMul', [hidden, ctx.weight(`${prefix}.down.weight`)], {}, { tag: 'ffn' });
}
