/**
 * A byte-level tokenizer: each UTF-8 byte of the text is one token (ids 0–255).
 *
 * @packageDocumentation
 */
import type { Tokenizer } from '../tokenizer.js';

/**
 * The UTF-8 byte tokenizer, vocabulary 256. Unlike the seed's `ord(c) % 256`, it is lossless: `decode(encode(s))
 * === s` for every well-formed string, and bits-per-byte computed from it counts real bytes.
 *
 * @example
 * ```ts
 * new ByteTokenizer().encode('hé'); // [104, 195, 169]
 * ```
 */
export class ByteTokenizer implements Tokenizer {
  /** `bytes`. */
  readonly name = 'bytes';
  /** 256. */
  readonly vocabSize = 256;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder('utf-8');

  /** The UTF-8 bytes of `text`. */
  encode(text: string): number[] {
    return Array.from(this.#encoder.encode(text));
  }

  /** The text of UTF-8 bytes `ids` (invalid sequences decode to U+FFFD; ids are taken modulo 256). */
  decode(ids: readonly number[]): string {
    return this.#decoder.decode(Uint8Array.from(ids, (id) => id & 0xff));
  }
}
