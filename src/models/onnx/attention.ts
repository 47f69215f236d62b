/**
 * The attention block: Q/K/V projections, rotary positions (ONNX Runtime `RotaryEmbedding`, rotate-half), and
 * scaled dot-product attention of the new tokens over **past keys + new keys**, in one graph that serves a
 * full forward pass, a prefill and a KV-cache decode step.
 *
 * The KV cache is time-major, `[P, B, kvHeads, headSize]`, so that the first `c` positions of a cache buffer
 * are one contiguous view: the session reads the cache in place (ONNX Runtime wraps the JavaScript array) and
 * only the new tokens' keys/values leave the graph (`present_*`, `[T, B, kvHeads, headSize]`). Scores against
 * the past use `com.microsoft.FusedMatMul` with `transBatchB` (the batch/head axes of the time-major cache are
 * addressed by strides, not transposed). GQA needs no K/V repetition: queries are grouped as
 * `[B, kvHeads, group · T, headSize]` against `[B, kvHeads, ·, headSize]` keys.
 *
 * Masking is one additive input `attention_mask` `[maskBatch, group · T, P + T]` (0 or −∞) built by the caller:
 * causal or bidirectional, sliding window, the masked placeholder past row used when there is no cache, and (with
 * `maskBatch = B`, one mask per row) the cache columns a row does not use when rows of different lengths share the
 * cache (see `kv-cache.ts`).
 *
 * @packageDocumentation
 */
import { rotaryTables } from './embedding.js';
import { MS_DOMAIN } from './graph-builder.js';
import type { GraphContext } from './graph-context.js';
import { addLinear } from './linear.js';
import { concatColumns } from './weight-layout.js';

/** Node tags read by the FLOPs counter. */
export const ATTENTION_TAGS = { scores: 'attention:scores', values: 'attention:values' } as const;

/** Names of the per-layer cache inputs and outputs. */
export function cacheNames(layer: number): {
  pastKey: string;
  pastValue: string;
  presentKey: string;
  presentValue: string;
} {
  return {
    pastKey: `past_key.${layer}`,
    pastValue: `past_value.${layer}`,
    presentKey: `present_key.${layer}`,
    presentValue: `present_value.${layer}`,
  };
}

function scaled(data: Float32Array, factor: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = (data[i] as number) * factor;
  return out;
}

function rotary(ctx: GraphContext): { cos: string; sin: string } {
  return ctx.memo('rotary', () => {
    const { cos, sin } = rotaryTables(ctx.config);
    const dims = [ctx.config.maxContext, ctx.config.headSize / 2];
    return { cos: ctx.g.floatInit('rotary_cos', dims, cos), sin: ctx.g.floatInit('rotary_sin', dims, sin) };
  });
}

/**
 * Adds self-attention of `blocks.{layer}` over the normalised hidden states `h` `[B, T, D]`, declaring the
 * layer's `past_key/value.{layer}` inputs and `present_key/value.{layer}` outputs; returns the output
 * projection `[B, T, D]`.
 */
export function addAttention(ctx: GraphContext, layer: number, h: string): string {
  const { g, config, inputs } = ctx;
  const { nHeads: heads, kvHeads, headSize: hs } = config;
  const group = heads / kvHeads;
  const prefix = `blocks.${layer}.attn`;
  const names = cacheNames(layer);
  const cacheDims = ['past', 'batch', kvHeads, hs];
  const pastKey = g.input(names.pastKey, 'float32', cacheDims);
  const pastValue = g.input(names.pastValue, 'float32', cacheDims);

  // One product for Q, K and V over the column-concatenated weights, then split.
  const d = config.dim;
  const [qCols, kvCols] = [heads * hs, kvHeads * hs];
  // The query columns carry the 1/√headSize score scale, so every product has alpha = 1 (MLAS's streaming
  // M = 1 kernels in decode need it).
  const qkv = addLinear(
    ctx,
    h,
    {
      name: `${prefix}.qkv.fused`,
      k: d,
      n: qCols + 2 * kvCols,
      data: () =>
        concatColumns(d, [
          { data: scaled(ctx.data(`${prefix}.q.weight`), 1 / Math.sqrt(hs)), cols: qCols },
          { data: ctx.data(`${prefix}.k.weight`), cols: kvCols },
          { data: ctx.data(`${prefix}.v.weight`), cols: kvCols },
        ]),
    },
    'attention:proj',
  );
  const [q0, k0, v] = g.node('Split', [qkv, g.int64([qCols, kvCols, kvCols])], 3, { axis: { int: -1 } });
  let q = q0 as string;
  let k = k0 as string;
  if (config.posEncoding === 'rotary' && inputs.positionIds !== undefined) {
    const { cos, sin } = rotary(ctx);
    const rope = (x: string, n: number): string =>
      g.op(
        'RotaryEmbedding',
        [x, inputs.positionIds as string, cos, sin],
        { num_heads: { int: n }, interleaved: { int: 0 } },
        { domain: MS_DOMAIN },
      );
    q = rope(q, heads);
    k = rope(k, kvHeads);
  }

  // New keys/values: [B, T, kvH, hs] → cache rows, time-major [T, B, kvH, hs].
  const headsShape = g.int64([0, 0, kvHeads, hs]);
  const k4 = g.op('Reshape', [k, headsShape]);
  const v4 = g.op('Reshape', [v as string, headsShape]);
  g.op('Transpose', [k4], { perm: { ints: [1, 0, 2, 3] } }, { output: names.presentKey });
  g.op('Transpose', [v4], { perm: { ints: [1, 0, 2, 3] } }, { output: names.presentValue });
  g.output(names.presentKey);
  g.output(names.presentValue);

  // Queries grouped by KV head: [B, T, kvH, group, hs] → [B, kvH, group·T, hs].
  const q5 = g.op('Reshape', [q, g.int64([0, 0, kvHeads, group, hs])]);
  const qt = g.op('Transpose', [q5], { perm: { ints: [0, 2, 3, 1, 4] } });
  const qg = g.op('Reshape', [qt, g.int64([0, 0, -1, hs])]);

  const scoresPast = g.op(
    'FusedMatMul',
    [qg, pastKey],
    { transB: { int: 1 }, transBatchB: { int: 1 } },
    { domain: MS_DOMAIN, tag: ATTENTION_TAGS.scores },
  );
  // The new keys/values are read from the time-major present tensors exactly like the cache.
  const scoresNew = g.op(
    'FusedMatMul',
    [qg, names.presentKey],
    { transB: { int: 1 }, transBatchB: { int: 1 } },
    { domain: MS_DOMAIN, tag: ATTENTION_TAGS.scores },
  );
  const scores = g.op('Add', [
    g.op('Concat', [scoresPast, scoresNew], { axis: { int: -1 } }),
    inputs.attentionMask,
  ]);
  const probs = g.op('Softmax', [scores], { axis: { int: -1 } });
  const past = g.op('Shape', [pastKey], { start: { int: 0 }, end: { int: 1 } });
  const axis = g.int64([-1]);
  const probsPast = g.op('Slice', [probs, g.int64([0]), past, axis]);
  const probsNew = g.op('Slice', [probs, past, g.int64([2 ** 53 - 1]), axis]);
  const outPast = g.op(
    'FusedMatMul',
    [probsPast, pastValue],
    { transBatchB: { int: 1 } },
    { domain: MS_DOMAIN, tag: ATTENTION_TAGS.values },
  );
  const outNew = g.op(
    'FusedMatMul',
    [probsNew, names.presentValue],
    { transBatchB: { int: 1 } },
    { domain: MS_DOMAIN, tag: ATTENTION_TAGS.values },
  );
  const og = g.op('Reshape', [g.op('Add', [outPast, outNew]), g.int64([0, 0, group, -1, hs])]);
  const ot = g.op('Transpose', [og], { perm: { ints: [0, 3, 1, 2, 4] } });
  const o = g.op('Reshape', [ot, g.int64([0, 0, -1])]);
  return addLinear(ctx, o, ctx.matrix(`${prefix}.o.weight`), 'attention:proj');
}
