/**
 * Turns generated token ids into text as they come, for streaming: text is released only once it cannot become
 * part of a stop text or of a character still incomplete (a multi-byte UTF-8 character split over tokens decodes
 * to U+FFFD until its last byte arrives), and generation stops at the first stop text, which is not returned.
 *
 * @packageDocumentation
 */
import type { Tokenizer } from '../../models/tokenizer.js';

const REPLACEMENT = '\uFFFD';

/** The text of a generation, released piece by piece (see the module comment). */
export class StopTextStream {
  readonly #tokenizer: Tokenizer;
  readonly #stops: readonly string[];
  readonly #eosTokenId: number | undefined;
  readonly #holdBack: number;
  readonly #ids: number[] = [];
  #text = '';
  #released = 0;
  #stopped = false;

  constructor(tokenizer: Tokenizer, stops: readonly string[], eosTokenId?: number) {
    this.#tokenizer = tokenizer;
    this.#stops = stops.filter((s) => s.length > 0);
    this.#eosTokenId = eosTokenId;
    this.#holdBack = Math.max(0, ...this.#stops.map((s) => s.length - 1));
  }

  /** Whether a stop text was generated (the text ends before it). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The text released so far; after {@link StopTextStream.flush}, the whole generated text. */
  get text(): string {
    return this.#text.slice(0, this.#released);
  }

  /**
   * Adds generated token `id` and returns the text that became safe to release (often `''`). The end-of-sequence
   * token adds no text. After a stop text, returns the text before it and ignores further tokens.
   */
  push(id: number): string {
    if (this.#stopped || id === this.#eosTokenId) return '';
    this.#ids.push(id);
    this.#text = this.#tokenizer.decode(this.#ids);
    const from = Math.max(0, this.#released - this.#holdBack);
    let stopAt = -1;
    for (const stop of this.#stops) {
      const at = this.#text.indexOf(stop, from);
      if (at >= 0 && (stopAt < 0 || at < stopAt)) stopAt = at;
    }
    if (stopAt >= 0) {
      this.#stopped = true;
      return this.#release(Math.max(stopAt, this.#released));
    }
    // Trailing U+FFFD may be a character still incomplete; a stop text may start in the last holdBack characters
    // before it, so both are held back.
    let complete = this.#text.length;
    while (complete > this.#released && this.#text[complete - 1] === REPLACEMENT) complete--;
    return this.#release(complete - this.#holdBack);
  }

  /** The text held back so far (the generation has ended). */
  flush(): string {
    return this.#stopped ? '' : this.#release(this.#text.length);
  }

  #release(upTo: number): string {
    if (upTo <= this.#released) return '';
    const piece = this.#text.slice(this.#released, upTo);
    this.#released = upTo;
    return piece;
  }
}
