/**
 * `BpeTokenizer`: a byte-level BPE tokenizer in GPT-2's scheme (the vocabularies `trainBpe` learns), with its own
 * encoder and its Hugging Face `tokenizer.json`.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { byteLevelBpeFiles, END_OF_TEXT, type HfTokenizerFiles } from '../hf/hf-tokenizer-json.js';
import type { Tokenizer } from '../tokenizer.js';
import { gpt2PreTokenize } from './gpt2-pre-tokenizer.js';

/** A merge: the ids of its left and right tokens. */
export type BpeMerge = readonly [left: number, right: number];

/** Largest vocabulary a {@link BpeTokenizer} holds: pair keys pack two ids into one float64 integer. */
export const MAX_BPE_VOCAB_SIZE = 2 ** 20;

/** One float64 integer for the pair (a, b) of ids below {@link MAX_BPE_VOCAB_SIZE}, ordered as (a, b) is. */
export const pairKey = (a: number, b: number): number => a * MAX_BPE_VOCAB_SIZE + b;

/** Pre-tokens longer than this (in bytes) are encoded without being cached. */
const MAX_CACHED_WORD = 256;
/** Distinct pre-tokens kept in the encoder's cache; it is cleared when full. */
const CACHE_WORDS = 100_000;

/**
 * A byte-level BPE tokenizer: ids 0–255 are the bytes, then one id per merge in the order they were learned (a
 * merge whose result was already a token adds no id), then {@link END_OF_TEXT}. Text is cut into words by GPT-2's
 * pattern ({@link gpt2PreTokenize}) and each word's bytes are merged by rank, the lowest-ranked adjacent pair
 * first (leftmost on a tie), as GPT-2, Hugging Face's `tokenizers` and llama.cpp do; so `encode` gives the ids
 * `tokenizer.json` ({@link BpeTokenizer.tokenizerFiles}) gives in those libraries. A literal `<|endoftext|>` in
 * the text is the special token, as Hugging Face's tokenizers read it.
 *
 * @example
 * ```ts
 * const tok = trainBpe('low lower lowest', { vocabSize: 260 });
 * tok.decode(tok.encode(' lower')); // ' lower'
 * ```
 */
export class BpeTokenizer implements Tokenizer {
  /** `bpe-<vocabSize>-<8 hex digits of the merges' SHA-256>`, e.g. `bpe-4096-1f0c3a9e`: tells vocabularies apart. */
  readonly name: string;
  /** Number of ids: the tokens and the end-of-text token. */
  readonly vocabSize: number;
  /** Id of {@link END_OF_TEXT}: the last one. */
  readonly endOfText: number;
  /** The bytes of each token by id (the end-of-text token excluded). */
  readonly tokens: readonly Uint8Array[];
  /** The merges in rank order. */
  readonly merges: readonly BpeMerge[];
  /** Rank and result of each merge, by {@link pairKey}. */
  readonly #merged = new Map<number, { rank: number; id: number }>();
  readonly #cache = new Map<string, readonly number[]>();
  readonly #utf8 = new TextEncoder();
  readonly #decoder = new TextDecoder('utf-8');

  /**
   * @param merges - the merges in rank order, each of two existing ids; token 256 + i is the result of the i-th
   *   merge whose concatenation was not a token yet.
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when a merge names an id that does not exist yet, or the
   *   vocabulary would exceed {@link MAX_BPE_VOCAB_SIZE} ids.
   */
  constructor(merges: readonly BpeMerge[]) {
    const tokens: Uint8Array[] = Array.from({ length: 256 }, (_, b) => Uint8Array.of(b));
    const idOf = new Map<string, number>(tokens.map((t, id) => [Buffer.from(t).toString('latin1'), id]));
    merges.forEach(([a, b], rank) => {
      const left = tokens[a];
      const right = tokens[b];
      if (left === undefined || right === undefined || !Number.isInteger(a) || !Number.isInteger(b))
        throw new DantinoxError('INVALID_INPUT', messages.bpeBadMerge(rank, a, b, tokens.length));
      const bytes = Buffer.concat([left, right]);
      const key = bytes.toString('latin1');
      let id = idOf.get(key);
      if (id === undefined) {
        id = tokens.length;
        if (id + 1 >= MAX_BPE_VOCAB_SIZE)
          throw new DantinoxError('INVALID_INPUT', messages.bpeVocabTooLarge(MAX_BPE_VOCAB_SIZE));
        tokens.push(new Uint8Array(bytes));
        idOf.set(key, id);
      }
      if (!this.#merged.has(pairKey(a, b))) this.#merged.set(pairKey(a, b), { rank, id });
    });
    this.tokens = tokens;
    this.merges = merges.map(([a, b]) => [a, b] as const);
    this.endOfText = tokens.length;
    this.vocabSize = tokens.length + 1;
    const digest = createHash('sha256').update(Int32Array.from(merges.flat()));
    this.name = `bpe-${this.vocabSize}-${digest.digest('hex').slice(0, 8)}`;
  }

  /** Token ids of `text`: no special token is added; a literal `<|endoftext|>` is {@link BpeTokenizer.endOfText}. */
  encode(text: string): number[] {
    const ids: number[] = [];
    text.split(END_OF_TEXT).forEach((part, i) => {
      if (i > 0) ids.push(this.endOfText);
      for (const word of gpt2PreTokenize(part)) for (const id of this.#encodeWord(word)) ids.push(id);
    });
    return ids;
  }

  /** Text of `ids`: their bytes as UTF-8 (invalid sequences decode to U+FFFD), the end-of-text id as its text. */
  decode(ids: readonly number[]): string {
    const eot = this.#utf8.encode(END_OF_TEXT);
    const parts = ids.map((id) => {
      const bytes = id === this.endOfText ? eot : this.tokens[id];
      if (bytes === undefined)
        throw new DantinoxError('INVALID_INPUT', messages.unknownTokenId(id, this.vocabSize, this.name));
      return bytes;
    });
    return this.#decoder.decode(Buffer.concat(parts));
  }

  /**
   * The vocabulary as Hugging Face files (GPT-2's layout, see `byteLevelBpeFiles`), which
   * `@huggingface/tokenizers`, transformers.js and, through `exportGguf`, llama.cpp read and encode alike.
   *
   * @param modelMaxLength - `model_max_length` of `tokenizer_config.json`, in tokens. @default 1_000_000
   */
  tokenizerFiles(modelMaxLength = 1_000_000): HfTokenizerFiles {
    return byteLevelBpeFiles({ tokens: this.tokens, merges: this.merges, modelMaxLength });
  }

  /** The ids of one pre-token: its bytes merged by rank. */
  #encodeWord(word: string): readonly number[] {
    const cached = this.#cache.get(word);
    if (cached !== undefined) return cached;
    const ids = this.#merge(Array.from(this.#utf8.encode(word)));
    if (word.length <= MAX_CACHED_WORD) {
      if (this.#cache.size >= CACHE_WORDS) this.#cache.clear();
      this.#cache.set(word, ids);
    }
    return ids;
  }

  /** Applies the merges to `ids` in rank order: each round merges every occurrence of the best-ranked pair. */
  #merge(ids: number[]): number[] {
    let symbols = ids;
    while (symbols.length > 1) {
      let best: { rank: number; id: number } | undefined;
      let left = 0;
      let right = 0;
      for (let i = 0; i + 1 < symbols.length; i++) {
        const m = this.#merged.get(pairKey(symbols[i] as number, symbols[i + 1] as number));
        if (m !== undefined && (best === undefined || m.rank < best.rank)) {
          best = m;
          left = symbols[i] as number;
          right = symbols[i + 1] as number;
        }
      }
      if (best === undefined) break;
      const next: number[] = [];
      for (let i = 0; i < symbols.length; i++) {
        if (i + 1 < symbols.length && symbols[i] === left && symbols[i + 1] === right) {
          next.push(best.id);
          i++;
        } else next.push(symbols[i] as number);
      }
      symbols = next;
    }
    return symbols;
  }
}
