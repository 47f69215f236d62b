import { describe, expect, it } from 'vitest';
import {
  architectureMetadata,
  type GgufSourceTensor,
  ggufArchitectureOf,
  ggufBlocker,
  ggufTensors,
} from '../../../src/models/gguf/gguf-architecture.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { ROPE_BASE } from '../../../src/models/onnx/embedding.js';
import { NORM_EPSILON } from '../../../src/models/onnx/norm.js';
import { initWeights, type WeightTensor } from '../../../src/models/weights.js';

/** A llama-shaped config: rotary, RMSNorm, SwiGLU; 2 query heads of 4 sharing 1 KV head; 2 routed experts; untied. */
const LLAMA = {
  dim: 8,
  n_heads: 2,
  kv_heads: 1,
  num_blocks: 2,
  vocab_size: 11,
  max_context: 16,
  expansion: 1.5,
  use_swiglu: true,
  norm: 'rmsnorm',
  pos_encoding: 'rotary',
  ffn: 'moe',
  n_experts: 2,
  top_k: 1,
  weight_tying: false,
};
const llama = ModelConfig.parse(LLAMA);
/** A gpt2-shaped config: learned positions, LayerNorm, GELU MLP; tied head. */
const GPT2 = {
  dim: 8,
  n_heads: 2,
  num_blocks: 1,
  vocab_size: 11,
  max_context: 16,
  expansion: 2,
  use_swiglu: false,
  activation: 'gelu',
  norm: 'layernorm',
  pos_encoding: 'learned',
  weight_tying: true,
};
const gpt2 = ModelConfig.parse(GPT2);

const byName = (tensors: readonly GgufSourceTensor[], name: string): GgufSourceTensor => {
  const t = tensors.find((x) => x.name === name);
  if (t === undefined) throw new Error(`no tensor ${name}`);
  return t;
};

describe('ggufBlocker', () => {
  it('lets llama and gpt2 shapes through and names what blocks every other one', () => {
    expect(ggufBlocker(llama)).toBeUndefined();
    expect(ggufBlocker(gpt2)).toBeUndefined();
    const patched = (patch: Record<string, unknown>, base: Record<string, unknown> = LLAMA): ModelConfig =>
      ModelConfig.parse({ ...base, ...patch });
    expect(ggufBlocker(patched({ paradigm: 'diffusion' }))).toBe(
      'the "diffusion" paradigm (bidirectional masked diffusion); llama.cpp runs causal decoders only',
    );
    expect(ggufBlocker(patched({ sliding_window: true }))).toMatch(/^sliding-window attention/);
    expect(ggufBlocker(patched({ norm: 'layernorm' }))).toMatch(
      /^rotary positions without RMSNorm and SwiGLU/,
    );
    expect(ggufBlocker(patched({ use_swiglu: false }))).toMatch(
      /^rotary positions without RMSNorm and SwiGLU/,
    );
    expect(ggufBlocker(patched({ norm: 'rmsnorm' }, GPT2))).toMatch(/^learned positions without LayerNorm/);
    expect(ggufBlocker(patched({ use_swiglu: true }, GPT2))).toMatch(/^learned positions without LayerNorm/);
    expect(ggufBlocker(patched({ activation: 'relu' }, GPT2))).toMatch(
      /^learned positions without LayerNorm/,
    );
    expect(ggufBlocker(patched({ ffn: 'moe', n_experts: 2, top_k: 1 }, GPT2))).toMatch(
      /^a mixture of experts/,
    );
    expect(ggufBlocker(patched({ kv_heads: 1 }, GPT2))).toMatch(
      /^grouped-query attention with learned positions/,
    );
    expect(ggufBlocker(patched({ pos_encoding: 'absolute' }))).toBe(
      '"absolute" position encoding (llama.cpp\'s "llama" needs rotary, "gpt2" learned positions)',
    );
  });
});

describe('architectureMetadata', () => {
  it('llama: sizes, heads, RMS epsilon, rotary dimension and base, vocabulary and experts', () => {
    expect(ggufArchitectureOf(llama)).toBe('llama');
    const meta = Object.fromEntries(
      [...architectureMetadata(llama)].map(([k, v]) => [k, 'value' in v ? v.value : v]),
    );
    expect(meta).toEqual({
      'llama.context_length': 16,
      'llama.embedding_length': 8,
      'llama.block_count': 2,
      'llama.feed_forward_length': 12,
      'llama.attention.head_count': 2,
      'llama.attention.head_count_kv': 1,
      'llama.attention.layer_norm_rms_epsilon': NORM_EPSILON,
      'llama.rope.dimension_count': 4,
      'llama.rope.freq_base': ROPE_BASE,
      'llama.vocab_size': 11,
      'llama.expert_count': 2,
      'llama.expert_used_count': 1,
    });
  });

  it('gpt2: sizes, heads and the LayerNorm epsilon only', () => {
    expect(ggufArchitectureOf(gpt2)).toBe('gpt2');
    const meta = Object.fromEntries(
      [...architectureMetadata(gpt2)].map(([k, v]) => [k, 'value' in v ? v.value : v]),
    );
    expect(meta).toEqual({
      'gpt2.context_length': 16,
      'gpt2.embedding_length': 8,
      'gpt2.block_count': 1,
      'gpt2.feed_forward_length': 16,
      'gpt2.attention.head_count': 2,
      'gpt2.attention.head_count_kv': 2,
      'gpt2.attention.layer_norm_epsilon': NORM_EPSILON,
    });
  });
});

/**
 * The llama fixture's weights and tensors, built inside each test (not at module level, where Stryker would
 * count the code they run as static and skip its mutants).
 */
function llamaFixture(): {
  tensors: GgufSourceTensor[];
  source: (name: string) => Float32Array;
} {
  const weights = initWeights(llama, 3);
  return {
    tensors: ggufTensors(llama, weights),
    source: (name) => (weights.get(name) as { data: Float32Array }).data,
  };
}

describe('ggufTensors', () => {
  it('llama: names in llama.cpp order, the untied head last', () => {
    const { tensors } = llamaFixture();
    const block = (i: number): string[] =>
      ['attn_norm', 'attn_q', 'attn_k', 'attn_v', 'attn_output', 'ffn_norm', 'ffn_gate_inp']
        .concat(['ffn_gate_exps', 'ffn_up_exps', 'ffn_down_exps'])
        .map((t) => `blk.${i}.${t}.weight`);
    expect(tensors.map((t) => t.name)).toEqual([
      'token_embd.weight',
      ...block(0),
      ...block(1),
      'output_norm.weight',
      'output.weight',
    ]);
    expect(byName(tensors, 'token_embd.weight').ne).toEqual([8, 11]);
    expect(byName(tensors, 'output.weight').ne).toEqual([8, 11]);
  });

  it('transposes every matrix to ne = [in, out] (out rows of in values)', () => {
    const { tensors, source } = llamaFixture();
    const v = byName(tensors, 'blk.1.attn_v.weight');
    const w = source('blocks.1.attn.v.weight'); // [in 8, out 4] row-major
    expect(v.ne).toEqual([8, 4]);
    for (let out = 0; out < 4; out++)
      for (let i = 0; i < 8; i++) expect(v.data[out * 8 + i]).toBe(w[i * 4 + out]);
    const head = byName(tensors, 'output.weight');
    const lm = source('lm_head.weight'); // [8, 11]
    for (let out = 0; out < 11; out++)
      for (let i = 0; i < 8; i++) expect(head.data[out * 8 + i]).toBe(lm[i * 11 + out]);
  });

  it('interleaves each query and key head: output row 2i + s of a head is its row i + s · headSize/2', () => {
    const { tensors, source } = llamaFixture();
    for (const [name, src, heads] of [
      ['blk.0.attn_q.weight', 'blocks.0.attn.q.weight', 2],
      ['blk.0.attn_k.weight', 'blocks.0.attn.k.weight', 1],
    ] as const) {
      const t = byName(tensors, name);
      const w = source(src); // [in 8, out heads · 4]
      const outs = heads * 4;
      expect(t.ne).toEqual([8, outs]);
      for (let h = 0; h < heads; h++)
        for (let i = 0; i < 2; i++)
          for (const s of [0, 1]) {
            const row = h * 4 + 2 * i + s;
            const from = h * 4 + i + s * 2;
            for (let k = 0; k < 8; k++)
              expect(t.data[row * 8 + k], `${name} row ${row}`).toBe(w[k * outs + from]);
          }
    }
  });

  it('stacks the experts of a block: expert e at offset e · in · out, each transposed', () => {
    const { tensors, source } = llamaFixture();
    const gate = byName(tensors, 'blk.1.ffn_gate_exps.weight');
    expect(gate.ne).toEqual([8, 12, 2]);
    for (let e = 0; e < 2; e++) {
      const w = source(`blocks.1.moe.experts.${e}.gate.weight`); // [8, 12]
      for (let out = 0; out < 12; out++)
        for (let i = 0; i < 8; i++) expect(gate.data[e * 96 + out * 8 + i]).toBe(w[i * 12 + out]);
    }
    expect(byName(tensors, 'blk.0.ffn_down_exps.weight').ne).toEqual([12, 8, 2]);
    expect(byName(tensors, 'blk.0.ffn_gate_inp.weight').ne).toEqual([8, 2]);
  });

  it('gpt2: fused QKV rows, zero biases, learned positions, and no head when tied', () => {
    const g = initWeights(gpt2, 5);
    const t = ggufTensors(gpt2, g);
    expect(t.map((x) => x.name)).toEqual([
      'token_embd.weight',
      'position_embd.weight',
      'blk.0.attn_norm.weight',
      'blk.0.attn_norm.bias',
      'blk.0.attn_qkv.weight',
      'blk.0.attn_qkv.bias',
      'blk.0.attn_output.weight',
      'blk.0.attn_output.bias',
      'blk.0.ffn_norm.weight',
      'blk.0.ffn_norm.bias',
      'blk.0.ffn_up.weight',
      'blk.0.ffn_up.bias',
      'blk.0.ffn_down.weight',
      'blk.0.ffn_down.bias',
      'output_norm.weight',
      'output_norm.bias',
    ]);
    expect(byName(t, 'position_embd.weight').ne).toEqual([8, 16]);
    const qkv = byName(t, 'blk.0.attn_qkv.weight');
    expect(qkv.ne).toEqual([8, 24]);
    ['q', 'k', 'v'].forEach((p, j) => {
      const w = (g.get(`blocks.0.attn.${p}.weight`) as { data: Float32Array }).data; // [8, 8]
      for (let out = 0; out < 8; out++)
        for (let i = 0; i < 8; i++) expect(qkv.data[j * 64 + out * 8 + i]).toBe(w[i * 8 + out]);
    });
    for (const [name, n] of [
      ['blk.0.attn_qkv.bias', 24],
      ['blk.0.attn_output.bias', 8],
      ['blk.0.ffn_up.bias', 16],
      ['blk.0.ffn_down.bias', 8],
    ] as const) {
      const bias = byName(t, name);
      expect(bias.ne).toEqual([n]);
      expect(bias.data.every((x) => x === 0)).toBe(true);
    }
  });
});

describe('ggufTensors on a dense GQA llama and an untied gpt2', () => {
  /** A dense llama: dim 32, 4 query heads of 8 sharing 2 KV heads, tied head. */
  const dense = (): ModelConfig =>
    ModelConfig.parse({
      dim: 32,
      n_heads: 4,
      kv_heads: 2,
      num_blocks: 1,
      vocab_size: 5,
      max_context: 8,
      expansion: 2,
      use_swiglu: true,
      norm: 'rmsnorm',
      pos_encoding: 'rotary',
    });

  it('dense llama: gate/up/down instead of experts, no head when tied, no expert metadata', () => {
    const config = dense();
    const weights = initWeights(config, 7);
    const t = ggufTensors(config, weights);
    expect(t.map((x) => [x.name, x.ne])).toEqual([
      ['token_embd.weight', [32, 5]],
      ['blk.0.attn_norm.weight', [32]],
      ['blk.0.attn_q.weight', [32, 32]],
      ['blk.0.attn_k.weight', [32, 16]],
      ['blk.0.attn_v.weight', [32, 16]],
      ['blk.0.attn_output.weight', [32, 32]],
      ['blk.0.ffn_norm.weight', [32]],
      ['blk.0.ffn_gate.weight', [32, 64]],
      ['blk.0.ffn_up.weight', [32, 64]],
      ['blk.0.ffn_down.weight', [64, 32]],
      ['output_norm.weight', [32]],
    ]);
    const src = (name: string): Float32Array => (weights.get(name) as { data: Float32Array }).data;
    // Vectors and the embedding are written as they are: [vocab, dim] row-major is ne = [dim, vocab].
    expect(byName(t, 'token_embd.weight').data).toEqual(src('embed.weight'));
    expect(byName(t, 'blk.0.attn_norm.weight').data).toEqual(src('blocks.0.norm1.weight'));
    expect(byName(t, 'blk.0.ffn_norm.weight').data).toEqual(src('blocks.0.norm2.weight'));
    expect(byName(t, 'output_norm.weight').data).toEqual(src('norm_f.weight'));
    const down = byName(t, 'blk.0.ffn_down.weight');
    const w = src('blocks.0.mlp.down.weight'); // [64, 32]
    for (let out = 0; out < 32; out++)
      for (let i = 0; i < 64; i++) expect(down.data[out * 64 + i]).toBe(w[i * 32 + out]);
    const meta = architectureMetadata(config);
    expect(meta.has('llama.expert_count')).toBe(false);
    expect(meta.has('llama.expert_used_count')).toBe(false);
    expect(meta.get('llama.attention.head_count_kv')).toEqual({ type: 'u32', value: 2 });
    expect(meta.get('llama.rope.dimension_count')).toEqual({ type: 'u32', value: 8 });
    expect(meta.get('llama.feed_forward_length')).toEqual({ type: 'u32', value: 64 });
    expect(meta.get('llama.vocab_size')).toEqual({ type: 'u32', value: 5 });
  });

  it('heads of 8: output row r of head h is source row h·8 + ⌊(r mod 8)/2⌋ + 4·(r mod 2), for Q (4 heads) and K (2)', () => {
    const config = dense();
    const weights = initWeights(config, 8);
    const t = ggufTensors(config, weights);
    for (const [name, src, outs] of [
      ['blk.0.attn_q.weight', 'blocks.0.attn.q.weight', 32],
      ['blk.0.attn_k.weight', 'blocks.0.attn.k.weight', 16],
    ] as const) {
      const got = byName(t, name).data;
      const w = (weights.get(src) as { data: Float32Array }).data; // [32, outs]
      for (let r = 0; r < outs; r++) {
        const j = r % 8;
        const from = r - j + Math.floor(j / 2) + 4 * (j % 2);
        const row = Array.from(got.subarray(r * 32, r * 32 + 32));
        expect(row, `${name} row ${r}`).toEqual(Array.from({ length: 32 }, (_, k) => w[k * outs + from]));
      }
    }
    // V is not interleaved: plain transpose.
    const v = byName(t, 'blk.0.attn_v.weight').data;
    const wv = (weights.get('blocks.0.attn.v.weight') as { data: Float32Array }).data;
    for (let r = 0; r < 16; r++) expect(v[r * 32 + 1]).toBe(wv[16 + r]);
  });

  it('gpt2 untied: the head transposed last, the norms with their biases, positions as they are', () => {
    const config = ModelConfig.parse({ ...GPT2, weight_tying: false, expansion: 1.5 });
    const weights = initWeights(config, 9);
    const t = ggufTensors(config, weights);
    const src = (name: string): Float32Array => (weights.get(name) as { data: Float32Array }).data;
    expect(t.map((x) => x.name).slice(-3)).toEqual([
      'output_norm.weight',
      'output_norm.bias',
      'output.weight',
    ]);
    expect(byName(t, 'position_embd.weight').data).toEqual(src('pos.weight'));
    expect(byName(t, 'blk.0.attn_norm.bias').data).toEqual(src('blocks.0.norm1.bias'));
    expect(byName(t, 'blk.0.ffn_norm.weight').data).toEqual(src('blocks.0.norm2.weight'));
    expect(byName(t, 'blk.0.ffn_norm.bias').data).toEqual(src('blocks.0.norm2.bias'));
    expect(byName(t, 'output_norm.bias').data).toEqual(src('norm_f.bias'));
    expect(byName(t, 'blk.0.ffn_up.bias').ne).toEqual([12]);
    expect(byName(t, 'blk.0.ffn_up.weight').ne).toEqual([8, 12]);
    expect(byName(t, 'blk.0.ffn_down.weight').ne).toEqual([12, 8]);
    const head = byName(t, 'output.weight');
    const lm = src('lm_head.weight'); // [8, 11]
    expect(head.ne).toEqual([8, 11]);
    for (let out = 0; out < 11; out++)
      for (let i = 0; i < 8; i++) expect(head.data[out * 8 + i]).toBe(lm[i * 11 + out]);
    const o = byName(t, 'blk.0.attn_output.weight');
    const wo = src('blocks.0.attn.o.weight'); // [8, 8]
    for (let out = 0; out < 8; out++)
      for (let i = 0; i < 8; i++) expect(o.data[out * 8 + i]).toBe(wo[i * 8 + out]);
    expect(architectureMetadata(config).get('gpt2.feed_forward_length')).toEqual({ type: 'u32', value: 12 });
  });
});

describe('ggufTensors without a weight it needs', () => {
  it('names the missing matrix or vector (checkWeights normally refuses such weights first)', () => {
    const weights = initWeights(gpt2, 1);
    const without = (name: string): Map<string, WeightTensor> =>
      new Map([...weights].filter(([n]) => n !== name));
    expect(() => ggufTensors(gpt2, without('blocks.0.attn.o.weight'))).toThrow(
      /^missing weight blocks\.0\.attn\.o\.weight$/,
    );
    expect(() => ggufTensors(gpt2, without('blocks.0.norm2.bias'))).toThrow(
      /^missing weight blocks\.0\.norm2\.bias$/,
    );
  });
});
