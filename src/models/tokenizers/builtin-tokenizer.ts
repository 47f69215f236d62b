/**
 * The tokenizer that goes with a built-in model's vocabulary size.
 *
 * @packageDocumentation
 */
import type { ModelConfig } from '../model-config.js';
import type { Tokenizer } from '../tokenizer.js';
import { ByteTokenizer } from './byte-tokenizer.js';
import { GPT2_VOCAB_SIZE, Gpt2Tokenizer } from './gpt2-tokenizer.js';

/**
 * The tokenizer of a built-in model, chosen by vocabulary size: ≥ 50,257 → GPT-2 BPE (r50k_base); 256 to 50,256 →
 * UTF-8 bytes; below 256 → `undefined` (the model has no tokenizer; text tasks must say so).
 */
export function builtinTokenizer(config: Pick<ModelConfig, 'vocabSize'>): Tokenizer | undefined {
  if (config.vocabSize >= GPT2_VOCAB_SIZE) return new Gpt2Tokenizer();
  if (config.vocabSize >= 256) return new ByteTokenizer();
  return undefined;
}
