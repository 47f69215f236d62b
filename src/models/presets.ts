/**
 * The built-in {@link ModelConfig} presets, by name.
 *
 * @packageDocumentation
 */
import type { ModelConfigInput } from './model-config.js';
import type { TrainedPresetName } from './trained-presets.js';

/** Built-in random-weight model presets: partial configs that {@link ModelConfig.preset} validates. */
export const PRESETS = {
  /** A few-thousand-parameter model for tests: dim 32, 2 blocks, vocab 256 (byte-level). */
  tiny: {
    dim: 32,
    nHeads: 4,
    numBlocks: 2,
    vocabSize: 256,
    maxContext: 128,
    useSwiglu: true,
    norm: 'rmsnorm',
    posEncoding: 'rotary',
  },
  /** ≈ DantinoX "Small": dim 512, 8 heads, 12 blocks, GPT-2 BPE vocabulary, context 512, SwiGLU, RMSNorm, RoPE. */
  small: {
    dim: 512,
    nHeads: 8,
    numBlocks: 12,
    vocabSize: 50257,
    maxContext: 512,
    expansion: 4,
    useSwiglu: true,
    norm: 'rmsnorm',
    posEncoding: 'rotary',
  },
  /** GPT-2 small (124 M): dim 768, 12 heads, 12 blocks, vocab 50257, context 1024, GELU MLP, LayerNorm, learned positions, tied head. */
  'gpt2-small': {
    dim: 768,
    nHeads: 12,
    numBlocks: 12,
    vocabSize: 50257,
    maxContext: 1024,
    expansion: 4,
    useSwiglu: false,
    activation: 'gelu',
    norm: 'layernorm',
    posEncoding: 'learned',
    weightTying: true,
  },
} as const satisfies Record<string, ModelConfigInput>;

/** Name of a built-in preset: a random-weight one of `PRESETS` or a trained one (`trained-presets.ts`). */
export type PresetName = keyof typeof PRESETS | TrainedPresetName;
