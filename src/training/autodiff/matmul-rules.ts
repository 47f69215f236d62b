/**
 * Matrix products: `MatMul` (NumPy semantics: batched over leading axes, broadcast) and `Gemm` (2-D, with
 * `transA`/`transB`, used by gradients). The gradient of `x @ W` for a weight matrix `W` `[K, N]` and activations
 * `x` `[…, K]` is two products: `dx = dy @ Wᵀ` and `dW = x₂ᵀ @ dy₂` over the activations flattened to rows
 * (`Gemm` with `transA`, one product over every token) — the 2 × forward FLOPs of the usual 3 × training count.
 *
 * @packageDocumentation
 */
import type { ValueInfo } from './diff-graph.js';
import type { GradientContext, InferContext, OpRule } from './op-rules.js';
import { inputInfo, intAttr } from './op-rules.js';
import { broadcastShapes, type Shape, sizeOf } from './shape.js';

function matmulShape(a: Shape, b: Shape): Shape {
  if (a.length < 2 || b.length < 2) throw new Error('MatMul needs inputs of rank ≥ 2 here');
  const k = a[a.length - 1] as number;
  if (b[b.length - 2] !== k)
    throw new Error(`MatMul inner dimensions differ: [${a.join(',')}] @ [${b.join(',')}]`);
  const batch = broadcastShapes([a.slice(0, -2), b.slice(0, -2)]);
  if (batch === undefined) throw new Error('MatMul batch dimensions do not broadcast');
  return [...batch, a[a.length - 2] as number, b[b.length - 1] as number];
}

/** The last two axes of a rank-`rank` tensor swapped: the permutation of a batched transpose. */
function swapLast(rank: number): number[] {
  const perm = Array.from({ length: rank }, (_, i) => i);
  perm[rank - 2] = rank - 1;
  perm[rank - 1] = rank - 2;
  return perm;
}

function matmulGrad({ d, node, dy, needs }: GradientContext): (string | undefined)[] {
  const g = dy[0] as string;
  const [a, b] = node.inputs as [string, string];
  const sa = d.shape(a);
  const sb = d.shape(b);
  if (sb.length === 2) {
    // x [..., K] @ W [K, N]: one product per gradient over the rows of every batch.
    const [k, n] = sb as [number, number];
    const rows = sizeOf(sa) / k;
    const g2 = d.reshape(g, [rows, n]);
    const da = needs[0] ? d.reshape(d.op1('Gemm', [g2, b], { transB: { int: 1 } }), sa) : undefined;
    const db = needs[1] ? d.op1('Gemm', [d.reshape(a, [rows, k]), g2], { transA: { int: 1 } }) : undefined;
    return [da, db];
  }
  const da = needs[0] ? d.sumTo(d.op1('MatMul', [g, d.transpose(b, swapLast(sb.length))]), sa) : undefined;
  const db = needs[1] ? d.sumTo(d.op1('MatMul', [d.transpose(a, swapLast(sa.length)), g]), sb) : undefined;
  return [da, db];
}

function gemmShape(ctx: InferContext): ValueInfo[] {
  const a = inputInfo(ctx, 0).shape;
  const b = inputInfo(ctx, 1).shape;
  if (a.length !== 2 || b.length !== 2) throw new Error('Gemm needs 2-D inputs');
  const [m, ka] = intAttr(ctx.attrs, 'transA', 0) ? [a[1], a[0]] : [a[0], a[1]];
  const [kb, n] = intAttr(ctx.attrs, 'transB', 0) ? [b[1], b[0]] : [b[0], b[1]];
  if (ka !== kb) throw new Error(`Gemm inner dimensions differ: ${ka} and ${kb}`);
  return [{ shape: [m as number, n as number], type: 'float32' }];
}

/** Matrix product rules. */
export const MATMUL_RULES: Readonly<Record<string, OpRule>> = {
  MatMul: {
    infer: (ctx) => [
      { shape: matmulShape(inputInfo(ctx, 0).shape, inputInfo(ctx, 1).shape), type: 'float32' },
    ],
    grad: matmulGrad,
  },
  Gemm: { infer: gemmShape },
};
