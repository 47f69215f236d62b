/**
 * The mixture-of-experts block, **routed** (only the selected experts run on each token):
 *
 * 1. router logits `x @ router` `[N, E]`, softmax, `TopK(topK)` (ties go to the lower expert index, as in the
 *    reference), the selected probabilities renormalised to sum to 1;
 * 2. for each expert e: the rows whose top-k contains e (`NonZero`), gathered into `[n_e, D]`, run through the
 *    expert's MLP, scaled by their routing weight and added back with `ScatterND(reduction = add)`.
 *
 * Every token visits exactly `topK` experts, so Σ n_e = N · topK: the graph executes the FLOPs of
 * `countFlops(…, { moe: 'active' })`. The FLOPs counter over the graph charges each expert
 * `N · topK / nExperts` rows (the mean of the data-dependent n_e), which makes the total exact.
 *
 * @packageDocumentation
 */
import type { GraphContext } from './graph-context.js';
import { addLinear } from './linear.js';
import { addMlp } from './mlp.js';

/** Node tag of the `NonZero` that selects an expert's rows (read by the FLOPs counter). */
export const MOE_ROUTE_TAG = 'moe:route';

/** Adds the routed MoE block of `blocks.{layer}` over `x` `[B, T, D]`; returns `[B, T, D]`. */
export function addMoe(ctx: GraphContext, layer: number, x: string): string {
  const { g, config } = ctx;
  const prefix = `blocks.${layer}.moe`;
  const rows = g.op('Reshape', [x, g.int64([-1, config.dim])]);
  const logits = addLinear(ctx, rows, ctx.matrix(`${prefix}.router.weight`), 'router');
  const probs = g.op('Softmax', [logits], { axis: { int: -1 } });
  const [topValues, topIndices] = g.node('TopK', [probs, g.int64([config.topK])], 2, {
    axis: { int: -1 },
    largest: { int: 1 },
    sorted: { int: 1 },
  }) as [string, string];
  const total = g.op('ReduceSum', [topValues, g.int64([-1])], { keepdims: { int: 1 } });
  const weights = g.op('Div', [topValues, total]);
  let acc = g.op('Mul', [rows, g.float([0])]);
  for (let e = 0; e < config.nExperts; e++) {
    const hit = g.op('Cast', [g.op('Equal', [topIndices, g.int64([e], [])])], { to: { int: 1 } });
    const weight = g.op('ReduceSum', [g.op('Mul', [hit, weights]), g.int64([-1])], { keepdims: { int: 0 } });
    const routed = g.op('ReduceMax', [hit, g.int64([-1])], { keepdims: { int: 0 } });
    const selected = g.op('Greater', [routed, g.float([0.5])]);
    const nz = g.op('NonZero', [selected], {}, { tag: MOE_ROUTE_TAG });
    const index2d = g.op('Transpose', [nz], { perm: { ints: [1, 0] } });
    const index = g.op('Squeeze', [index2d, g.int64([1])]);
    const xe = g.op('Gather', [rows, index], { axis: { int: 0 } });
    const ye = addMlp(ctx, `${prefix}.experts.${e}`, xe);
    const we = g.op('Unsqueeze', [g.op('Gather', [weight, index], { axis: { int: 0 } }), g.int64([1])]);
    acc = g.op('ScatterND', [acc, index2d, g.op('Mul', [ye, we])], { reduction: { string: 'add' } });
  }
  return g.op('Reshape', [acc, g.op('Shape', [x])]);
}
