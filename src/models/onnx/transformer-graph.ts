/**
 * Generates the ONNX graph of a {@link ModelConfig}: embedding, `numBlocks` pre-norm blocks
 * (`x = x + attn(norm1(x)); x = x + ffn(norm2(x))`), final norm and LM head. One graph serves forward passes,
 * prefills and KV-cache decode steps (see `attention.ts` for the cache layout).
 *
 * Graph inputs: `input_ids` int32 `[batch, seq]`; `position_ids` int64 `[batch, seq]` (absent when
 * `posEncoding` is `none`); `attention_mask` float `[maskBatch, group · seq, past + seq]` (`maskBatch` 1: one mask
broadcast over the batch; `batch`: one per row, for rows of different lengths); per layer i
 * `past_key.{i}` / `past_value.{i}` float `[past, batch, kvHeads, headSize]`; `logits_from` int64 `[1]`, the first
 * position whose logits are computed (0: every position; `seq − 1`: only the last, as a generation's prefill
 * needs — the LM head then runs on one row per sequence). Outputs: `logits` `[batch, seq − logits_from, vocab]`
 * and per layer `present_key.{i}` / `present_value.{i}` `[seq, batch, kvHeads, headSize]`.
 *
 * @packageDocumentation
 */
import type { QuantizationInfo } from '../model.js';
import type { ModelConfig } from '../model-config.js';
import type { WeightMap } from '../weights.js';
import { addAttention } from './attention.js';
import { addEmbedding } from './embedding.js';
import { GraphBuilder } from './graph-builder.js';
import { GraphContext, type GraphInputNames } from './graph-context.js';
import { addLinear, linearWeightInputs } from './linear.js';
import { addMlp } from './mlp.js';
import { addMoe } from './moe.js';
import { addNorm, addSkipNorm } from './norm.js';
import { FP32_PRECISION, quantizationInfo, type WeightPrecision } from './precision.js';
import { transpose } from './weight-layout.js';

/** A generated transformer graph, ready for `InferenceSession.create`. */
export interface TransformerGraph {
  /**
   * The graph over views of the weight arrays: encode it, or write it to `model.onnx` + `model.onnx_data` (a
   * streaming builder's weights are already in the data file).
   */
  readonly builder: GraphBuilder;
  /** Whether the graph has a `position_ids` input. */
  readonly hasPositionIds: boolean;
  /** Which matrices are not float32 (absent for an all-float32 graph). */
  readonly quantization?: QuantizationInfo;
}

/**
 * Builds the ONNX graph of `config` over `weights` (which must match the config; see `checkWeights`), its
 * matrices stored in `precision` (checked by `resolvePrecision`), into `g` (a fresh builder by default). Each
 * weight is read from `weights` when its initializer is added, so with a lazy map (`seededWeights`) and a builder
 * that streams to disk (`new GraphBuilder({ streamTo })`) only one weight (or one fused matrix and its parts) is
 * in memory at a time.
 */
export function buildTransformerGraph(
  config: ModelConfig,
  weights: WeightMap,
  precision: WeightPrecision = FP32_PRECISION,
  g: GraphBuilder = new GraphBuilder(),
): TransformerGraph {
  const inputIds = g.input('input_ids', 'int32', ['batch', 'seq']);
  const hasPositionIds = config.posEncoding !== 'none';
  // [maskBatch, group·T, P+T] → [maskBatch, 1, group·T, P+T]: broadcast over the KV heads of the scores
  // [B, kvHeads, group·T, P+T], and over the batch when maskBatch is 1.
  const mask = g.input('attention_mask', 'float32', ['mask_batch', 'mask_rows', 'keys']);
  const inputs: GraphInputNames = {
    inputIds,
    attentionMask: g.op('Unsqueeze', [mask, g.int64([1])]),
    ...(hasPositionIds ? { positionIds: g.input('position_ids', 'int64', ['batch', 'seq']) } : {}),
  };
  const ctx = new GraphContext(g, config, weights, inputs, { precision });
  // Tied head: a plain MatMul over the transposed embedding [D, V] (prepacked by ONNX Runtime), registered first,
  // while the embedding it is made from is the weight at hand (a lazy weight map would compute it twice).
  const tiedHead = {
    name: 'embed.weight.transposed',
    k: config.dim,
    n: config.vocabSize,
    data: () => transpose(ctx.data('embed.weight'), config.vocabSize, config.dim),
    head: true,
  };
  if (config.weightTying) linearWeightInputs(ctx, tiedHead);
  // Pre-norm blocks; each residual add is fused with the norm that follows it.
  let x = addEmbedding(ctx);
  let h = addNorm(ctx, 'blocks.0.norm1', x);
  for (let i = 0; i < config.numBlocks; i++) {
    const b = `blocks.${i}`;
    const attn = addAttention(ctx, i, h);
    const [h2, x1] = addSkipNorm(ctx, `${b}.norm2`, attn, x);
    const ffn = config.ffn === 'moe' ? addMoe(ctx, i, h2) : addMlp(ctx, `${b}.mlp`, h2);
    const next = i + 1 < config.numBlocks ? `blocks.${i + 1}.norm1` : 'norm_f';
    [h, x] = addSkipNorm(ctx, next, ffn, x1);
  }
  // Only the positions from `logits_from` on reach the head: [B, T, D] → [B, T − from, D].
  const from = g.input('logits_from', 'int64', [1]);
  const headRows = g.op('Slice', [h, from, g.int64([Number.MAX_SAFE_INTEGER]), g.int64([1])]);
  // A separate head is read only now: its tensor is not held while the blocks are built.
  const head = config.weightTying ? tiedHead : { ...ctx.matrix('lm_head.weight'), head: true };
  addLinear(ctx, headRows, head, 'lm_head', 'logits');
  g.output('logits');
  g.metadata('dantinox.config', JSON.stringify(config));
  const quantization = quantizationInfo(precision, ctx.quantized);
  return { builder: g, hasPositionIds, ...(quantization === undefined ? {} : { quantization }) };
}
