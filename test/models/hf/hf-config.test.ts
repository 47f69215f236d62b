import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { messages } from '../../../src/messages.js';
import { HF_MODEL_TYPES, hfConfigFromJson } from '../../../src/models/hf/hf-config.js';
import { hfConfigJson, hfModelTypeOf } from '../../../src/models/hf/hf-export.js';
import { ModelConfig } from '../../../src/models/model-config.js';

// config.json field values of the real checkpoints (openai-community/gpt2, meta-llama/Meta-Llama-3-8B,
// mistralai/Mistral-7B-v0.1, Qwen/Qwen2-0.5B, microsoft/Phi-3-mini-4k-instruct), typed in.
const GPT2 = {
  activation_function: 'gelu_new',
  architectures: ['GPT2LMHeadModel'],
  attn_pdrop: 0.1,
  bos_token_id: 50256,
  embd_pdrop: 0.1,
  eos_token_id: 50256,
  initializer_range: 0.02,
  layer_norm_epsilon: 1e-5,
  model_type: 'gpt2',
  n_ctx: 1024,
  n_embd: 768,
  n_head: 12,
  n_layer: 12,
  n_positions: 1024,
  resid_pdrop: 0.1,
  summary_activation: null,
  vocab_size: 50257,
};
const LLAMA3_8B = {
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  bos_token_id: 128000,
  eos_token_id: 128001,
  hidden_act: 'silu',
  hidden_size: 4096,
  intermediate_size: 14336,
  max_position_embeddings: 8192,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-5,
  rope_scaling: null,
  rope_theta: 500000.0,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 128256,
};
const MISTRAL_7B = {
  architectures: ['MistralForCausalLM'],
  hidden_act: 'silu',
  hidden_size: 4096,
  intermediate_size: 14336,
  max_position_embeddings: 32768,
  model_type: 'mistral',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-5,
  rope_theta: 10000.0,
  sliding_window: 4096,
  tie_word_embeddings: false,
  vocab_size: 32000,
};
const QWEN2_05B = {
  architectures: ['Qwen2ForCausalLM'],
  hidden_act: 'silu',
  hidden_size: 896,
  intermediate_size: 4864,
  max_position_embeddings: 131072,
  max_window_layers: 24,
  model_type: 'qwen2',
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 131072,
  tie_word_embeddings: true,
  use_sliding_window: false,
  vocab_size: 151936,
};
const PHI3_MINI = {
  architectures: ['Phi3ForCausalLM'],
  hidden_act: 'silu',
  hidden_size: 3072,
  intermediate_size: 8192,
  max_position_embeddings: 4096,
  model_type: 'phi3',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 32,
  original_max_position_embeddings: 4096,
  rms_norm_eps: 1e-5,
  rope_theta: 10000.0,
  sliding_window: 2047,
  tie_word_embeddings: false,
  vocab_size: 32064,
};

describe('hfConfigFromJson: real checkpoints', () => {
  test('gpt2 → GPT-2 small (LayerNorm, learned positions, GELU MLP ×4, tied head)', () => {
    const { modelType, config } = hfConfigFromJson(GPT2);
    expect(modelType).toBe('gpt2');
    expect(config).toEqual(ModelConfig.preset('gpt2-small'));
  });

  test('llama → Llama-3-8B (GQA 32/8, SwiGLU 14336, RMSNorm, RoPE, untied)', () => {
    const { config } = hfConfigFromJson(LLAMA3_8B);
    expect(config).toMatchObject({
      dim: 4096,
      nHeads: 32,
      kvHeads: 8,
      attention: 'gqa',
      headSize: 128,
      numBlocks: 32,
      vocabSize: 128256,
      maxContext: 8192,
      expansion: 3.5,
      useSwiglu: true,
      activation: 'silu',
      norm: 'rmsnorm',
      posEncoding: 'rotary',
      slidingWindow: false,
      weightTying: false,
      paradigm: 'ar',
      ffn: 'mlp',
    });
  });

  test('mistral → Mistral-7B with a 4096-token sliding window (radius 4095)', () => {
    const { config } = hfConfigFromJson(MISTRAL_7B);
    expect(config).toMatchObject({
      dim: 4096,
      kvHeads: 8,
      numBlocks: 32,
      vocabSize: 32000,
      maxContext: 32768,
    });
    expect(config).toMatchObject({ slidingWindow: true, contextWindow: 4095, expansion: 3.5 });
  });

  test('qwen2 → Qwen2-0.5B: sliding_window ignored without use_sliding_window, tied, F = 4864', () => {
    const { config } = hfConfigFromJson(QWEN2_05B);
    expect(config).toMatchObject({ dim: 896, nHeads: 14, kvHeads: 2, headSize: 64, numBlocks: 24 });
    expect(config).toMatchObject({
      vocabSize: 151936,
      maxContext: 131072,
      slidingWindow: false,
      weightTying: true,
    });
    expect(config.expansion * config.dim).toBe(4864);
    const windowed = hfConfigFromJson({
      ...QWEN2_05B,
      use_sliding_window: true,
      sliding_window: 4096,
    }).config;
    expect(windowed).toMatchObject({ slidingWindow: true, contextWindow: 4095 });
  });

  test('phi3 → Phi-3-mini-4k (MHA 32 heads, F = 8192, sliding window 2047)', () => {
    const { config } = hfConfigFromJson(PHI3_MINI);
    expect(config).toMatchObject({ dim: 3072, nHeads: 32, kvHeads: 32, attention: 'mha', headSize: 96 });
    expect(config).toMatchObject({ numBlocks: 32, vocabSize: 32064, maxContext: 4096, slidingWindow: true });
    expect(config.contextWindow).toBe(2046);
    expect(config.expansion * config.dim).toBe(8192);
  });

  test('gpt2 variants: n_inner, relu, untied head, n_ctx only', () => {
    const { n_positions: _unused, ...noPositions } = GPT2;
    const { config } = hfConfigFromJson({
      ...noPositions,
      n_inner: 2048,
      activation_function: 'relu',
      tie_word_embeddings: false,
    });
    expect(config).toMatchObject({
      expansion: 2048 / 768,
      activation: 'relu',
      weightTying: false,
      maxContext: 1024,
    });
  });
});

describe('hfConfigFromJson: errors name the file, the field and what is allowed', () => {
  test('unsupported model type', () => {
    const call = (): unknown => hfConfigFromJson({ ...GPT2, model_type: 'bert' }, '/m/config.json');
    expect(call).toThrow(
      expect.objectContaining({
        code: 'UNSUPPORTED',
        message: messages.hfUnsupportedModelType('/m/config.json', 'bert', HF_MODEL_TYPES),
      }),
    );
    expect(call).toThrow(/gpt2, llama, mistral, qwen2, phi3/);
    expect(() => hfConfigFromJson({ n_embd: 8 })).toThrow(/model_type undefined is not supported/);
  });

  test('missing and malformed fields', () => {
    const { hidden_size: _h, ...noHidden } = LLAMA3_8B;
    expect(() => hfConfigFromJson(noHidden, 'x/config.json')).toThrow(
      expect.objectContaining({
        code: 'INVALID_MODEL_CONFIG',
        message: messages.hfMissingConfigField('x/config.json', ['hidden_size'], 'llama'),
      }),
    );
    expect(() => hfConfigFromJson({ ...LLAMA3_8B, num_hidden_layers: 2.5 })).toThrow(
      /field "num_hidden_layers" must be a positive integer, received 2.5/,
    );
    expect(() => hfConfigFromJson({ ...LLAMA3_8B, tie_word_embeddings: 'no' })).toThrow(/true or false/);
    expect(() => hfConfigFromJson({ ...LLAMA3_8B, hidden_act: 'tanh' })).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED' }),
    );
    expect(() => hfConfigFromJson([1, 2])).toThrow(/must be a JSON object/);
  });

  test('architectures dantinox cannot represent', () => {
    expect(() => hfConfigFromJson({ ...LLAMA3_8B, head_dim: 256 })).toThrow(/head_dim 256 differs/);
    expect(() => hfConfigFromJson({ ...LLAMA3_8B, num_key_value_heads: 5 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_MODEL_CONFIG',
        message: expect.stringMatching(/kvHeads \(5\)/),
      }),
    );
  });
});

test('property: every exportable built-in config survives config.json and back', () => {
  const arb = fc.record({
    heads: fc.integer({ min: 1, max: 4 }),
    headSize: fc.constantFrom(2, 4, 8),
    group: fc.constantFrom(1, 2),
    numBlocks: fc.integer({ min: 1, max: 4 }),
    vocabSize: fc.integer({ min: 2, max: 60000 }),
    maxContext: fc.integer({ min: 1, max: 4096 }),
    ffnUnits: fc.integer({ min: 1, max: 64 }),
    layout: fc.constantFrom('gpt2', 'llama'),
    activation: fc.constantFrom('gelu', 'relu', 'silu'),
    window: fc.option(fc.integer({ min: 0, max: 100 })),
    tied: fc.boolean(),
  });
  fc.assert(
    fc.property(arb, (a) => {
      const nHeads = a.heads * a.group;
      const dim = nHeads * a.headSize;
      const gpt2 = a.layout === 'gpt2';
      const config = ModelConfig.parse({
        dim,
        nHeads,
        kvHeads: gpt2 ? nHeads : a.heads,
        numBlocks: a.numBlocks,
        vocabSize: a.vocabSize,
        maxContext: a.maxContext,
        expansion: a.ffnUnits / dim,
        useSwiglu: !gpt2,
        activation: gpt2 ? a.activation : 'silu',
        norm: gpt2 ? 'layernorm' : 'rmsnorm',
        posEncoding: gpt2 ? 'learned' : 'rotary',
        ...(a.window !== null && !gpt2 ? { slidingWindow: true, contextWindow: a.window } : {}),
        weightTying: a.tied,
      });
      const type = hfModelTypeOf(config);
      expect(type).toBe(gpt2 ? 'gpt2' : a.window !== null ? 'mistral' : 'llama');
      const back = hfConfigFromJson(JSON.parse(JSON.stringify(hfConfigJson(config, type ?? 'llama'))));
      expect(back.config).toEqual(config);
    }),
    { numRuns: 200, seed: 42 },
  );
});
