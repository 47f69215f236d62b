/**
 * GPT-2's pre-tokenization: the regular expression that cuts text into the words byte-level BPE merges inside
 * (never across).
 *
 * @packageDocumentation
 */

/**
 * GPT-2's split pattern, as in OpenAI's `encoder.py`, Hugging Face's `ByteLevel` pre-tokenizer and llama.cpp's
 * `gpt-2` pre-tokenizer: English contractions, an optional space followed by letters, by digits or by other
 * symbols, then runs of whitespace (all but the last space of a run, so that the space stays with the next word).
 */
export const GPT2_SPLIT_PATTERN = String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`;

const split = new RegExp(GPT2_SPLIT_PATTERN, 'gu');

/**
 * The pre-tokens of `text` in order, by {@link GPT2_SPLIT_PATTERN}; their concatenation is `text`.
 *
 * @example
 * ```ts
 * gpt2PreTokenize("Hello world, it's 2024!"); // ['Hello', ' world', ',', ' it', "'s", ' 2024', '!']
 * ```
 */
export function gpt2PreTokenize(text: string): string[] {
  return text.match(split) ?? [];
}
