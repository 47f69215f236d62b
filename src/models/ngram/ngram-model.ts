/**
 * `NgramModel`: a unigram, bigram or trigram language model over token ids, smoothed by interpolated modified
 * Kneser–Ney or by add-k, that gives every id of the vocabulary a probability.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { CountTable, NgramCounts, NgramOrder } from './ngram-counts.js';

/** The smoothings an {@link NgramModel} applies. */
export const NGRAM_SMOOTHINGS = ['add-k', 'kneser-ney'] as const;

/** How an {@link NgramModel} spreads probability to unseen n-grams. */
export type NgramSmoothing = (typeof NGRAM_SMOOTHINGS)[number];

/** The parameter of add-k smoothing. */
export interface AddKParameters {
  /** `add-k`. */
  readonly smoothing: 'add-k';
  /** The count added to every n-gram, > 0. */
  readonly k: number;
}

/** The discounts of interpolated modified Kneser–Ney smoothing. */
export interface KneserNeyParameters {
  /** `kneser-ney`. */
  readonly smoothing: 'kneser-ney';
  /**
   * Three per order, (D₁, D₂, D₃₊) for n-grams seen once, twice, three times or more, with D_i in [0, i]: the
   * unigram level's first, then the bigram's, then the trigram's.
   */
  readonly discounts: readonly number[];
}

/** The parameters of a smoothing: add-k's `k`, or Kneser–Ney's discounts. */
export type NgramParameters = AddKParameters | KneserNeyParameters;

/** Natural-log likelihood of a token stream under a model: what perplexity and bits per byte are made of. */
export interface NgramScore {
  /** Σ −ln p over the scored tokens, in nats. */
  readonly sumNll: number;
  /** Tokens scored. */
  readonly tokens: number;
}

/** Positions of a stream an {@link NgramModel.score} scores: from `from` to the end. */
export interface NgramScoreOptions {
  /**
   * First position scored; earlier ones are history only.
   * @default 1 (as in the perplexity task: token 0 is not predicted)
   */
  readonly from?: number;
}

/** Checks `parameters` for a model of `order`; returns them. */
function checkParameters(parameters: NgramParameters, order: NgramOrder): NgramParameters {
  const bad = (name: string, value: number, allowed: string): DantinoxError =>
    new DantinoxError('INVALID_OPTION', messages.ngramBadParameter(name, value, allowed));
  if (parameters.smoothing === 'add-k') {
    if (!(parameters.k > 0 && Number.isFinite(parameters.k)))
      throw bad('k', parameters.k, 'a finite number > 0');
    return parameters;
  }
  const d = parameters.discounts;
  if (d.length !== 3 * order) throw bad('discounts count', d.length, `${3 * order} (three per order)`);
  d.forEach((x, i) => {
    const cap = (i % 3) + 1;
    if (!(x >= 0 && x <= cap)) throw bad(`discount D${cap}${cap === 3 ? '+' : ''}`, x, `in [0, ${cap}]`);
  });
  return parameters;
}

/**
 * A unigram, bigram or trigram model over token ids `0 … vocabSize − 1`, on count tables (`countNgrams`). Every id
 * gets a probability and they sum to 1 for any history:
 *
 * - **add-k**: p(w | h) = (c(h w) + k) / (c(h •) + k·V), on the raw counts of the model's order; a context never
 *   seen gives the uniform 1/V.
 * - **Kneser–Ney** (interpolated, modified: Chen and Goodman 1998, three discounts per order): p_m(w | h) =
 *   (c − D(c)) / c(h •) + γ(h) · p_{m−1}(w | h′) with D(0) = 0, D(1) = D₁, D(2) = D₂, D(≥3) = D₃₊, γ(h) = (D₁N₁(h •)
 *   + D₂N₂(h •) + D₃₊N₃₊(h •)) / c(h •), and h′ the history without its oldest token; the top order uses raw counts,
 *   lower orders continuation counts (how many distinct tokens precede the (m−1)-gram), the unigram level
 *   interpolates with the uniform 1/V. A context never seen at an order backs off entirely to the order below.
 *
 * A history shorter than order − 1 (the first tokens of a stream) is scored by the longest order it fills.
 */
export class NgramModel {
  /** 1, 2 or 3. */
  readonly order: NgramOrder;
  /** Ids of the vocabulary, every one of which gets a probability. */
  readonly vocabSize: number;
  /** The smoothing and its parameters. */
  readonly parameters: NgramParameters;
  readonly #counts: NgramCounts;

  /**
   * @param counts - count tables of order ≥ `order` (`countNgrams`); models of several orders and
   *   smoothings may share them.
   * @param order - the model's order. @default counts.order
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for an order above the counts', a `k` ≤ 0, a
   *   discount count other than 3 × order or a discount D_i outside [0, i].
   */
  constructor(counts: NgramCounts, parameters: NgramParameters, order: NgramOrder = counts.order) {
    if (!(order >= 1 && order <= counts.order && Number.isInteger(order)))
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.ngramBadParameter('order', order, `1 to ${counts.order} (the order of the counts)`),
      );
    this.order = order;
    this.vocabSize = counts.vocabSize;
    this.parameters = checkParameters(parameters, order);
    this.#counts = counts;
  }

  /** The table level m (1 … order) reads: raw counts at the top order (and for add-k), continuation counts below. */
  #table(m: number, top: number): CountTable {
    const { raw, continuation } = this.#counts;
    return (m === top || this.parameters.smoothing === 'add-k' ? raw : continuation)[m - 1] as CountTable;
  }

  /** The key of the last `length` ids of `history`. */
  #contextKey(history: ArrayLike<number>, length: number): number {
    let key = 0;
    for (let i = history.length - length; i < history.length; i++) {
      const id = history[i] as number;
      if (!(id >= 0 && id < this.vocabSize))
        throw new DantinoxError('INVALID_INPUT', messages.ngramBadToken(id, this.vocabSize));
      key = key * this.vocabSize + id;
    }
    return key;
  }

  /** The order used for `history`: the model's, or less when the history is shorter. */
  #top(history: ArrayLike<number>): number {
    return Math.min(this.order, history.length + 1);
  }

  /**
   * ln p(`token` | `history`), in nats; only the last order − 1 ids of `history` matter.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for an id outside the vocabulary.
   */
  logProb(history: ArrayLike<number>, token: number): number {
    if (!(token >= 0 && token < this.vocabSize && Number.isInteger(token)))
      throw new DantinoxError('INVALID_INPUT', messages.ngramBadToken(token, this.vocabSize));
    return Math.log(this.#prob(history, token));
  }

  #prob(history: ArrayLike<number>, token: number): number {
    const top = this.#top(history);
    const V = this.vocabSize;
    if (this.parameters.smoothing === 'add-k') {
      const { k } = this.parameters;
      const table = this.#table(top, top);
      const c = table.context(this.#contextKey(history, top - 1));
      if (c < 0) return 1 / V;
      return (table.count(c, token) + k) / ((table.totals[c] as number) + k * V);
    }
    const d = this.parameters.discounts;
    let p = 1 / V;
    for (let m = 1; m <= top; m++) {
      const table = this.#table(m, top);
      const c = table.context(this.#contextKey(history, m - 1));
      if (c < 0) continue; // never seen at this order: the order below stands
      const { total, n1, n2, n3 } = table.stats(c);
      const base = 3 * (m - 1);
      const d1 = d[base] as number;
      const d2 = d[base + 1] as number;
      const d3 = d[base + 2] as number;
      const count = table.count(c, token);
      const discount = count === 0 ? 0 : count === 1 ? d1 : count === 2 ? d2 : d3;
      p = (count - discount) / total + ((d1 * n1 + d2 * n2 + d3 * n3) / total) * p;
    }
    return p;
  }

  /**
   * The probabilities of every id after `history` (`vocabSize` values summing to 1), in O(vocabSize).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for an id outside the vocabulary.
   */
  distribution(history: ArrayLike<number>): Float64Array {
    const top = this.#top(history);
    const V = this.vocabSize;
    const p = new Float64Array(V);
    if (this.parameters.smoothing === 'add-k') {
      const { k } = this.parameters;
      const table = this.#table(top, top);
      const c = table.context(this.#contextKey(history, top - 1));
      if (c < 0) return p.fill(1 / V);
      const denominator = (table.totals[c] as number) + k * V;
      p.fill(k / denominator);
      for (let i = table.starts[c] as number; i < (table.starts[c + 1] as number); i++) {
        const w = table.tokens[i] as number;
        p[w] = (p[w] as number) + (table.counts[i] as number) / denominator;
      }
      return p;
    }
    const d = this.parameters.discounts;
    p.fill(1 / V);
    for (let m = 1; m <= top; m++) {
      const table = this.#table(m, top);
      const c = table.context(this.#contextKey(history, m - 1));
      if (c < 0) continue;
      const { total, n1, n2, n3 } = table.stats(c);
      const base = 3 * (m - 1);
      const d1 = d[base] as number;
      const d2 = d[base + 1] as number;
      const d3 = d[base + 2] as number;
      const gamma = (d1 * n1 + d2 * n2 + d3 * n3) / total;
      for (let w = 0; w < V; w++) p[w] = (p[w] as number) * gamma;
      for (let i = table.starts[c] as number; i < (table.starts[c + 1] as number); i++) {
        const count = table.counts[i] as number;
        const discount = count === 1 ? d1 : count === 2 ? d2 : d3;
        const w = table.tokens[i] as number;
        p[w] = (p[w] as number) + (count - discount) / total;
      }
    }
    return p;
  }

  /**
   * The negative log-likelihood of `ids[from …]`, each token given the ids before it in `ids` (at most order − 1
   * of them), summed in float64.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for an id outside the vocabulary.
   */
  score(ids: Int32Array, options: NgramScoreOptions = {}): NgramScore {
    const from = Math.max(0, options.from ?? 1);
    let sumNll = 0;
    for (let i = from; i < ids.length; i++) {
      const history = ids.subarray(Math.max(0, i - this.order + 1), i);
      sumNll -= this.logProb(history, ids[i] as number);
    }
    return { sumNll, tokens: Math.max(0, ids.length - from) };
  }
}
