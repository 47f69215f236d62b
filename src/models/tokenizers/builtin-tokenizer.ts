/**
 * The tokenizer that goes with a built-in model's vocabulary size.
 *
 * @packageDocumentation
 */
import type { ModelConfig } from '../model-config.js';
import type { Tokenizer } from '../tokenizer.js';
import { ByteTokenizer } from './byte-tokenizer.js';
import { GPT2_VOCAB_SIZE, Gpt2Tokenizer } from './gpt2-tokenizer.js';

/** The built-in tokenizers, by the name `builtinTokenizerKind` gives them. */
export type BuiltinTokenizerKind = 'bytes' | 'gpt2';

/**
 * Which built-in tokenizer fits a vocabulary of `vocabSize` ids: GPT-2's BPE (r50k_base) from 50,257; UTF-8 bytes
 * at exactly 256; none otherwise — a vocabulary of another size was made for another tokenizer (a BPE of 4,096
 * ids scored as bytes would use 256 of them and measure nothing of the model), so it must be given one.
 */
export function builtinTokenizerKind(vocabSize: number): BuiltinTokenizerKind | undefined {
  if (vocabSize >= GPT2_VOCAB_SIZE) return 'gpt2';
  return vocabSize === 256 ? 'bytes' : undefined;
}

/**
 * The tokenizer of a built-in model, chosen by {@link builtinTokenizerKind}: GPT-2's BPE for ≥ 50,257 ids, UTF-8
 * bytes for exactly 256, `undefined` otherwise (the model has no tokenizer unless one is given; text tasks say so).
 */
export function builtinTokenizer(config: Pick<ModelConfig, 'vocabSize'>): Tokenizer | undefined {
  const kind = builtinTokenizerKind(config.vocabSize);
  if (kind === 'gpt2') return new Gpt2Tokenizer();
  return kind === 'bytes' ? new ByteTokenizer() : undefined;
}
