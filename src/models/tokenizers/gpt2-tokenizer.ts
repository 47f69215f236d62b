/**
 * The GPT-2 byte-level BPE tokenizer (OpenAI's `r50k_base` encoding, 50,257 ids), via `gpt-tokenizer`.
 *
 * @packageDocumentation
 */
import { createRequire } from 'node:module';
import type { Tokenizer } from '../tokenizer.js';

/** Vocabulary size of GPT-2's BPE: 50,000 merges + 256 bytes + `<|endoftext|>`. */
export const GPT2_VOCAB_SIZE = 50257;

/** Id of `<|endoftext|>` in GPT-2's vocabulary. */
export const GPT2_END_OF_TEXT = 50256;

interface R50kModule {
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  decode(ids: Iterable<number>): string;
}

let encoding: R50kModule | undefined;

/** Loads the r50k_base ranks on first use (≈ 0.1 s), so importing dantinox stays cheap. */
function r50k(): R50kModule {
  if (encoding === undefined) {
    const require = createRequire(import.meta.url);
    encoding = require('gpt-tokenizer/encoding/r50k_base') as R50kModule;
  }
  return encoding;
}

/**
 * GPT-2's tokenizer (r50k_base): `encode` treats every character of the text as text, so a literal
 * `<|endoftext|>` in a corpus is tokenized as ordinary characters and no special token is ever added.
 *
 * @example
 * ```ts
 * new Gpt2Tokenizer().encode('Hello world'); // [15496, 995]
 * ```
 */
export class Gpt2Tokenizer implements Tokenizer {
  /** `gpt2 (r50k_base)`. */
  readonly name = 'gpt2 (r50k_base)';
  /** 50,257. */
  readonly vocabSize = GPT2_VOCAB_SIZE;

  /** Token ids of `text`, without special tokens. */
  encode(text: string): number[] {
    return r50k().encode(text, { disallowedSpecial: new Set() });
  }

  /** Text of `ids` (byte sequences that are not valid UTF-8 decode to U+FFFD). */
  decode(ids: readonly number[]): string {
    return r50k().decode(ids);
  }
}
