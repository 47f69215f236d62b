/**
 * How a built-in architecture maps onto llama.cpp's: `llama` for rotary + RMSNorm + SwiGLU decoders (dense or
 * routed mixture of experts), `gpt2` for learned positions + LayerNorm + GELU MLP decoders. The metadata keys,
 * tensor names and layouts follow llama.cpp's loaders for those two architectures.
 *
 * Layout conversions: dantinox stores linear weights `[in, out]` row-major (y = x·W); ggml's matrix `ne = [in,
 * out]` is `out` rows of `in` contiguous values, so every matrix is transposed. dantinox's rotary embedding
 * rotates the two halves of a head (pairs (i, i + headSize/2)); llama.cpp's `llama` rotates adjacent pairs
 * (2i, 2i+1), so the query and key rows of each head are interleaved (the product q·k is unchanged).
 *
 * @packageDocumentation
 */

import type { ModelConfig } from '../model-config.js';
import { ROPE_BASE } from '../onnx/embedding.js';
import { NORM_EPSILON } from '../onnx/norm.js';
import type { WeightMap } from '../weights.js';
import type { GgufValue } from './gguf-writer.js';

/** llama.cpp architecture written for a config. */
export type GgufArchitecture = 'llama' | 'gpt2';

/** A tensor in llama.cpp's naming and layout, still float32: `data` is row-major with `ne[0]` contiguous. */
export interface GgufSourceTensor {
  /** llama.cpp tensor name, e.g. `blk.0.attn_q.weight`. */
  readonly name: string;
  /** ggml dimensions, innermost first. */
  readonly ne: readonly number[];
  /** Values, `ne[0]` contiguous. */
  readonly data: Float32Array;
}

/**
 * Why llama.cpp cannot run `config` as written by dantinox, or `undefined` when it can: masked diffusion
 * (llama.cpp's decoders are causal), sliding windows, sinusoidal or no positions, and combinations that neither
 * `llama` nor `gpt2` has.
 */
export function ggufBlocker(config: ModelConfig): string | undefined {
  if (config.paradigm !== 'ar')
    return `the "${config.paradigm}" paradigm (bidirectional masked diffusion); llama.cpp runs causal decoders only`;
  if (config.slidingWindow)
    return 'sliding-window attention (llama.cpp\'s "llama" architecture attends over the whole context)';
  if (config.posEncoding === 'rotary') {
    if (config.norm !== 'rmsnorm' || !config.useSwiglu)
      return 'rotary positions without RMSNorm and SwiGLU (the "llama" architecture needs all three)';
    return undefined;
  }
  if (config.posEncoding === 'learned') {
    if (config.norm !== 'layernorm' || config.useSwiglu || config.activation !== 'gelu')
      return 'learned positions without LayerNorm and a GELU MLP (the "gpt2" architecture needs all three)';
    if (config.ffn === 'moe') return 'a mixture of experts with learned positions ("gpt2" has no experts)';
    if (config.kvHeads !== config.nHeads)
      return 'grouped-query attention with learned positions (dantinox writes "gpt2" for multi-head attention only)';
    return undefined;
  }
  return `"${config.posEncoding}" position encoding (llama.cpp's "llama" needs rotary, "gpt2" learned positions)`;
}

/** The architecture of a config that {@link ggufBlocker} accepts. */
export function ggufArchitectureOf(config: ModelConfig): GgufArchitecture {
  return config.posEncoding === 'learned' ? 'gpt2' : 'llama';
}

/** The `<arch>.*` hyper-parameter metadata of `config`. */
export function architectureMetadata(config: ModelConfig): Map<string, GgufValue> {
  const arch = ggufArchitectureOf(config);
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const out = new Map<string, GgufValue>([
    [`${arch}.context_length`, u32(config.maxContext)],
    [`${arch}.embedding_length`, u32(config.dim)],
    [`${arch}.block_count`, u32(config.numBlocks)],
    [`${arch}.feed_forward_length`, u32(Math.round(config.expansion * config.dim))],
    [`${arch}.attention.head_count`, u32(config.nHeads)],
    [`${arch}.attention.head_count_kv`, u32(config.kvHeads)],
  ]);
  if (arch === 'gpt2') {
    out.set('gpt2.attention.layer_norm_epsilon', { type: 'f32', value: NORM_EPSILON });
    return out;
  }
  out.set('llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: NORM_EPSILON });
  out.set('llama.rope.dimension_count', u32(config.headSize));
  out.set('llama.rope.freq_base', { type: 'f32', value: ROPE_BASE });
  out.set('llama.vocab_size', u32(config.vocabSize));
  if (config.ffn === 'moe') {
    out.set('llama.expert_count', u32(config.nExperts));
    out.set('llama.expert_used_count', u32(config.topK));
  }
  return out;
}

/** `[rows, cols]` row-major → `[cols, rows]` row-major. */
function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c] as number;
  return out;
}

/** Reorders the rows of each head from rotate-half order to adjacent pairs: row 2i ← i, row 2i+1 ← i + hs/2. */
function interleaveHeads(rows: Float32Array, heads: number, headSize: number, width: number): Float32Array {
  const out = new Float32Array(rows.length);
  const half = headSize / 2;
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < half; i++) {
      for (const s of [0, 1]) {
        const from = (h * headSize + i + s * half) * width;
        out.set(rows.subarray(from, from + width), (h * headSize + 2 * i + s) * width);
      }
    }
  }
  return out;
}

/** A linear weight `[in, out]` as a ggml matrix `ne = [in, out]`. */
function matrix(name: string, weights: WeightMap, source: string): GgufSourceTensor {
  const w = weights.get(source);
  if (w === undefined) throw new Error(`missing weight ${source}`); // checkWeights ran before: a bug if reached
  const [rows, cols] = w.dims as [number, number];
  return { name, ne: [rows, cols], data: transpose(w.data, rows, cols) };
}

function vector(name: string, weights: WeightMap, source: string): GgufSourceTensor {
  const w = weights.get(source);
  if (w === undefined) throw new Error(`missing weight ${source}`);
  return { name, ne: [w.data.length], data: w.data };
}

function zeros(name: string, n: number): GgufSourceTensor {
  return { name, ne: [n], data: new Float32Array(n) };
}

/** Stacks per-expert matrices `[in, out]` into one ggml tensor `ne = [in, out, experts]`. */
function experts(
  name: string,
  weights: WeightMap,
  prefix: string,
  part: string,
  n: number,
): GgufSourceTensor {
  const mats = Array.from({ length: n }, (_, e) =>
    matrix(name, weights, `${prefix}.experts.${e}.${part}.weight`),
  );
  const [inDim, outDim] = (mats[0] as GgufSourceTensor).ne as [number, number];
  const data = new Float32Array(inDim * outDim * n);
  mats.forEach((m, e) => {
    data.set(m.data, e * inDim * outDim);
  });
  return { name, ne: [inDim, outDim, n], data };
}

function llamaTensors(config: ModelConfig, weights: WeightMap): GgufSourceTensor[] {
  const { dim: d, nHeads, kvHeads, headSize } = config;
  const out: GgufSourceTensor[] = [
    {
      name: 'token_embd.weight',
      ne: [d, config.vocabSize],
      data: (weights.get('embed.weight') as { data: Float32Array }).data,
    },
  ];
  for (let i = 0; i < config.numBlocks; i++) {
    const b = `blocks.${i}`;
    const q = matrix(`blk.${i}.attn_q.weight`, weights, `${b}.attn.q.weight`);
    const k = matrix(`blk.${i}.attn_k.weight`, weights, `${b}.attn.k.weight`);
    out.push(
      vector(`blk.${i}.attn_norm.weight`, weights, `${b}.norm1.weight`),
      { ...q, data: interleaveHeads(q.data, nHeads, headSize, d) },
      { ...k, data: interleaveHeads(k.data, kvHeads, headSize, d) },
      matrix(`blk.${i}.attn_v.weight`, weights, `${b}.attn.v.weight`),
      matrix(`blk.${i}.attn_output.weight`, weights, `${b}.attn.o.weight`),
      vector(`blk.${i}.ffn_norm.weight`, weights, `${b}.norm2.weight`),
    );
    if (config.ffn === 'moe') {
      const m = `${b}.moe`;
      out.push(
        matrix(`blk.${i}.ffn_gate_inp.weight`, weights, `${m}.router.weight`),
        experts(`blk.${i}.ffn_gate_exps.weight`, weights, m, 'gate', config.nExperts),
        experts(`blk.${i}.ffn_up_exps.weight`, weights, m, 'up', config.nExperts),
        experts(`blk.${i}.ffn_down_exps.weight`, weights, m, 'down', config.nExperts),
      );
    } else {
      out.push(
        matrix(`blk.${i}.ffn_gate.weight`, weights, `${b}.mlp.gate.weight`),
        matrix(`blk.${i}.ffn_up.weight`, weights, `${b}.mlp.up.weight`),
        matrix(`blk.${i}.ffn_down.weight`, weights, `${b}.mlp.down.weight`),
      );
    }
  }
  out.push(vector('output_norm.weight', weights, 'norm_f.weight'));
  if (!config.weightTying) out.push(matrix('output.weight', weights, 'lm_head.weight'));
  return out;
}

/** Rows of Q, K and V stacked into GPT-2's fused `attn_qkv` matrix `ne = [D, 3D]`. */
function fusedQkv(i: number, weights: WeightMap): GgufSourceTensor {
  const parts = ['q', 'k', 'v'].map((p) => matrix('', weights, `blocks.${i}.attn.${p}.weight`));
  const [inDim, outDim] = (parts[0] as GgufSourceTensor).ne as [number, number];
  const data = new Float32Array(inDim * outDim * 3);
  parts.forEach((p, j) => {
    data.set(p.data, j * inDim * outDim);
  });
  return { name: `blk.${i}.attn_qkv.weight`, ne: [inDim, 3 * outDim], data };
}

function gpt2Tensors(config: ModelConfig, weights: WeightMap): GgufSourceTensor[] {
  const { dim: d } = config;
  const f = Math.round(config.expansion * d);
  const data = (name: string): Float32Array => (weights.get(name) as { data: Float32Array }).data;
  const out: GgufSourceTensor[] = [
    { name: 'token_embd.weight', ne: [d, config.vocabSize], data: data('embed.weight') },
    { name: 'position_embd.weight', ne: [d, config.maxContext], data: data('pos.weight') },
  ];
  for (let i = 0; i < config.numBlocks; i++) {
    const b = `blocks.${i}`;
    out.push(
      vector(`blk.${i}.attn_norm.weight`, weights, `${b}.norm1.weight`),
      vector(`blk.${i}.attn_norm.bias`, weights, `${b}.norm1.bias`),
      fusedQkv(i, weights),
      zeros(`blk.${i}.attn_qkv.bias`, 3 * d),
      matrix(`blk.${i}.attn_output.weight`, weights, `${b}.attn.o.weight`),
      zeros(`blk.${i}.attn_output.bias`, d),
      vector(`blk.${i}.ffn_norm.weight`, weights, `${b}.norm2.weight`),
      vector(`blk.${i}.ffn_norm.bias`, weights, `${b}.norm2.bias`),
      matrix(`blk.${i}.ffn_up.weight`, weights, `${b}.mlp.up.weight`),
      zeros(`blk.${i}.ffn_up.bias`, f),
      matrix(`blk.${i}.ffn_down.weight`, weights, `${b}.mlp.down.weight`),
      zeros(`blk.${i}.ffn_down.bias`, d),
    );
  }
  out.push(
    vector('output_norm.weight', weights, 'norm_f.weight'),
    vector('output_norm.bias', weights, 'norm_f.bias'),
  );
  if (!config.weightTying) out.push(matrix('output.weight', weights, 'lm_head.weight'));
  return out;
}

/**
 * The tensors of `config` in llama.cpp's names and layouts, float32 (dantinox has no biases in the attention
 * and MLP; `gpt2` requires them, so they are written as zeros). A tied LM head is not written: llama.cpp reuses
 * `token_embd.weight`.
 */
export function ggufTensors(config: ModelConfig, weights: WeightMap): GgufSourceTensor[] {
  return ggufArchitectureOf(config) === 'gpt2' ? gpt2Tensors(config, weights) : llamaTensors(config, weights);
}
