/**
 * Choosing an n-gram's smoothing on a dev slice of its training stream: the split (every tenth of 100 blocks),
 * Chen and Goodman's discount estimates (known answer), and the search — the chosen k and discounts are minima of
 * the dev loss (moving any of them makes it worse) — and what `fitNgrams` returns.
 */
import { describe, expect, it } from 'vitest';
import { brownCorpusText } from '../../../src/benchmarking/data/brown-corpus.js';
import { messages } from '../../../src/messages.js';
import {
  chenGoodmanDiscounts,
  devSplit,
  fitNgrams,
  MIN_DISCOUNT,
  NGRAM_DEV_BLOCKS,
  tuneNgram,
} from '../../../src/models/ngram/fit-ngram.js';
import { CountTable, countNgrams, type NgramOrder } from '../../../src/models/ngram/ngram-counts.js';
import { NgramModel, type NgramParameters } from '../../../src/models/ngram/ngram-model.js';
import { ByteTokenizer } from '../../../src/models/tokenizers/byte-tokenizer.js';

/** 60 KB of the training split as bytes: a stream with a real distribution, fast to count. */
const ids = Int32Array.from(new ByteTokenizer().encode(brownCorpusText('train').slice(0, 60_000)));
const V = 256;
const { fit, dev } = devSplit(ids);
const fitCounts = countNgrams(fit, 3, V);

/** Mean dev loss (nats/token) of an n-gram on the fit counts with `parameters`. */
const devLoss = (order: NgramOrder, parameters: NgramParameters): number => {
  const m = new NgramModel(fitCounts, parameters, order);
  let nll = 0;
  let n = 0;
  for (const s of dev) {
    const r = m.score(s);
    nll += r.sumNll;
    n += r.tokens;
  }
  return nll / n;
};

describe('devSplit', () => {
  it('every tenth of 100 contiguous blocks is dev (blocks 10, 20, …), the rest fit; together the whole stream', () => {
    const stream = Int32Array.from({ length: 1000 }, (_, i) => i);
    const split = devSplit(stream);
    expect(split.dev).toHaveLength(10);
    expect(split.fit).toHaveLength(90);
    expect(Array.from(split.dev[0] as Int32Array)).toEqual([90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
    expect(Array.from(split.dev[9] as Int32Array).at(-1)).toBe(999);
    const all = [...split.fit, ...split.dev].flatMap((s) => Array.from(s)).sort((x, y) => x - y);
    expect(all).toEqual(Array.from(stream));
    expect(NGRAM_DEV_BLOCKS).toBe(100);
  });

  it('a stream shorter than 100 tokens: empty blocks are dropped, one-token blocks kept', () => {
    // Blocks 33, 66 and 99 hold one token each; block 99 is a dev block.
    const split = devSplit(Int32Array.of(1, 2, 3));
    expect(split.fit.map((s) => Array.from(s))).toEqual([[1], [2]]);
    expect(split.dev.map((s) => Array.from(s))).toEqual([[3]]);
  });
});

describe('chenGoodmanDiscounts', () => {
  it('n₁..n₄ = 4, 2, 1, 1: Y = 1/2, D₁ = 1 − 2Y·2/4 = 0.5, D₂ = 2 − 3Y·1/2 = 1.25, D₃₊ = 3 − 4Y·1/1 = 1', () => {
    // Unigram counts: tokens 0–3 once, 4–5 twice, 6 three times, 7 four times.
    const keys = Float64Array.from([0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 7, 7, 7, 7]);
    const table = new CountTable(keys, 8);
    expect(table.countOfCounts).toEqual([4, 2, 1, 1]);
    expect(chenGoodmanDiscounts(table)).toEqual([0.5, 1.25, 1]);
  });

  it('an estimate the counts cannot give (a zero count of counts) is i/2', () => {
    const table = new CountTable(Float64Array.from([0, 1, 1]), 2); // n₁ = 1, n₂ = 1, n₃ = n₄ = 0
    const [d1, d2, d3] = chenGoodmanDiscounts(table);
    expect(d1).toBeCloseTo(1 - (2 * (1 / 3) * 1) / 1, 12);
    expect(d2).toBe(1); // 2 − 3Y·0/1 = 2 is not inside (0, 2): 2/2
    expect(d3).toBe(1.5); // n₃ = 0: 3/2
  });
});

describe('tuneNgram: the chosen parameters minimise the dev loss', () => {
  it('add-k: k beats k × 1.5 and k / 1.5 (bigram, trigram); the bytes unigram wants the smallest k searched', () => {
    for (const order of [2, 3] as const) {
      const chosen = tuneNgram(fitCounts, dev, order, 'add-k');
      if (chosen.smoothing !== 'add-k') throw new Error('add-k expected');
      const at = (k: number): number => devLoss(order, { smoothing: 'add-k', k });
      expect(at(chosen.k)).toBeLessThan(at(chosen.k * 1.5));
      expect(at(chosen.k)).toBeLessThan(at(chosen.k / 1.5));
    }
    // Every dev byte was seen in the fit part: any k only takes mass from seen bytes.
    const unigram = tuneNgram(fitCounts, dev, 1, 'add-k');
    expect(unigram.smoothing === 'add-k' && unigram.k).toBeLessThan(1.01e-7);
  });

  it('Kneser–Ney: moving any one discount by ±0.02 (within its range [0.001, i]) does not lower the dev loss', () => {
    const chosen = tuneNgram(fitCounts, dev, 3, 'kneser-ney');
    if (chosen.smoothing !== 'kneser-ney') throw new Error('kneser-ney expected');
    const best = devLoss(3, chosen);
    chosen.discounts.forEach((x, i) => {
      for (const step of [-0.02, 0.02]) {
        const moved = Math.min((i % 3) + 1, Math.max(MIN_DISCOUNT, x + step));
        const d = chosen.discounts.slice();
        d[i] = moved;
        expect(devLoss(3, { smoothing: 'kneser-ney', discounts: d }), `D${i} ${step}`).toBeGreaterThanOrEqual(
          best - 1e-12,
        );
      }
    });
    // And the search improved on its start, Chen and Goodman's estimates.
    const start = [...countNgrams(fit, 3, V).continuation, fitCounts.raw[2] as CountTable].flatMap(
      chenGoodmanDiscounts,
    );
    expect(best).toBeLessThan(devLoss(3, { smoothing: 'kneser-ney', discounts: start }));
  });
});

describe('fitNgrams', () => {
  it('tunes on the dev slice, then counts the whole stream; given parameters are kept', () => {
    const given: NgramParameters = { smoothing: 'add-k', k: 0.25 };
    const [tuned, fixed] = fitNgrams(ids, V, [
      { order: 2, smoothing: 'kneser-ney' },
      { order: 3, smoothing: 'add-k', parameters: given },
    ]);
    expect(tuned?.parameters).toEqual(tuneNgram(fitCounts, dev, 2, 'kneser-ney'));
    expect(fixed?.parameters).toEqual(given);
    // Counted on the whole stream: the same probabilities as a model on counts of all ids.
    const whole = new NgramModel(countNgrams([ids], 3, V), given);
    expect(fixed?.logProb([116, 104], 101)).toBe(whole.logProb([116, 104], 101));
    expect(tuned?.order).toBe(2);
  });

  it('refuses parameters of another smoothing and a stream too short for a dev slice', () => {
    expect(() =>
      fitNgrams(ids, V, [{ order: 2, smoothing: 'kneser-ney', parameters: { smoothing: 'add-k', k: 1 } }]),
    ).toThrow(
      messages.ngramBadParameter('parameters.smoothing', 'add-k', 'the smoothing asked for, kneser-ney'),
    );
    // Its one dev block holds a single token: nothing to score after it.
    expect(() => fitNgrams(Int32Array.of(1, 2, 3), V, [{ order: 2, smoothing: 'add-k' }])).toThrow(
      messages.ngramDevTooShort(2),
    );
  });
});
