/**
 * The tokenizer contract: what perplexity needs to turn validation text into the model's own token ids and to
 * count bytes for bits-per-byte.
 *
 * @packageDocumentation
 */

/** Turns text into token ids and back, with the vocabulary of one model. */
export interface Tokenizer {
  /** Short identity, e.g. `gpt2 (r50k_base)`, `bytes` or the `tokenizer.json` model type. */
  readonly name: string;
  /**
   * What makes two tokenizers encode alike, when `name` does not say it (a Hugging Face tokenizer's is the SHA-256
   * of its files: every BPE is named `hf:BPE`). @default `name`
   */
  readonly identity?: string;
  /** Number of ids the tokenizer can produce; ≤ the model's `vocabSize`. */
  readonly vocabSize: number;
  /** Token ids of `text`, with no special tokens added. */
  encode(text: string): number[];
  /** Text of `ids`. */
  decode(ids: readonly number[]): string;
}
