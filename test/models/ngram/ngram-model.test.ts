/**
 * N-gram known answers on a 10-token corpus, computed by hand (the derivations are in the comments), for
 * Kneser–Ney (interpolated, modified) and add-k: a seen n-gram, an unseen bigram after a seen context, an unseen
 * context that backs off, a token never seen at all; and the normalisation property (every distribution sums to
 * 1 and agrees with `logProb`) on random small corpora.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { type CountTable, countNgrams, type NgramOrder } from '../../../src/models/ngram/ngram-counts.js';
import { NgramModel, type NgramParameters } from '../../../src/models/ngram/ngram-model.js';

// a b a b c a b c c a  — ids a=0, b=1, c=2; d=3 never occurs. V = 4.
const [a, b, c, d] = [0, 1, 2, 3];
const CORPUS = Int32Array.of(a, b, a, b, c, a, b, c, c, a);
const counts = countNgrams([CORPUS], 3, 4);
// The same discounts at every level: D₁ = 0.5, D₂ = 1, D₃₊ = 1.5.
const kn = (order: NgramOrder): NgramModel =>
  new NgramModel(
    counts,
    { smoothing: 'kneser-ney', discounts: Array.from({ length: order }, () => [0.5, 1, 1.5]).flat() },
    order,
  );
const addK = (order: NgramOrder, k = 0.5): NgramModel =>
  new NgramModel(counts, { smoothing: 'add-k', k }, order);
const p = (m: NgramModel, history: number[], token: number): number => Math.exp(m.logProb(history, token));

// Tolerance: each probability is a handful of float64 operations; 1e-12 absolute is far above their rounding.
const CLOSE = 12;

describe('counts of the 10-token corpus', () => {
  it('raw and continuation counts, by context', () => {
    // Bigrams: ab ×3, ba ×1, bc ×2, ca ×2, cc ×1. Trigrams: aba, bab, abc ×2, bca, cab, bcc, cca.
    const [uni, bi, tri] = counts.raw as [CountTable, CountTable, CountTable];
    expect(uni.count(uni.context(0), a)).toBe(4);
    expect(bi.count(bi.context(a), b)).toBe(3);
    expect(bi.stats(bi.context(b))).toEqual({ total: 3, n1: 1, n2: 1, n3: 0 });
    expect(tri.count(tri.context(a * 4 + b), c)).toBe(2);
    // Continuation: a follows b and c → 2; b follows a → 1; c follows b and c → 2. (• a b): b a b, c a b → 2.
    const [cont1, cont2] = counts.continuation as [CountTable, CountTable];
    expect([a, b, c, d].map((w) => cont1.count(cont1.context(0), w))).toEqual([2, 1, 2, 0]);
    expect(cont2.count(cont2.context(a), b)).toBe(2);
    expect(cont1.countOfCounts).toEqual([1, 2, 0, 0]);
    expect(uni.countOfCounts).toEqual([0, 0, 2, 1]);
  });
});

describe('Kneser–Ney known answers (D₁ = 0.5, D₂ = 1, D₃₊ = 1.5)', () => {
  // Unigram level (continuation counts a 2, b 1, c 2, d 0; total 5; N₁ = 1, N₂ = 2): γ = (0.5·1 + 1·2)/5 = 0.5.
  // p₁(a) = (2 − 1)/5 + 0.5/4 = 0.325, p₁(b) = (1 − 0.5)/5 + 0.125 = 0.225, p₁(c) = 0.325, p₁(d) = 0.125.
  const p1 = [0.325, 0.225, 0.325, 0.125];

  it('bigram: a seen pair, an unseen pair after a seen context, an unseen token, an unseen context', () => {
    const m = kn(2);
    // Context a (raw): a b ×3, total 3, N₃₊ = 1 → γ = 1.5/3 = 0.5. p(b|a) = (3 − 1.5)/3 + 0.5·0.225 = 0.6125.
    expect(p(m, [a], b)).toBeCloseTo(0.6125, CLOSE);
    expect(p(m, [a], a)).toBeCloseTo(0.5 * 0.325, CLOSE); // unseen bigram: the unigram level, scaled by γ
    expect(p(m, [a], d)).toBeCloseTo(0.5 * 0.125, CLOSE); // a token never seen
    // Context d was never seen: back off to the unigram level entirely.
    for (const w of [a, b, c, d]) expect(p(m, [d], w)).toBeCloseTo(p1[w] as number, CLOSE);
  });

  it('trigram: the raw top order over continuation-count lower orders, and a context seen only at lower orders', () => {
    const m = kn(3);
    // Bigram level (continuation), context b: b a 1, b c 1 → total 2, N₁ = 2, γ = 0.5.
    // p₂(a|b) = 0.5/2 + 0.5·0.325 = 0.4125, p₂(c|b) = 0.4125, p₂(b|b) = 0.1125, p₂(d|b) = 0.0625.
    // Trigram context a b (raw): a b a 1, a b c 2 → total 3, N₁ = 1, N₂ = 1, γ = (0.5 + 1)/3 = 0.5.
    // p(c|a b) = (2 − 1)/3 + 0.5·0.4125 = 259/480; p(a|a b) = (1 − 0.5)/3 + 0.5·0.4125 = 179/480.
    expect(p(m, [a, b], c)).toBeCloseTo(259 / 480, CLOSE);
    expect(p(m, [a, b], a)).toBeCloseTo(179 / 480, CLOSE);
    expect(p(m, [a, b], b)).toBeCloseTo(0.5 * 0.1125, CLOSE);
    expect(p(m, [a, b], d)).toBeCloseTo(0.5 * 0.0625, CLOSE);
    // Context d a: never seen as a trigram context → the bigram level (continuation) for context a: a b 2,
    // total 2, N₂ = 1, γ = 0.5: p₂(b|a) = (2 − 1)/2 + 0.5·0.225 = 0.6125.
    expect(p(m, [d, a], b)).toBeCloseTo(0.6125, CLOSE);
    // Only the last two ids of a longer history count.
    expect(p(m, [d, d, a, b], c)).toBeCloseTo(259 / 480, CLOSE);
  });

  it('a history shorter than order − 1 is scored as the lower-order model; unigram KN on raw counts', () => {
    // The trigram model at the first position has one id of history: the bigram model's answer.
    expect(p(kn(3), [a], b)).toBeCloseTo(p(kn(2), [a], b), CLOSE);
    // Unigram model, raw counts a 4, b 3, c 3 (N₃₊ = 3, total 10): γ = 1.5·3/10 = 0.45.
    expect(p(kn(1), [], a)).toBeCloseTo((4 - 1.5) / 10 + 0.45 / 4, CLOSE);
    expect(p(kn(1), [b, c], d)).toBeCloseTo(0.45 / 4, CLOSE); // history ignored by a unigram
  });
});

describe('add-k known answers (k = 0.5, V = 4)', () => {
  it('seen and unseen n-grams, an unseen context (uniform), a token never seen', () => {
    expect(p(addK(3), [a, b], c)).toBeCloseTo((2 + 0.5) / (3 + 0.5 * 4), CLOSE);
    expect(p(addK(3), [a, b], d)).toBeCloseTo(0.5 / 5, CLOSE);
    expect(p(addK(3), [d, a], b)).toBeCloseTo(1 / 4, CLOSE); // unseen context: uniform
    expect(p(addK(2), [a], b)).toBeCloseTo((3 + 0.5) / (3 + 2), CLOSE);
    expect(p(addK(1), [], d)).toBeCloseTo(0.5 / (10 + 2), CLOSE);
    expect(p(addK(3), [a], b)).toBeCloseTo(p(addK(2), [a], b), CLOSE); // short history: the bigram
  });
});

describe('score', () => {
  it('sums −ln p of tokens from position 1, each after the ids before it', () => {
    const m = kn(3);
    const ids = Int32Array.of(a, b, c, d);
    const expected = -(m.logProb([a], b) + m.logProb([a, b], c) + m.logProb([b, c], d));
    expect(m.score(ids)).toEqual({ sumNll: expected, tokens: 3 });
    expect(m.score(ids, { from: 0 }).sumNll).toBeCloseTo(expected - m.logProb([], a), CLOSE);
    expect(m.score(Int32Array.of(a))).toEqual({ sumNll: 0, tokens: 0 });
  });
});

/** A random corpus over a small vocabulary, with a random history and smoothing parameters. */
const arbitraryCase = fc.record({
  vocab: fc.integer({ min: 2, max: 12 }),
  seed: fc.array(fc.nat(), { minLength: 1, maxLength: 80 }),
  order: fc.constantFrom<NgramOrder>(1, 2, 3),
  history: fc.array(fc.nat(), { maxLength: 4 }),
  k: fc.double({ min: 1e-6, max: 5, noNaN: true }),
  discounts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 9, maxLength: 9 }),
  kneserNey: fc.boolean(),
});

describe('property: a proper distribution over the whole vocabulary', () => {
  it('sums to 1 for any history (seen or not), matches logProb, and every id has p > 0', () => {
    fc.assert(
      fc.property(arbitraryCase, (t) => {
        const ids = Int32Array.from(t.seed, (x) => x % t.vocab);
        const history = t.history.map((x) => x % t.vocab);
        const parameters: NgramParameters = t.kneserNey
          ? {
              smoothing: 'kneser-ney',
              // D_i in (0, i]: scaled from [0, 1], kept off 0 so that unseen ids keep some mass.
              discounts: t.discounts.slice(0, 3 * t.order).map((x, i) => ((i % 3) + 1) * Math.max(x, 1e-3)),
            }
          : { smoothing: 'add-k', k: t.k };
        const m = new NgramModel(countNgrams([ids], t.order, t.vocab), parameters);
        const dist = m.distribution(history);
        expect(dist).toHaveLength(t.vocab);
        const sum = dist.reduce((s, x) => s + x, 0);
        expect(Math.abs(sum - 1)).toBeLessThan(1e-12);
        dist.forEach((x, w) => {
          expect(x).toBeGreaterThan(0);
          expect(Math.log(x)).toBeCloseTo(m.logProb(history, w), 10);
        });
      }),
      { numRuns: 300, seed: 46 },
    );
  });
});

describe('errors', () => {
  it('refuses ids outside the vocabulary, bad parameters and an order above the counts', () => {
    expect(() => countNgrams([Int32Array.of(0, 4)], 2, 4)).toThrow(messages.ngramBadToken(4, 4));
    expect(() => countNgrams([new Int32Array(0)], 2, 4)).toThrow(messages.ngramNoTokens('training text'));
    expect(() => kn(3).logProb([a, 9], b)).toThrow(messages.ngramBadToken(9, 4));
    expect(() => kn(3).logProb([a], -1)).toThrow(messages.ngramBadToken(-1, 4));
    expect(() => addK(2, 0)).toThrow(messages.ngramBadParameter('k', 0, 'a finite number > 0'));
    expect(() => new NgramModel(counts, { smoothing: 'kneser-ney', discounts: [0.5, 1, 1.5] }, 2)).toThrow(
      messages.ngramBadParameter('discounts count', 3, '6 (three per order)'),
    );
    expect(() => new NgramModel(counts, { smoothing: 'kneser-ney', discounts: [0.5, 2.5, 1] }, 1)).toThrow(
      messages.ngramBadParameter('discount D2', 2.5, 'in [0, 2]'),
    );
    const bigrams = countNgrams([CORPUS], 2, 4);
    expect(() => new NgramModel(bigrams, { smoothing: 'add-k', k: 1 }, 3)).toThrow(
      messages.ngramBadParameter('order', 3, '1 to 2 (the order of the counts)'),
    );
    expect(() => countNgrams([CORPUS], 3, 2 ** 18)).toThrow(/vocabSize must be an integer from 1 to 208063/);
  });
});
