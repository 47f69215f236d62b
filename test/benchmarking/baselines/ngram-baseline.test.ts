/**
 * The n-gram baseline scores held-out text exactly as the perplexity task does: a model whose logits are the
 * baseline bigram's distributions, run through `PerplexityTask` with sliding windows that cover the text, gets the
 * baseline's bits per byte, bits per token and token count. The relation fails if either side changes which
 * tokens it scores, which bytes it counts or how it turns nats into bits.
 */
import { describe, expect, it } from 'vitest';
import { ngramBaseline } from '../../../src/benchmarking/baselines/ngram-baseline.js';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { brownCorpusText } from '../../../src/benchmarking/data/brown-corpus.js';
import { PerplexityTask } from '../../../src/benchmarking/tasks/perplexity-task.js';
import { messages } from '../../../src/messages.js';
import { fitNgrams } from '../../../src/models/ngram/fit-ngram.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { trainBpe } from '../../../src/models/tokenizers/train-bpe.js';
import { Rng } from '../../../src/rng.js';
import { charTokenizer, contextFor, FakeModel } from '../fake-model.js';

const train = { text: brownCorpusText('train').slice(0, 200_000), name: 'train slice' };
// Held-out text with multi-byte characters: bytes, not characters, are what bits per byte divides by.
const heldOut = {
  text: `${brownCorpusText('held-out').slice(0, 12_000)} — café, naïve ±`,
  name: 'held-out slice',
};
const tok = trainBpe(train.text, { vocabSize: 300 });

describe('ngramBaseline', () => {
  const result = ngramBaseline(tok, { train, heldOut });

  it('one row per order and smoothing, the best the lowest bits per byte', () => {
    expect(result.rows.map((r) => `${r.order} ${r.smoothing}`)).toEqual([
      '1 add-k',
      '1 kneser-ney',
      '2 add-k',
      '2 kneser-ney',
      '3 add-k',
      '3 kneser-ney',
    ]);
    const lowest = Math.min(...result.rows.map((r) => r.metrics['bits_per_byte'] as number));
    expect(result.best.metrics['bits_per_byte']).toBe(lowest);
    expect(result.vocabSize).toBe(300);
    expect(result.train).toEqual({
      name: 'train slice',
      tokens: tok.encode(train.text).length,
      bytes: Buffer.byteLength(train.text),
    });
  });

  it('scores every held-out token after the first; bytes are those of the scored tokens', () => {
    const ids = tok.encode(heldOut.text);
    const scoredBytes = Buffer.byteLength(tok.decode(ids.slice(1)));
    expect(scoredBytes).toBeLessThan(Buffer.byteLength(heldOut.text));
    for (const row of result.rows) {
      const m = row.metrics as Record<string, number>;
      expect(m['tokens_scored']).toBe(ids.length - 1);
      // bits/byte · ln 2 · bytes = Σ NLL = eval_loss · tokens (1e-9: float64 rounding of a few operations).
      expect((m['bits_per_byte'] as number) * Math.LN2 * scoredBytes).toBeCloseTo(
        (m['eval_loss'] as number) * (m['tokens_scored'] as number),
        6,
      );
      expect(m['bits_per_token']).toBeCloseTo((m['eval_loss'] as number) / Math.LN2, 12);
    }
  });

  it("equals the perplexity task's bits per byte for a model whose logits are the bigram's distributions", async () => {
    const row = result.rows.find((r) => r.order === 2 && r.smoothing === 'kneser-ney');
    if (row === undefined) throw new Error('no bigram row');
    const [bigram] = fitNgrams(Int32Array.from(tok.encode(train.text)), tok.vocabSize, [
      { order: 2, smoothing: 'kneser-ney', parameters: row.parameters },
    ]);
    if (bigram === undefined) throw new Error('no bigram');
    const table = Array.from({ length: tok.vocabSize }, (_, prev) => Array.from(bigram.distribution([prev])));
    const model = new FakeModel({
      config: { vocabSize: tok.vocabSize, maxContext: 256 },
      bigram: table,
      tokenizer: tok,
    });
    // Windows of 256 targets every 256 tokens: every token from position 1 scored once, after its predecessor.
    const config = BenchmarkConfig.parse({
      evalSeqLen: 256,
      evalStride: 256,
      evalBatchSize: 8,
      evalBatches: 1000,
    });
    const task = new PerplexityTask({ dataSource: heldOut });
    const r = await task.run(new ARParadigm(model.config), model, config, new Rng(0), contextFor(model));
    // The model's logits are float32 log-probabilities and ORT scores them in float32: 1e-6 relative.
    expect(r.metrics['tokens_scored']).toBe(row.metrics['tokens_scored']);
    expect((r.metrics['bits_per_byte'] as number) / (row.metrics['bits_per_byte'] as number)).toBeCloseTo(
      1,
      6,
    );
    expect((r.metrics['bits_per_token'] as number) / (row.metrics['bits_per_token'] as number)).toBeCloseTo(
      1,
      6,
    );
  });

  it('refuses held-out text of fewer than two tokens, and empty or unknown orders and smoothings', () => {
    const chars = charTokenizer('ab');
    const text = { text: 'ab'.repeat(500), name: 'ab' };
    expect(() => ngramBaseline(chars, { train: text, heldOut: { text: 'a', name: 'one' } })).toThrow(
      messages.heldOutTooShort('one', 1),
    );
    expect(() => ngramBaseline(chars, { train: text, heldOut: text, orders: [] })).toThrow(
      messages.badChoiceList('orders', [], [1, 2, 3]),
    );
    expect(() =>
      ngramBaseline(chars, { train: text, heldOut: text, smoothings: ['witten-bell' as 'add-k'] }),
    ).toThrow(messages.badChoiceList('smoothings', ['witten-bell'], ['add-k', 'kneser-ney']));
  });
});
