import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { brownSentences } from '../../../src/benchmarking/data/brown-corpus.js';
import {
  buildChoiceItems,
  CHOICE_LENGTH_TOLERANCE,
  splitSentences,
} from '../../../src/benchmarking/tasks/choice-items.js';
import { ChoiceTask, choiceVerdicts } from '../../../src/benchmarking/tasks/choice-task.js';
import { DantinoxError } from '../../../src/errors.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import type { Tokenizer } from '../../../src/models/tokenizer.js';
import { mcnemarTest } from '../../../src/profiling/index.js';
import { Rng } from '../../../src/rng.js';
import { contextFor, FakeModel } from '../fake-model.js';

// Twelve sentences of six words: sentence i is "ai bi ci di ei fi", so its context is "ai bi ci" and its true
// continuation "di ei fi" (8 bytes); sentences 10 and 11 have longer (two-digit) words, so their continuations (11
// bytes) have one other of their length, too few for three distractors: the items are sentences 0–9.
const N = 12;
const WORDS = Array.from({ length: N }, (_, i) =>
  ['a', 'b', 'c', 'd', 'e', 'f'].map((w) => `${w}${i}`),
).flat();
const SENTENCES = Array.from({ length: N }, (_, i) => WORDS.slice(i * 6, i * 6 + 6).join(' '));
const DATA = { text: SENTENCES.join('\n'), name: 'toy' };

/** A word tokenizer over {@link WORDS}: one id per word, spaces dropped. */
const words: Tokenizer = {
  name: 'words',
  vocabSize: WORDS.length,
  encode: (text) =>
    text
      .split(' ')
      .filter((w) => w !== '')
      .map((w) => WORDS.indexOf(w)),
  decode: (ids) => ids.map((i) => WORDS[i]).join(' '),
};

/** A bigram model that knows every sentence: after ci comes di (p = 0.9), after di ei, after ei fi. */
function oracle(): FakeModel {
  const v = WORDS.length;
  const bigram = Array.from({ length: v }, (_, a) => {
    const word = WORDS[a] as string;
    const next = ['c', 'd', 'e'].includes(word[0] as string) ? a + 1 : -1;
    return Array.from({ length: v }, (_, b) => (next < 0 ? 1 / v : b === next ? 0.9 : 0.1 / (v - 1)));
  });
  return new FakeModel({ config: { vocabSize: v }, tokenizer: words, bigram, info: { name: 'oracle' } });
}

/** Equal logits everywhere: every continuation of three words has the same log-likelihood. */
const uniform = (): FakeModel =>
  new FakeModel({ config: { vocabSize: WORDS.length }, tokenizer: words, info: { name: 'uniform' } });

const config = BenchmarkConfig.parse({ choiceItems: 12, choiceDistractors: 3, ciResamples: 200 });
/** The items the task draws with `new Rng(seed)`: its first split stream. */
const itemsOf = (seed: number) =>
  buildChoiceItems(SENTENCES, {
    items: 12,
    distractors: 3,
    rng: (new Rng(seed).split(2) as [Rng, Rng])[0],
    source: 'toy',
  });

const run = (model: FakeModel, options: ConstructorParameters<typeof ChoiceTask>[0] = {}, seed = 0) =>
  new ChoiceTask({ dataSource: DATA, ...options }).run(
    new ARParadigm(model.config),
    model,
    config,
    new Rng(seed),
    contextFor(model),
  );

describe('buildChoiceItems', () => {
  it('cuts each sentence in half, keeps k distinct distractors of its length from other sentences, seeded', () => {
    const items = itemsOf(0);
    expect(items).toHaveLength(10);
    for (const item of items) {
      expect(item.choices).toHaveLength(4);
      expect(new Set(item.choices).size).toBe(4);
      const i = Number(item.context.split(' ')[0]?.slice(1));
      expect(item.context).toBe(`a${i} b${i} c${i}`);
      expect(item.choices[item.gold]).toBe(`d${i} e${i} f${i}`);
      // Only 8-byte continuations: never those of sentences 10 and 11.
      expect(item.choices.every((c) => c.length === 8)).toBe(true);
    }
    // Every sentence of 0–9 is an item once; the gold positions are spread (not all at 0).
    expect(new Set(items.map((it) => it.context)).size).toBe(10);
    expect(new Set(items.map((it) => it.gold)).size).toBeGreaterThan(1);
    expect(itemsOf(0)).toEqual(items);
    expect(itemsOf(1)).not.toEqual(items);
  });

  it('draws distractors within 10% of the true continuation’s bytes, both bounds included', () => {
    // True continuation "aaaa bbbb cccccccccc" (20 bytes, so ±2): 18 and 22 bytes are in, 17 and 23 out.
    const continuation = (bytes: number) => `aaaa bbbb ${'c'.repeat(bytes - 10)}`;
    const sentence = (i: number, bytes: number) => `w${i} x${i} y${i} ${continuation(bytes)}`;
    const text = [sentence(0, 20), sentence(1, 18), sentence(2, 22), sentence(3, 17), sentence(4, 23)];
    expect(CHOICE_LENGTH_TOLERANCE).toBe(0.1);
    const items = buildChoiceItems(text, { items: 5, distractors: 2, rng: new Rng(0), source: 'lengths' });
    // Two others in range make an item: 20 → [18, 22] holds 18 and 22, 22 → [20, 24] holds 20 and 23; 18 → [17, 19],
    // 17 → [16, 18] and 23 → [21, 25] hold one each. Each item's distractors are exactly its two.
    const byContext = new Map(items.map((it) => [it.context, it.choices.map((c) => c.length).sort()]));
    expect(byContext).toEqual(
      new Map([
        ['w0 x0 y0', [18, 20, 22]],
        ['w2 x2 y2', [20, 22, 23]],
      ]),
    );
  });

  it('skips sentences outside 6–30 words and refuses a text with too few', () => {
    const short = ['one two three four five', ...SENTENCES.slice(0, 2)];
    expect(() =>
      buildChoiceItems(short, { items: 5, distractors: 3, rng: new Rng(0), source: 'short' }),
    ).toThrow(DantinoxError);
    const few = buildChoiceItems(short, { items: 5, distractors: 1, rng: new Rng(0), source: 'short' });
    expect(few).toHaveLength(2);
  });

  it('splitSentences cuts at line breaks and after . ! ? before white space', () => {
    expect(splitSentences('One two. Three "four?" Five\nsix!  Seven')).toEqual([
      'One two.',
      'Three "four?"',
      'Five',
      'six!',
      'Seven',
    ]);
  });

  it('draws from the held-out Brown split by default: thousands of eligible sentences', () => {
    const items = buildChoiceItems(brownSentences('held-out'), {
      items: 500,
      distractors: 3,
      rng: new Rng(0),
      source: 'brown',
    });
    expect(items).toHaveLength(500);
    for (const item of items) {
      const gold = Buffer.byteLength(item.choices[item.gold] as string);
      for (const c of item.choices)
        expect(Math.abs(Buffer.byteLength(c) - gold)).toBeLessThanOrEqual(gold / 10);
    }
  });
});

describe('ChoiceTask on a toy model whose answers are known', () => {
  it('a model that knows every sentence: accuracy and accuracy_norm 1, chance 1/4, zero-width intervals', async () => {
    const r = await run(oracle());
    expect(r.metrics).toMatchObject({
      accuracy: 1,
      accuracy_lo: 1,
      accuracy_hi: 1,
      accuracy_norm: 1,
      chance_accuracy: 0.25,
      items: 10,
    });
    expect(r.meta?.['ci_method']).toBe('95% percentile bootstrap over items (200 resamples, seeded)');
    expect(r.meta?.['data_source']).toBe('toy');
  });

  it('a uniform model: ties go to the first choice, by sum and per byte alike (one length per item)', async () => {
    const items = itemsOf(0);
    // Equal sums of continuations of equal bytes: arg-max is the first choice, so an item is right when its true
    // continuation is first.
    const first = items.filter((it) => it.gold === 0).length / items.length;
    const r = await run(uniform());
    expect(r.metrics['accuracy']).toBe(first);
    expect(r.metrics['accuracy_norm']).toBe(first);
    expect(r.metrics['accuracy_lo']).toBeLessThanOrEqual(first);
    expect(r.metrics['accuracy_hi']).toBeGreaterThanOrEqual(first);
    expect(first).toBeLessThan(1);
  });

  it('McNemar against a reference on the same items: b, c, p as hand-counted; b = c = 0 against itself', async () => {
    const items = itemsOf(0);
    const wrongWhenUniform = items.filter((it) => it.gold !== 0).length;
    const r = await run(oracle(), { reference: uniform() });
    // The oracle is right everywhere; the uniform reference only where the true continuation comes first.
    expect(r.metrics['mcnemar_b']).toBe(0);
    expect(r.metrics['mcnemar_c']).toBe(wrongWhenUniform);
    expect(r.metrics['mcnemar_p']).toBe(mcnemarTest(0, wrongWhenUniform).pValue);
    expect(r.metrics['reference_accuracy']).toBe((10 - wrongWhenUniform) / 10);
    expect(String(r.meta?.['mcnemar_method'])).toMatch(/^accuracy exact, accuracy_norm exact: McNemar/);
    expect(r.meta?.['reference']).toBe('uniform (fp32)');
    // The other way round, b and c swap.
    const back = await run(uniform(), { reference: oracle() });
    expect([back.metrics['mcnemar_b'], back.metrics['mcnemar_c']]).toEqual([wrongWhenUniform, 0]);
    const self = await run(oracle(), { reference: oracle() });
    expect(self.metrics).toMatchObject({ mcnemar_b: 0, mcnemar_c: 0, mcnemar_p: 1, reference_accuracy: 1 });
    // Without a reference, no McNemar columns.
    expect('mcnemar_p' in (await run(oracle())).metrics).toBe(false);
  });

  it('scores each item in one forward pass of k + 1 right-padded rows', async () => {
    const model = oracle();
    await run(model);
    const forwards = model.calls.filter((c) => c.kind === 'forward');
    expect(forwards).toHaveLength(10);
    for (const call of forwards) expect([call.batch, call.seq]).toEqual([4, 5]);
  });

  it('is deterministic for a seed and refuses a diffusion paradigm', async () => {
    expect((await run(uniform(), {}, 3)).metrics).toEqual((await run(uniform(), {}, 3)).metrics);
    const model = uniform();
    const diffusion = { ...new ARParadigm(model.config), type: 'diffusion' } as unknown as ARParadigm;
    await expect(
      new ChoiceTask({ dataSource: DATA }).run(diffusion, model, config, new Rng(0)),
    ).rejects.toThrow(DantinoxError);
  });
});

describe('choiceVerdicts', () => {
  it('accuracy by the largest sum, accuracy_norm by the largest sum per UTF-8 byte (lm-eval acc_norm)', () => {
    const item = { context: 'x', choices: ['ab', 'abcdef', 'é'], gold: 1 };
    // Sums −2, −3, −1.5: the third is largest. Per byte: −1, −0.5, −0.75 ('é' is two bytes): the second.
    expect(choiceVerdicts(item, [-2, -3, -1.5])).toEqual([false, true]);
    expect(choiceVerdicts({ ...item, gold: 2 }, [-2, -3, -1.5])).toEqual([true, false]);
  });
});
