/**
 * The ONNX graph of a built-in decoder with the Hugging Face decoder-with-past I/O (what
 * `optimum-cli export onnx --task text-generation-with-past` produces and transformers.js runs):
 *
 * - inputs `input_ids` int64 `[batch_size, sequence_length]`, `attention_mask` int64
 *   `[batch_size, total_sequence_length]`, `position_ids` int64 `[batch_size, sequence_length]`,
 *   `past_key_values.{i}.key/.value` float32 `[batch_size, kvHeads, past_sequence_length, headSize]`;
 * - outputs `logits` float32 `[batch_size, sequence_length, vocab]` and `present.{i}.key/.value`
 *   `[batch_size, kvHeads, total_sequence_length, headSize]` (past followed by the new keys/values).
 *
 * The embedding, norms and MLPs are the built-in graph's blocks (`../onnx/`, with unfused weights), so the two
 * graphs compute them alike; attention is this layout's own: rotate-half RoPE (base 10000, at `position_ids`) on
 * `[batch, heads, seq, headSize]` from full-width `rope.cos`/`rope.sin` tables, the additive mask derived from the
 * int64 `attention_mask` (causal, optional sliding window), GQA by broadcasting each KV head over its query group,
 * and the cache in the HF layout above. Its logits equal the reference model's. Initializers keep the canonical
 * weight names and shapes.
 *
 * @packageDocumentation
 */

import { TENSOR_TYPES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { ModelConfig } from '../model-config.js';
import { addEmbedding, rotaryTables } from '../onnx/embedding.js';
import { GraphBuilder } from '../onnx/graph-builder.js';
import { GraphContext } from '../onnx/graph-context.js';
import { addLinear } from '../onnx/linear.js';
import { addMlp } from '../onnx/mlp.js';
import { addNorm } from '../onnx/norm.js';
import { FP32_PRECISION, type WeightPrecision } from '../onnx/precision.js';
import { transpose } from '../onnx/weight-layout.js';
import type { WeightMap } from '../weights.js';

const MASKED = -1e9;

/** Why `config` has no Hugging Face decoder layout, or `undefined` when it can be exported. */
export function hfExportBlocker(config: ModelConfig): string | undefined {
  if (config.paradigm !== 'ar') return `paradigm "${config.paradigm}" is not autoregressive`;
  if (config.ffn !== 'mlp') return 'the FFN is a mixture of experts';
  if (config.posEncoding === 'learned') {
    if (config.norm !== 'layernorm' || config.useSwiglu)
      return 'learned positions need LayerNorm and a plain MLP (gpt2)';
    if (config.slidingWindow) return 'gpt2 has no sliding window';
    if (config.kvHeads !== config.nHeads) return 'gpt2 has no grouped-query attention';
    return undefined;
  }
  if (config.posEncoding === 'rotary') {
    if (config.norm !== 'rmsnorm' || !config.useSwiglu)
      return 'rotary positions need RMSNorm and a gated (SwiGLU) MLP (llama)';
    return undefined;
  }
  return `position encoding "${config.posEncoding}" has no Hugging Face model type`;
}

/**
 * Rotary tables `[maxContext, headSize]` (both halves repeat the built-in graph's `[maxContext, headSize/2]`
 * tables) gathered at `position_ids` as `[B, 1, T, hs]`.
 */
function ropeTables(ctx: GraphContext): { cos: string; sin: string } {
  return ctx.memo('rope', () => {
    const { g, config } = ctx;
    const { maxContext: n, headSize: hs } = config;
    const half = hs / 2;
    const tables = rotaryTables(config);
    const at = (name: string, table: Float32Array): string => {
      const full = new Float32Array(n * hs);
      for (let p = 0; p < n; p++) {
        const row = table.subarray(p * half, (p + 1) * half);
        full.set(row, p * hs);
        full.set(row, p * hs + half);
      }
      const positions = ctx.inputs.positionIds ?? '';
      const rows = g.op('Gather', [g.floatInit(name, [n, hs], full), positions], { axis: { int: 0 } });
      return g.op('Unsqueeze', [rows, g.int64([1])]);
    };
    return { cos: at('rope.cos', tables.cos), sin: at('rope.sin', tables.sin) };
  });
}

/** Applies rotate-half RoPE to `x` `[B, heads, T, hs]`. */
function rope(ctx: GraphContext, x: string): string {
  const { g } = ctx;
  const { cos, sin } = ropeTables(ctx);
  const half = ctx.config.headSize / 2;
  const axis = g.int64([-1]);
  const lo = g.op('Slice', [x, g.int64([0]), g.int64([half]), axis]);
  const hi = g.op('Slice', [x, g.int64([half]), g.int64([2 * half]), axis]);
  const rotated = g.op('Concat', [g.op('Neg', [hi]), lo], { axis: { int: -1 } });
  return g.op('Add', [g.op('Mul', [x, cos]), g.op('Mul', [rotated, sin])]);
}

/** Self-attention of `blocks.{i}` over `h` `[B, T, D]`, declaring the layer's `present.{i}.*` outputs. */
function attention(ctx: GraphContext, h: string, i: number): string {
  const { g, config } = ctx;
  const { nHeads, kvHeads, headSize: hs } = config;
  const b = `blocks.${i}.attn`;
  const heads = (w: string, n: number): string => {
    const projected = addLinear(ctx, h, ctx.matrix(`${b}.${w}.weight`), 'attention:proj');
    const split = g.op('Reshape', [projected, g.int64([0, 0, n, hs])]);
    return g.op('Transpose', [split], { perm: { ints: [0, 2, 1, 3] } });
  };
  let q = heads('q', nHeads);
  let k = heads('k', kvHeads);
  const v = heads('v', kvHeads);
  if (config.posEncoding === 'rotary') {
    q = rope(ctx, q);
    k = rope(ctx, k);
  }
  // Concat writes the graph outputs directly (no Identity copy): present = past followed by the new rows.
  const present = (kind: string, rows: string): string => {
    const past = `past_key_values.${i}.${kind}`;
    const out = g.op('Concat', [past, rows], { axis: { int: 2 } }, { output: `present.${i}.${kind}` });
    return g.output(out, 'float32', ['batch_size', kvHeads, 'total_sequence_length', hs]);
  };
  const key = present('key', k);
  const value = present('value', v);
  const mask = ctx.inputs.attentionMask;
  const scaledQ = g.op('Mul', [q, g.float([1 / Math.sqrt(hs)])]);
  const group = nHeads / kvHeads;
  let ctxOut: string;
  if (group === 1) {
    const kT = g.op('Transpose', [key], { perm: { ints: [0, 1, 3, 2] } });
    const scores = g.op('Add', [g.op('MatMul', [scaledQ, kT]), mask]);
    ctxOut = g.op('MatMul', [g.op('Softmax', [scores], { axis: { int: -1 } }), value]);
  } else {
    // q [B, kvH, group, T, hs] against k/v [B, kvH, 1, S, hs]: MatMul broadcasts each KV head over its group.
    const q5 = g.op('Reshape', [scaledQ, g.int64([0, kvHeads, group, -1, hs])]);
    const axis2 = g.int64([2]);
    const k5 = g.op('Transpose', [g.op('Unsqueeze', [key, axis2])], { perm: { ints: [0, 1, 2, 4, 3] } });
    const v5 = g.op('Unsqueeze', [value, axis2]);
    const mask5 = g.op('Unsqueeze', [mask, g.int64([1])]);
    const scores = g.op('Add', [g.op('MatMul', [q5, k5]), mask5]);
    const out5 = g.op('MatMul', [g.op('Softmax', [scores], { axis: { int: -1 } }), v5]);
    ctxOut = g.op('Reshape', [out5, g.int64([0, nHeads, -1, hs])]);
  }
  const merged = g.op('Reshape', [
    g.op('Transpose', [ctxOut], { perm: { ints: [0, 2, 1, 3] } }),
    g.int64([0, 0, nHeads * hs]),
  ]);
  return addLinear(ctx, merged, ctx.matrix(`${b}.o.weight`), 'attention:proj');
}

/** Additive attention mask `[B, 1, T, S]`: 0 where query t (absolute position S−T+t) may see key s, else −1e9. */
function buildMask(g: GraphBuilder, config: ModelConfig): string {
  const scalar = (v: number): string => g.int64([v], []);
  const dimOf = (x: string): string => g.op('Gather', [g.op('Shape', [x]), scalar(1)], { axis: { int: 0 } });
  const t = dimOf('input_ids');
  const s = dimOf('attention_mask');
  const qpos = g.op('Range', [g.op('Sub', [s, t]), s, scalar(1)]);
  const kpos = g.op('Range', [scalar(0), s, scalar(1)]);
  const diff = g.op('Sub', [
    g.op('Unsqueeze', [qpos, g.int64([1])]),
    g.op('Unsqueeze', [kpos, g.int64([0])]),
  ]);
  let allowed = g.op('GreaterOrEqual', [diff, scalar(0)]);
  if (config.slidingWindow) {
    allowed = g.op('And', [allowed, g.op('LessOrEqual', [diff, scalar(config.contextWindow)])]);
  }
  const keep = g.op('Cast', ['attention_mask'], { to: { int: TENSOR_TYPES.bool.onnx } });
  const both = g.op('And', [
    g.op('Unsqueeze', [allowed, g.int64([0])]),
    g.op('Unsqueeze', [keep, g.int64([1])]),
  ]);
  const additive = g.op('Where', [both, g.float([0]), g.float([MASKED])]);
  return g.op('Unsqueeze', [additive, g.int64([1])]);
}

/**
 * Builds the decoder graph of `config` with `weights` (canonical names, checked by the caller), its matrices
 * stored in `precision`.
 *
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` when the architecture has no Hugging Face layout
 *   (see {@link hfExportBlocker}).
 */
export function buildHfDecoderGraph(
  config: ModelConfig,
  weights: WeightMap,
  precision: WeightPrecision = FP32_PRECISION,
): { graph: GraphBuilder; quantized: ReadonlyMap<string, string> } {
  const blocker = hfExportBlocker(config);
  if (blocker !== undefined) throw new DantinoxError('UNSUPPORTED', messages.hfExportUnsupported(blocker));
  const g = new GraphBuilder();
  const tokens = ['batch_size', 'sequence_length'];
  const inputIds = g.input('input_ids', 'int64', tokens);
  g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  const positionIds = g.input('position_ids', 'int64', tokens);
  const cacheDims = ['batch_size', config.kvHeads, 'past_sequence_length', config.headSize];
  for (let i = 0; i < config.numBlocks; i++) {
    for (const kind of ['key', 'value']) g.input(`past_key_values.${i}.${kind}`, 'float32', cacheDims);
  }
  const inputs = { inputIds, positionIds, attentionMask: buildMask(g, config) };
  // Unfused weights: the file's initializers keep the canonical names and shapes.
  const ctx = new GraphContext(g, config, weights, inputs, { fuseWeights: false, precision });
  let x = addEmbedding(ctx);
  for (let i = 0; i < config.numBlocks; i++) {
    x = g.op('Add', [x, attention(ctx, addNorm(ctx, `blocks.${i}.norm1`, x), i)]);
    x = g.op('Add', [x, addMlp(ctx, `blocks.${i}.mlp`, addNorm(ctx, `blocks.${i}.norm2`, x))]);
  }
  const h = addNorm(ctx, 'norm_f', x);
  let logits: string;
  if (config.weightTying && (precision.headDtype === 'fp32' || precision.headDtype === 'fp16')) {
    // The tied head reads the embedding itself (in the embedding's precision): no second copy in the file.
    const head = g.op('Transpose', [ctx.weight('embed.weight')], { perm: { ints: [1, 0] } });
    logits = g.op('MatMul', [h, head], {}, { output: 'logits' });
  } else {
    const head = config.weightTying
      ? {
          name: 'lm_head.weight',
          k: config.dim,
          n: config.vocabSize,
          data: () => transpose(ctx.data('embed.weight'), config.vocabSize, config.dim),
        }
      : ctx.matrix('lm_head.weight');
    logits = addLinear(ctx, h, { ...head, head: true }, 'lm_head', 'logits');
  }
  g.output(logits, 'float32', [...tokens, config.vocabSize]);
  return { graph: g, quantized: ctx.quantized };
}
