/**
 * The tokenizer of a built-in architecture: its own (a trained model's `tokenizer.json`), else the built-in one of
 * its vocabulary size.
 *
 * @packageDocumentation
 */
import { HfTokenizer } from '../hf/hf-tokenizer.js';
import type { HfTokenizerFiles } from '../hf/hf-tokenizer-json.js';
import type { ModelConfig } from '../model-config.js';
import type { Tokenizer } from '../tokenizer.js';
import { builtinTokenizer } from './builtin-tokenizer.js';

/**
 * `own` as a {@link Tokenizer} when given, else {@link builtinTokenizer} of `config` (`undefined` when none fits).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when `@huggingface/tokenizers` rejects `own`.
 */
export function modelTokenizer(
  config: Pick<ModelConfig, 'vocabSize'>,
  own?: HfTokenizerFiles,
  source?: string,
): Tokenizer | undefined {
  return own === undefined
    ? builtinTokenizer(config)
    : new HfTokenizer(own.tokenizerJson, own.tokenizerConfig, source);
}
