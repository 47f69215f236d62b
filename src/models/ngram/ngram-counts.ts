/**
 * The count tables of an n-gram model: for each length m ≤ n, how often each m-gram occurs (raw counts), and for
 * m < n how many distinct tokens precede it (Kneser–Ney's continuation counts), grouped by context.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';

/** N-gram orders dantinox fits: unigram, bigram, trigram. */
export const NGRAM_ORDERS = [1, 2, 3] as const;

/** An n-gram order: 1 (unigram), 2 (bigram) or 3 (trigram). */
export type NgramOrder = (typeof NGRAM_ORDERS)[number];

/** Largest integer a float64 holds exactly: m-gram keys (ids in base `vocabSize`) must stay below it. */
const EXACT = 2 ** 53;

/** What {@link CountTable.stats} returns for one context: its total and how many tokens follow it 1, 2, ≥ 3 times. */
export interface ContextStats {
  /** Σ of the counts of the tokens after the context. */
  readonly total: number;
  /** Tokens seen exactly once after the context. */
  readonly n1: number;
  /** Tokens seen exactly twice. */
  readonly n2: number;
  /** Tokens seen three times or more. */
  readonly n3: number;
}

/**
 * Counts of m-grams grouped by their context (the first m − 1 ids, as one key in base `vocabSize`): sorted
 * contexts, and in each the following tokens (ascending) with their counts.
 */
export class CountTable {
  /** Context keys, ascending. */
  readonly contexts: Float64Array;
  /** Where each context's tokens start in {@link CountTable.tokens} (one more entry than contexts). */
  readonly starts: Int32Array;
  /** The token that follows, per m-gram. */
  readonly tokens: Int32Array;
  /** The count, per m-gram. */
  readonly counts: Float64Array;
  /** Per context: Σ counts, and the number of tokens of count 1, 2 and ≥ 3. */
  readonly totals: Float64Array;
  readonly #n: [Int32Array, Int32Array, Int32Array];
  /** How many m-grams have count 1, 2, 3 and 4 (index 0–3): Chen and Goodman's discount estimates use them. */
  readonly countOfCounts: readonly [number, number, number, number];

  /**
   * @param keys - one key per occurrence (context key · vocabSize + token), in any order; sorted in place.
   * @param vocabSize - the base of the keys.
   */
  constructor(keys: Float64Array, vocabSize: number) {
    keys.sort();
    const uniq: number[] = [];
    const cnt: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as number;
      if (uniq.length > 0 && uniq[uniq.length - 1] === k)
        cnt[cnt.length - 1] = (cnt[cnt.length - 1] as number) + 1;
      else {
        uniq.push(k);
        cnt.push(1);
      }
    }
    this.tokens = Int32Array.from(uniq, (k) => k % vocabSize);
    this.counts = Float64Array.from(cnt);
    const contexts: number[] = [];
    const starts: number[] = [];
    uniq.forEach((k, i) => {
      const c = Math.floor(k / vocabSize);
      if (contexts.length === 0 || contexts[contexts.length - 1] !== c) {
        contexts.push(c);
        starts.push(i);
      }
    });
    starts.push(uniq.length);
    this.contexts = Float64Array.from(contexts);
    this.starts = Int32Array.from(starts);
    this.totals = new Float64Array(contexts.length);
    this.#n = [
      new Int32Array(contexts.length),
      new Int32Array(contexts.length),
      new Int32Array(contexts.length),
    ];
    const coc: [number, number, number, number] = [0, 0, 0, 0];
    for (let c = 0; c < contexts.length; c++) {
      for (let i = this.starts[c] as number; i < (this.starts[c + 1] as number); i++) {
        const n = this.counts[i] as number;
        this.totals[c] = (this.totals[c] as number) + n;
        const bucket = this.#n[Math.min(n, 3) - 1] as Int32Array;
        bucket[c] = (bucket[c] as number) + 1;
        if (n <= 4) coc[n - 1] = (coc[n - 1] as number) + 1;
      }
    }
    this.countOfCounts = coc;
  }

  /** Number of distinct m-grams. */
  get size(): number {
    return this.tokens.length;
  }

  /** Index of context `key`, or −1 when it was never seen. */
  context(key: number): number {
    let lo = 0;
    let hi = this.contexts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = this.contexts[mid] as number;
      if (k === key) return mid;
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The count of `token` after context index `c` (0 when it never followed it). */
  count(c: number, token: number): number {
    let lo = this.starts[c] as number;
    let hi = (this.starts[c + 1] as number) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = this.tokens[mid] as number;
      if (t === token) return this.counts[mid] as number;
      if (t < token) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Total and count-of-counts of context index `c`. */
  stats(c: number): ContextStats {
    return {
      total: this.totals[c] as number,
      n1: this.#n[0][c] as number,
      n2: this.#n[1][c] as number,
      n3: this.#n[2][c] as number,
    };
  }

  /**
   * The table of continuation counts one order down: for each (m − 1)-gram, the number of distinct tokens that
   * precede it among this table's m-grams (Kneser–Ney's N₁₊(• w)).
   */
  continuation(vocabSize: number, m: number): CountTable {
    const rest = vocabSize ** (m - 2); // the context without its first token is its key modulo V^(m−2)
    const keys = new Float64Array(this.size);
    for (let c = 0; c < this.contexts.length; c++) {
      const ctx = ((this.contexts[c] as number) % rest) * vocabSize;
      for (let j = this.starts[c] as number; j < (this.starts[c + 1] as number); j++)
        keys[j] = ctx + (this.tokens[j] as number);
    }
    return new CountTable(keys, vocabSize);
  }
}

/** The count tables of a token stream up to some order: what {@link NgramModel}s of that order or lower read. */
export interface NgramCounts {
  /** The longest n-grams counted. */
  readonly order: NgramOrder;
  /** The base of the keys: ids are `0 … vocabSize − 1`. */
  readonly vocabSize: number;
  /** Raw counts of lengths 1 … order (index m − 1). */
  readonly raw: readonly CountTable[];
  /** Continuation counts of lengths 1 … order − 1 (index m − 1), from the raw counts one length up. */
  readonly continuation: readonly CountTable[];
}

/**
 * The raw count tables of lengths 1 … `order` over `segments` (an m-gram never spans two segments), and the
 * continuation tables of lengths 1 … `order` − 1.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the segments hold no token or an id outside
 *   `[0, vocabSize)`; `INVALID_OPTION` when `vocabSize^order` m-gram keys do not fit in a float64 integer.
 */
export function countNgrams(
  segments: readonly Int32Array[],
  order: NgramOrder,
  vocabSize: number,
): NgramCounts {
  if (!Number.isSafeInteger(vocabSize) || vocabSize < 1 || vocabSize ** order >= EXACT)
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.ngramBadParameter(
        'vocabSize',
        vocabSize,
        `an integer from 1 to ${Math.floor(EXACT ** (1 / order))} for order ${order}`,
      ),
    );
  let n = 0;
  for (const s of segments) {
    for (const id of s)
      if (!(id >= 0 && id < vocabSize))
        throw new DantinoxError('INVALID_INPUT', messages.ngramBadToken(id, vocabSize));
    n += s.length;
  }
  if (n === 0) throw new DantinoxError('INVALID_INPUT', messages.ngramNoTokens('training text'));
  const raw: CountTable[] = [];
  for (let m = 1; m <= order; m++) {
    const keys = new Float64Array(segments.reduce((sum, s) => sum + Math.max(0, s.length - m + 1), 0));
    let k = 0;
    for (const s of segments) {
      for (let i = m - 1; i < s.length; i++) {
        let key = 0;
        for (let j = i - m + 1; j <= i; j++) key = key * vocabSize + (s[j] as number);
        keys[k++] = key;
      }
    }
    raw.push(new CountTable(keys, vocabSize));
  }
  const continuation = raw.slice(1).map((t, i) => t.continuation(vocabSize, i + 2));
  return { order, vocabSize, raw, continuation };
}
