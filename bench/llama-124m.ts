/**
 * The model the engine benchmarks share: a GPT-2-small-sized llama shape (dim 768, 12 heads, 12 blocks, SwiGLU
 * width 2048, vocabulary 50,257, tied head, context 1,024; 124 M parameters), built with seeded weights.
 *
 * @packageDocumentation
 */
import { ModelConfig } from '../src/models/index.js';

/** The 124 M llama shape of `bench:engines`, `bench:llama-native` and `bench:decode`. */
export const LLAMA_124M: ModelConfig = ModelConfig.parse({
  dim: 768,
  nHeads: 12,
  numBlocks: 12,
  vocabSize: 50257,
  maxContext: 1024,
  expansion: 8 / 3,
  useSwiglu: true,
  norm: 'rmsnorm',
  posEncoding: 'rotary',
  weightTying: true,
});

/** One line naming it, for a benchmark's header. */
export const LLAMA_124M_LABEL = 'llama shape dim 768, 12 heads, 12 blocks, SwiGLU 2048, vocab 50257';
