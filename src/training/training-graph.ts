/**
 * The training graph of a {@link ModelConfig}: the transformer's forward pass written with operators the
 * differentiator knows, its loss, and (in `train` mode) the gradient of the loss with respect to every weight —
 * one ONNX graph that ONNX Runtime's inference build runs. The weights are graph **inputs** under their canonical
 * names (see `weightSpecs`), so one session serves every step with new weights.
 *
 * It computes the same function as the inference graph (`buildTransformerGraph`) and the reference model, with the
 * same weights: embedding (+ learned or sinusoidal positions), pre-norm blocks `x + attn(norm1(x))`,
 * `x + ffn(norm2(x))`, final norm, LM head (the transposed embedding when tied). Attention groups the query heads
 * by KV head (`[B, kvHeads, group · T, headSize]`, as the inference graph does), so grouped-query attention needs
 * no repeated keys; the causal, bidirectional and sliding-window masks are one additive constant.
 *
 * Inputs: every weight; `input_ids` int32 `[B, T]`; `targets` int64 `[B·T, 1]`; `loss_weights` float32
 * `[B·T, 1]`; in `train` mode with dropout, `dropout.{i}` uint8 `[B, T, D]` keep-masks (1 keeps, 0 drops), for the
 * embedding's output (i = 0) and each block's attention and FFN outputs (2·block + 1, 2·block + 2). Outputs:
 * `loss` = −Σ loss_weights ⊙ log p(target) (a mean when the weights sum to 1, a sum when they are all 1) and, in
 * `train` mode, `grad.<weight>` for every weight.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelConfig } from '../models/model-config.js';
import { isVisible } from '../models/onnx/attention-mask.js';
import { rotaryTables, sinusoidalTable } from '../models/onnx/embedding.js';
import type { ExternalDataEntry } from '../models/onnx/graph-builder.js';
import { NORM_EPSILON } from '../models/onnx/norm.js';
import { weightSpecs } from '../models/weights.js';
import { DiffGraph } from './autodiff/diff-graph.js';

/** Options of {@link buildTrainingGraph}. */
export interface TrainingGraphOptions {
  /** Sequences per batch B. */
  readonly batch: number;
  /** Tokens per sequence T (≤ `maxContext`). */
  readonly seq: number;
  /** `train`: loss and every weight's gradient; `eval`: the loss only (no dropout). */
  readonly mode: 'train' | 'eval';
}

/** A built training graph. */
export interface TrainingGraph {
  /** The graph; its large constants (rotary and position tables, the attention mask) are in `externalData`. */
  readonly model: Uint8Array;
  /** The large constants, for the session's `externalData` option. */
  readonly externalData: readonly ExternalDataEntry[];
  /** The weight inputs, in canonical order. */
  readonly weights: readonly string[];
  /** Names of the dropout keep-mask inputs (empty without dropout), each `[B, T, D]` uint8. */
  readonly dropoutMasks: readonly string[];
}

/** Name of the gradient output of weight `name`. */
export function gradientName(name: string): string {
  return `grad.${name}`;
}

/** Names of the non-weight inputs and the loss output. */
export const TRAINING_IO = Object.freeze({
  /** int32 `[B, T]` token ids. */
  inputIds: 'input_ids',
  /** int64 `[B·T, 1]` target ids. */
  targets: 'targets',
  /** float32 `[B·T, 1]` loss weights. */
  lossWeights: 'loss_weights',
  /** The scalar loss output. */
  loss: 'loss',
});

/**
 * Why the trainer cannot train `config`, or `undefined` when it can: a mixture-of-experts FFN (its routing is
 * a discrete top-k choice the differentiator has no rule for, and training it well needs a load-balancing loss).
 */
export function trainingBlocker(config: ModelConfig): string | undefined {
  if (config.ffn === 'moe') return messages.trainMoe();
  return undefined;
}

/**
 * Builds the training (or evaluation) graph of `config` at a fixed batch and sequence length.
 *
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` for a config the trainer cannot train ({@link trainingBlocker});
 * `INVALID_OPTION` for a sequence longer than `maxContext`.
 */
export function buildTrainingGraph(config: ModelConfig, options: TrainingGraphOptions): TrainingGraph {
  const blocker = trainingBlocker(config);
  if (blocker !== undefined) throw new DantinoxError('UNSUPPORTED', blocker);
  const { batch: b, seq: t, mode } = options;
  if (t > config.maxContext)
    throw new DantinoxError('INVALID_OPTION', messages.trainSeqTooLong(t, config.maxContext));
  const d = new DiffGraph();
  const specs = weightSpecs(config);
  const weights = specs.map((s) => d.input(s.name, 'float32', s.dims));
  const ids = d.input(TRAINING_IO.inputIds, 'int32', [b, t]);
  const targets = d.input(TRAINING_IO.targets, 'int64', [b * t, 1]);
  const lossWeights = d.input(TRAINING_IO.lossWeights, 'float32', [b * t, 1]);
  const dropout = mode === 'train' && config.dropout > 0;
  const dropoutMasks: string[] = [];
  const drop = (x: string): string => {
    if (!dropout) return x;
    const mask = d.input(`dropout.${dropoutMasks.length}`, 'uint8', [b, t, config.dim]);
    dropoutMasks.push(mask);
    const keep = d.op1('Mul', [
      d.op1('Cast', [mask], { to: { int: 1 } }),
      d.float([1 / (1 - config.dropout)]),
    ]);
    return d.op1('Mul', [x, keep]);
  };
  const positions = d.int64(
    Array.from({ length: b * t }, (_, i) => i % t),
    [b, t],
  );
  const model = { d, config, b, t, positions };
  let x = drop(embed(model, ids));
  for (let i = 0; i < config.numBlocks; i++) {
    const p = `blocks.${i}`;
    x = d.op1('Add', [x, drop(attention(model, i, norm(model, `${p}.norm1`, x)))]);
    x = d.op1('Add', [x, drop(mlp(model, `${p}.mlp`, norm(model, `${p}.norm2`, x)))]);
  }
  const h = d.reshape(norm(model, 'norm_f', x), [b * t, config.dim]);
  const head = config.weightTying ? d.transpose('embed.weight', [1, 0]) : 'lm_head.weight';
  const logProbs = d.op1('LogSoftmax', [d.op1('MatMul', [h, head])], { axis: { int: -1 } });
  const picked = d.op1('GatherElements', [logProbs, targets], { axis: { int: 1 } });
  const loss = d.op1('Neg', [
    d.op1('ReduceSum', [d.op1('Mul', [picked, lossWeights])], { keepdims: { int: 0 } }),
  ]);
  d.output(loss, TRAINING_IO.loss);
  if (mode === 'train') {
    const grads = d.gradients(loss, weights);
    for (const [i, w] of weights.entries()) d.output(grads[i] as string, gradientName(w));
  }
  return { model: d.builder.encode(), externalData: d.builder.externalData, weights, dropoutMasks };
}

/** What the block builders share. */
interface ModelParts {
  readonly d: DiffGraph;
  readonly config: ModelConfig;
  readonly b: number;
  readonly t: number;
  /** int64 `[B, T]` positions 0 … T − 1. */
  readonly positions: string;
}

function embed({ d, config, t, positions }: ModelParts, ids: string): string {
  const tokens = d.op1('Gather', ['embed.weight', ids], { axis: { int: 0 } });
  if (config.posEncoding === 'learned')
    return d.op1('Add', [tokens, d.op1('Gather', ['pos.weight', positions], { axis: { int: 0 } })]);
  if (config.posEncoding === 'absolute') {
    const table = sinusoidalTable(config).subarray(0, t * config.dim);
    return d.op1('Add', [tokens, d.constant('sinusoidal_table', [t, config.dim], table)]);
  }
  return tokens;
}

function norm({ d, config }: ModelParts, prefix: string, x: string): string {
  const attrs = { axis: { int: -1 }, epsilon: { float: NORM_EPSILON } };
  if (config.norm === 'layernorm')
    return d.op('LayerNormalization', [x, `${prefix}.weight`, `${prefix}.bias`], attrs, {
      outputs: 3,
    })[0] as string;
  return d.op('SimplifiedLayerNormalization', [x, `${prefix}.weight`], attrs, { outputs: 2 })[0] as string;
}

/** Rotary cos/sin tables `[maxContext, headSize/2]` (the inference graph's), added once. */
function rotary(d: DiffGraph, config: ModelConfig): { cos: string; sin: string } {
  if (!d.has('rotary_cos')) {
    const { cos, sin } = rotaryTables(config);
    const dims = [config.maxContext, config.headSize / 2];
    d.constant('rotary_cos', dims, cos);
    d.constant('rotary_sin', dims, sin);
  }
  return { cos: 'rotary_cos', sin: 'rotary_sin' };
}

/** The additive mask `[group · T, T]` (0 visible, −∞ hidden) of the config's attention pattern. */
export function trainingAttentionMask(config: ModelConfig, t: number): Float32Array {
  const group = config.nHeads / config.kvHeads;
  const out = new Float32Array(group * t * t);
  for (let row = 0; row < group * t; row++) {
    const q = row % t;
    for (let k = 0; k < t; k++) if (!isVisible(config, q, k)) out[row * t + k] = Number.NEGATIVE_INFINITY;
  }
  return out;
}

function attention(parts: ModelParts, layer: number, h: string): string {
  const { d, config, b, t, positions } = parts;
  const { nHeads: heads, kvHeads, headSize: hs } = config;
  const group = heads / kvHeads;
  const p = `blocks.${layer}.attn`;
  let q = d.op1('MatMul', [h, `${p}.q.weight`]);
  let k = d.op1('MatMul', [h, `${p}.k.weight`]);
  const v = d.op1('MatMul', [h, `${p}.v.weight`]);
  if (config.posEncoding === 'rotary') {
    const { cos, sin } = rotary(d, config);
    const rope = (x: string, n: number): string =>
      d.op1('RotaryEmbedding', [x, positions, cos, sin], { num_heads: { int: n }, interleaved: { int: 0 } });
    q = rope(q, heads);
    k = rope(k, kvHeads);
  }
  q = d.op1('Mul', [q, d.float([1 / Math.sqrt(hs)])]);
  // Queries grouped by KV head: [B, T, kvH, group, hs] → [B, kvH, group·T, hs]; keys as [B, kvH, hs, T].
  const qg = d.reshape(d.transpose(d.reshape(q, [b, t, kvHeads, group, hs]), [0, 2, 3, 1, 4]), [
    b,
    kvHeads,
    group * t,
    hs,
  ]);
  const kt = d.transpose(d.reshape(k, [b, t, kvHeads, hs]), [0, 2, 3, 1]);
  const vt = d.transpose(d.reshape(v, [b, t, kvHeads, hs]), [0, 2, 1, 3]);
  const mask = maskConstant(d, config, t);
  const probs = d.op1('Softmax', [d.op1('Add', [d.op1('MatMul', [qg, kt]), mask])], { axis: { int: -1 } });
  const o = d.op1('MatMul', [probs, vt]);
  const merged = d.reshape(d.transpose(d.reshape(o, [b, kvHeads, group, t, hs]), [0, 3, 1, 2, 4]), [
    b,
    t,
    config.dim,
  ]);
  return d.op1('MatMul', [merged, `${p}.o.weight`]);
}

function maskConstant(d: DiffGraph, config: ModelConfig, t: number): string {
  if (d.has('attention_mask')) return 'attention_mask';
  const group = config.nHeads / config.kvHeads;
  return d.constant('attention_mask', [group * t, t], trainingAttentionMask(config, t));
}

function mlp({ d, config }: ModelParts, prefix: string, h: string): string {
  const up = d.op1('MatMul', [h, `${prefix}.up.weight`]);
  let hidden: string;
  if (config.useSwiglu) {
    const gate = d.op1('MatMul', [h, `${prefix}.gate.weight`]);
    hidden = d.op1('Mul', [silu(d, gate), up]);
  } else if (config.activation === 'gelu') {
    hidden = d.op1('Gelu', [up], { approximate: { string: 'none' } });
  } else if (config.activation === 'relu') {
    hidden = d.op1('Relu', [up]);
  } else {
    hidden = silu(d, up);
  }
  return d.op1('MatMul', [hidden, `${prefix}.down.weight`]);
}

function silu(d: DiffGraph, x: string): string {
  return d.op1('Mul', [x, d.op1('Sigmoid', [x])]);
}
