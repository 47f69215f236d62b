/**
 * The one place that emits a matrix product `x @ W` of a weight matrix ({@link addLinear}), in the graph's
 * {@link WeightPrecision}:
 *
 * - `fp32`: `MatMul` over the float32 initializer (ONNX Runtime prepacks it).
 * - `fp16`: a float16 initializer behind a `Cast` to float32 (see `GraphContext.weight`; in an fp16 graph every
 *   weight, embeddings and norms included, is stored so), which ONNX Runtime's constant folding turns into a
 *   prepacked float32 weight at session creation: half the bytes on disk and in the graph, float32 compute.
 *   (`npm run bench:quant` times ONNX Runtime's float16 `MatMul` against it.)
 * - `q8`: `com.microsoft.DynamicQuantizeMatMul`: int8 weights in the 7-bit range (see {@link Q8_MAX_LEVEL})
 *   with one symmetric scale per output column, activations quantized to uint8 per call (the fastest int8 form measured by `npm run bench:quant`, which also
 *   times `MatMulInteger` + `DynamicQuantizeLinear` and the QDQ form).
 * - `q4`: `com.microsoft.MatMulNBits`, 4-bit blocks of `blockSize` K values (a float32 scale and a 4-bit zero
 *   point per block) with `accuracyLevel` (4: int8 activations in the kernel).
 *
 * Only the weight matrices of the projections, MLPs, experts, router and LM head are affected; embeddings, norms
 * and position tables stay float32.
 *
 * @packageDocumentation
 */
import { MS_DOMAIN } from './graph-builder.js';
import type { GraphContext } from './graph-context.js';
import { quantizeBlock4, quantizeInt8 } from './quantize.js';

/**
 * Largest magnitude of a q8 weight: 7 bits (±63), so that u8 × s8 products summed in pairs (x86 AVX2's
 * `vpmaddubsw`, which ONNX Runtime's int8 GEMM uses on CPUs without VNNI) stay below 2¹⁵ and never saturate:
 * 255 · 63 · 2 = 32,130. With ±127 a pair can reach 64,770 and the product is silently wrong.
 */
export const Q8_MAX_LEVEL = 63;

/** A weight matrix `[k, n]` of a product: its initializer name and how to get its float32 values. */
export interface LinearWeight {
  /** Initializer name (a canonical weight name, or a derived one such as `blocks.0.attn.qkv.fused`). */
  readonly name: string;
  /** Rows K (input features). */
  readonly k: number;
  /** Columns N (output features). */
  readonly n: number;
  /** The float32 values, row-major `[k, n]` (called once, when the initializer is registered). */
  readonly data: () => Float32Array;
  /** Whether `name` is a canonical weight (its float32 array is used in place, not copied). */
  readonly canonical?: boolean;
  /** Whether this is the LM head (uses {@link WeightPrecision.headDtype}). */
  readonly head?: boolean;
}

/**
 * Registers the initializers of `w` in the context's precision (once: later calls return the same names) and
 * returns the product's weight inputs: `[W]` (fp32, fp16), `[values, scales]` (q8), `[packed, scales, zeroPoints]`
 * (q4). {@link addLinear} calls it; calling it early registers a derived matrix while its source is at hand.
 */
export function linearWeightInputs(ctx: GraphContext, w: LinearWeight): string[] {
  const { g } = ctx;
  const dtype = w.head ? ctx.precision.headDtype : ctx.precision.dtype;
  if (dtype === 'fp32' || dtype === 'fp16') {
    const half = dtype === 'fp16';
    if (half) ctx.recordQuantized(w.name, dtype);
    return [w.canonical ? ctx.weight(w.name, half) : ctx.derived(w.name, [w.k, w.n], w.data, half)];
  }
  ctx.recordQuantized(w.name, dtype);
  if (dtype === 'q8') {
    return ctx.memo(`${w.name}.q8`, () => {
      const name = `${w.name}.q8`;
      const q = quantizeInt8(w.data(), w.k, w.n, true, Q8_MAX_LEVEL);
      return [
        g.tensorInit(name, [w.k, w.n], 'int8', q.values),
        g.tensorInit(`${name}.scale`, [w.n], 'float32', q.scales),
      ];
    });
  }
  return ctx.memo(`${w.name}.q4`, () => {
    const name = `${w.name}.q4`;
    const q = quantizeBlock4(w.data(), w.k, w.n, ctx.precision.blockSize);
    const blocks = w.k / ctx.precision.blockSize;
    return [
      g.tensorInit(name, [w.n, blocks, ctx.precision.blockSize / 2], 'uint8', q.packed),
      g.tensorInit(`${name}.scale`, [w.n * blocks], 'float32', q.scales),
      g.tensorInit(`${name}.zero_point`, [q.zeroPoints.length], 'uint8', q.zeroPoints),
    ];
  });
}

/** Adds `x @ W` for `w` in the context's precision; returns the product's output name (`output` names it). */
export function addLinear(
  ctx: GraphContext,
  x: string,
  w: LinearWeight,
  tag: string,
  output?: string,
): string {
  const { g } = ctx;
  const dtype = w.head ? ctx.precision.headDtype : ctx.precision.dtype;
  const opts = { tag, ...(output === undefined ? {} : { output }) };
  const weights = linearWeightInputs(ctx, w);
  if (dtype === 'fp32' || dtype === 'fp16') return g.op('MatMul', [x, ...weights], {}, opts);
  if (dtype === 'q8')
    return g.op('DynamicQuantizeMatMul', [x, ...weights], {}, { ...opts, domain: MS_DOMAIN });
  const { blockSize, accuracyLevel } = ctx.precision;
  return g.op(
    'MatMulNBits',
    [x, ...weights],
    {
      K: { int: w.k },
      N: { int: w.n },
      bits: { int: 4 },
      block_size: { int: blockSize },
      accuracy_level: { int: accuracyLevel },
    },
    { ...opts, domain: MS_DOMAIN },
  );
}
