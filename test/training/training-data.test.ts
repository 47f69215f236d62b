/** The split, the batches and the validation windows: what a run trains on and scores. */
import { describe, expect, it } from 'vitest';
import { brownCorpusText } from '../../src/benchmarking/data/brown-corpus.js';
import { scoredBytes } from '../../src/benchmarking/tasks/perplexity-task.js';
import { maskTokens } from '../../src/models/paradigms/diffusion-paradigm.js';
import { ByteTokenizer } from '../../src/models/tokenizers/byte-tokenizer.js';
import { Rng } from '../../src/rng.js';
import {
  brownTrainingText,
  splitTrainingText,
  tokenizeText,
  trainingBatch,
  validationMetrics,
  validationSet,
} from '../../src/training/training-data.js';
import { trainingRng } from '../../src/training/training-rng.js';
import { thrown } from '../thrown.js';

const paragraphs = (n: number): string =>
  Array.from({ length: n }, (_, i) => `paragraph ${i + 1}`).join('\n\n');

describe('the train / held-out split', () => {
  it('holds out every tenth paragraph of a file (blank lines with spaces count as blank)', () => {
    const text = `${paragraphs(19)}\n  \t\nparagraph 20\n\n\n\nparagraph 21`;
    const split = splitTrainingText(text, 'notes.txt');
    expect(split.heldOut).toBe('paragraph 10\n\nparagraph 20');
    expect(split.train.split('\n\n')).toHaveLength(19);
    expect(split.train).not.toMatch(/paragraph 10\b|paragraph 20\b/);
    expect(split.name).toBe('notes.txt');
  });

  it('refuses an empty text and one of fewer than ten paragraphs, naming --data', () => {
    const empty = thrown(() => splitTrainingText(' \n\n ', 'empty.txt'));
    expect(empty.code).toBe('INVALID_INPUT');
    expect(empty.message).toMatch(/--data/);
    const few = thrown(() => splitTrainingText(paragraphs(9), 'few.txt'));
    expect(few.message).toMatch(/9 paragraphs.*at least 10/);
    expect(splitTrainingText(paragraphs(10), 'ten.txt').heldOut).toBe('paragraph 10');
  });

  it("is the Brown corpus's fixed split by default", () => {
    const brown = brownTrainingText();
    expect(brown.train).toBe(brownCorpusText('train'));
    expect(brown.heldOut).toBe(brownCorpusText('held-out'));
  });
});

describe('training batches', () => {
  const tokens = Int32Array.from({ length: 100 }, (_, i) => i);

  it('are windows drawn by the step generator, targets the next tokens, weights a mean', () => {
    const b = trainingBatch(tokens, { batch: 3, seq: 5 }, 'ar', trainingRng(7, 'batch', 3), 255);
    const again = trainingBatch(tokens, { batch: 3, seq: 5 }, 'ar', trainingRng(7, 'batch', 3), 255);
    expect(b).toEqual(again);
    for (let r = 0; r < 3; r++) {
      const start = b.inputs[r * 5] as number;
      expect([...b.inputs.subarray(r * 5, r * 5 + 5)]).toEqual([0, 1, 2, 3, 4].map((k) => start + k));
      expect([...b.targets.subarray(r * 5, r * 5 + 5)]).toEqual(
        [1, 2, 3, 4, 5].map((k) => BigInt(start + k)),
      );
    }
    expect(b.weights.reduce((s, w) => s + w, 0)).toBeCloseTo(1, 6);
    expect(b.scored).toBe(15);
    expect(
      trainingBatch(tokens, { batch: 3, seq: 5 }, 'ar', trainingRng(7, 'batch', 4), 255).inputs,
    ).not.toEqual(b.inputs);
  });

  it('reach the last token: a window may end at the stream end', () => {
    const short = Int32Array.of(1, 2, 3);
    const b = trainingBatch(short, { batch: 4, seq: 2 }, 'ar', new Rng(0), 255);
    expect([...b.targets]).toEqual([2n, 3n, 2n, 3n, 2n, 3n, 2n, 3n]);
  });

  it('diffusion: the perplexity task masking, targets in place, the mean over masked tokens', () => {
    const b = trainingBatch(tokens, { batch: 2, seq: 8 }, 'diffusion', trainingRng(1, 'batch', 0), 99);
    const rng = trainingRng(1, 'batch', 0);
    const starts = [rng.int(93), rng.int(93)];
    const clean = Int32Array.from(starts.flatMap((s) => [0, 1, 2, 3, 4, 5, 6, 7].map((k) => s + k)));
    const { noisy, masked } = maskTokens(clean, { batch: 2, seq: 8 }, rng, 99);
    expect([...b.inputs]).toEqual([...noisy]);
    expect([...b.targets]).toEqual([...clean].map(BigInt));
    const count = masked.reduce((s, m) => s + m, 0);
    expect(b.scored).toBe(count);
    expect([...b.weights]).toEqual([...masked].map((m) => Math.fround(m / count)));
  });
});

describe('validation windows', () => {
  const tokenizer = new ByteTokenizer();
  const heldOut = tokenizeText(tokenizer, 'The held-out text: every token of it is a target once. ');

  it('score every held-out token from the second on exactly once, padding the last batch with weight 0', () => {
    const set = validationSet(heldOut, {
      shape: { batch: 4, seq: 8 },
      maxBatches: 10,
      paradigm: 'ar',
      tokenizer,
      seed: 0,
      maskTokenId: 255,
    });
    const windows = Math.floor((heldOut.length - 9) / 8) + 1;
    expect(set.tokens).toBe(windows * 8);
    expect(set.batches).toHaveLength(Math.ceil(windows / 4));
    const targets = set.batches.flatMap((b) => [...b.targets].filter((_, k) => (b.weights[k] as number) > 0));
    expect(targets.map(Number)).toEqual([...heldOut.subarray(1, 1 + windows * 8)]);
    expect(set.bytes).toBe(scoredBytes(tokenizer, heldOut.subarray(1, 1 + windows * 8)));
    expect(validationMetrics(set, set.tokens * 2)).toEqual({
      loss: 2,
      bitsPerByte: (set.tokens * 2) / (Math.LN2 * (set.bytes as number)),
    });
  });

  it('spread evenly over the text when there are more windows than batches', () => {
    const long = Int32Array.from({ length: 1000 }, (_, i) => i % 256);
    const set = validationSet(long, {
      shape: { batch: 2, seq: 10 },
      maxBatches: 2,
      paradigm: 'ar',
      tokenizer,
      seed: 0,
      maskTokenId: 255,
    });
    // 99 windows, 4 kept: 0, 24, 49, 74 (⌊j · 99 / 4⌋), each 10 tokens apart in the stream.
    expect(set.batches.flatMap((b) => [b.inputs[0], b.inputs[10]])).toEqual([0, 240, 490 % 256, 740 % 256]);
  });

  it('refuse a held-out text shorter than one window', () => {
    const e = thrown(() =>
      validationSet(Int32Array.of(1, 2, 3), {
        shape: { batch: 1, seq: 8 },
        maxBatches: 1,
        paradigm: 'ar',
        tokenizer,
        seed: 0,
        maskTokenId: 255,
      }),
    );
    expect(e.message).toMatch(/held-out text has 3 tokens.*--seq-len/);
  });

  it('diffusion windows are masked the same way at every validation', () => {
    const options = {
      shape: { batch: 2, seq: 8 },
      maxBatches: 2,
      paradigm: 'diffusion' as const,
      tokenizer,
      seed: 3,
      maskTokenId: 255,
    };
    const a = validationSet(heldOut, options);
    expect(validationSet(heldOut, options)).toEqual(a);
    expect(a.bytes).toBeUndefined();
    expect(a.tokens).toBe(a.batches.reduce((s, b) => s + b.weights.reduce((t, w) => t + w, 0), 0));
  });
});
