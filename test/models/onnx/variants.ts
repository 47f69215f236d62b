/** Tiny architectures covering every ModelConfig option, shared by the ONNX runtime tests. */
import type { ModelConfigInput } from '../../../src/models/model-config.js';

/** The base of every variant: dim 32, 4 heads, 2 blocks, vocabulary 64, context 24. */
export const BASE: ModelConfigInput = { dim: 32, nHeads: 4, numBlocks: 2, vocabSize: 64, maxContext: 24 };

/** One variant per architecture option (overrides of {@link BASE}). */
export const VARIANTS: Record<string, ModelConfigInput> = {
  'rotary, rmsnorm, swiglu, mha, causal': {},
  'learned, layernorm, gelu, tied': { posEncoding: 'learned', norm: 'layernorm', useSwiglu: false },
  'absolute, relu, untied': {
    posEncoding: 'absolute',
    useSwiglu: false,
    activation: 'relu',
    weightTying: false,
  },
  'no positions, silu mlp': { posEncoding: 'none', useSwiglu: false, activation: 'silu' },
  'gqa (2 kv heads)': { kvHeads: 2 },
  'gqa (1 kv head), layernorm': { kvHeads: 1, norm: 'layernorm' },
  'bidirectional (diffusion)': { paradigm: 'diffusion' },
  'causal sliding window 3': { slidingWindow: true, contextWindow: 3 },
  'causal sliding window 0, gqa': { slidingWindow: true, contextWindow: 0, kvHeads: 2 },
  'bidirectional sliding window 2, gqa': {
    paradigm: 'diffusion',
    slidingWindow: true,
    contextWindow: 2,
    kvHeads: 2,
  },
  'moe 4 experts top-2, swiglu': { ffn: 'moe', nExperts: 4, topK: 2 },
  'moe 3 experts top-1, gelu, learned': {
    ffn: 'moe',
    nExperts: 3,
    topK: 1,
    useSwiglu: false,
    posEncoding: 'learned',
  },
};
