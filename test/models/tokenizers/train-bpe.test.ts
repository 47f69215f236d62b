/**
 * `trainBpe` known answers: the merges a hand run of GPT-2's BPE gives on toy texts, with the tie rule (larger
 * count, then smaller left id, then smaller right id), overlapping pairs, `minPairCount` and the vocabulary size;
 * errors in the words of the library.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { gpt2PreTokenize } from '../../../src/models/tokenizers/gpt2-pre-tokenizer.js';
import { trainBpe } from '../../../src/models/tokenizers/train-bpe.js';

const [A, B, C, SPACE] = [97, 98, 99, 32];

describe('gpt2PreTokenize', () => {
  it("cuts GPT-2's way: contractions, a space joined to the next word, digits, symbols, whitespace runs", () => {
    expect(gpt2PreTokenize("Hello world, it's 2024!")).toEqual([
      'Hello',
      ' world',
      ',',
      ' it',
      "'s",
      ' 2024',
      '!',
    ]);
    // A whitespace run keeps its last character for the next word: "\n\n" before "c" is "\n" + "\n".
    expect(gpt2PreTokenize('a  b\n\nc ')).toEqual(['a', ' ', ' b', '\n', '\n', 'c', ' ']);
    expect(gpt2PreTokenize('')).toEqual([]);
  });

  it('property: the pre-tokens concatenate to the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (s) => {
        expect(gpt2PreTokenize(s).join('')).toBe(s);
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});

describe('trainBpe known answers', () => {
  it('"ba ab ba ab": three pairs tie at count 2 — the smaller left id wins, bytes before merged tokens', () => {
    // Words: "ba" ×1, " ab" ×2, " ba" ×1. Pairs: (b,a) 1+1 = 2, (␠,a) 2, (a,b) 2, (␠,b) 1.
    // Tie at 2 → smallest left id: (␠,a) = (32, 97) → 256. Words: [b,a], [256,b] ×2, [␠,b,a].
    // Pairs: (b,a) 2, (256,b) 2, (␠,b) 1 → tie, left 98 < 256: (b,a) → 257. Words: [257], [256,b] ×2, [␠,257].
    // Pairs: (256,b) 2, (␠,257) 1 → (256,b) → 258 (" ab"). Left: (␠,257) 1 < minPairCount 2: stop.
    const tok = trainBpe('ba ab ba ab', { vocabSize: 1000 });
    expect(tok.merges).toEqual([
      [SPACE, A],
      [B, A],
      [256, B],
    ]);
    expect(tok.vocabSize).toBe(260); // 256 bytes + 3 merges + <|endoftext|>
    expect(tok.endOfText).toBe(259);
    expect(tok.encode('ba ab ba ab')).toEqual([257, 258, SPACE, 257, 258]);
  });

  it('"abac": equal left ids — the smaller right id wins; minPairCount 1 merges pairs seen once', () => {
    // One word a b a c: (a,b), (b,a), (a,c) all 1 → left 97 for (a,b) and (a,c), right 98 < 99: (a,b) → 256.
    // [256, a, c]: (256,a) 1, (a,c) 1 → left 97 < 256: (a,c) → 257. [256, 257] → (256,257) → 258.
    const tok = trainBpe('abac', { vocabSize: 1000, minPairCount: 1 });
    expect(tok.merges).toEqual([
      [A, B],
      [A, C],
      [256, 257],
    ]);
    expect(tok.encode('abac')).toEqual([258]);
    expect(trainBpe('abac', { vocabSize: 1000 }).merges).toEqual([]); // every pair occurs once
  });

  it('counts overlapping pairs, merges left to right without overlap', () => {
    // "aaaa": (a,a) occurs 3 times → 256; the word becomes [256, 256]: (256,256) once, below minPairCount 2.
    const tok = trainBpe('aaaa', { vocabSize: 1000 });
    expect(tok.merges).toEqual([[A, A]]);
    expect(tok.encode('aaaa')).toEqual([256, 256]);
    expect(tok.encode('aaa')).toEqual([256, A]);
  });

  it('stops at vocabSize: 257 is the bytes and <|endoftext|> only, 258 adds the first merge', () => {
    expect(trainBpe('ba ab ba ab', { vocabSize: 257 }).merges).toEqual([]);
    expect(trainBpe('ba ab ba ab', { vocabSize: 257 }).vocabSize).toBe(257);
    expect(trainBpe('ba ab ba ab', { vocabSize: 258 }).merges).toEqual([[SPACE, A]]);
    expect(trainBpe('ba ab ba ab', { vocabSize: 258 }).vocabSize).toBe(258);
  });

  it('never merges across words: a pair that only spans a word boundary is not counted', () => {
    // "a a a": words "a", " a", " a" — (a,␠) never occurs inside a word, (␠,a) twice.
    expect(trainBpe('a a a', { vocabSize: 1000 }).merges).toEqual([[SPACE, A]]);
  });

  it('is deterministic: the same text gives the same merges and name', () => {
    const text = 'the cat sat on the mat; the cat ate the rat. '.repeat(20);
    const a = trainBpe(text, { vocabSize: 300 });
    const b = trainBpe(text, { vocabSize: 300 });
    expect(a.merges).toEqual(b.merges);
    expect(a.name).toBe(b.name);
    expect(a.name).toMatch(/^bpe-\d+-[0-9a-f]{8}$/);
    expect(trainBpe(text, { vocabSize: 270 }).name).not.toBe(a.name);
  });
});

describe('trainBpe errors', () => {
  it('refuses a vocabulary below 257 or not an integer, a minPairCount below 1, and empty text', () => {
    const allowed = 'an integer from 257 (the 256 bytes and <|endoftext|>) to 1048576';
    for (const v of [256, 0, 300.5, Number.NaN, 2 ** 21])
      expect(() => trainBpe('abc', { vocabSize: v })).toThrow(
        messages.invalidNumberOption('vocabSize', v, allowed),
      );
    expect(() => trainBpe('abc', { vocabSize: 300, minPairCount: 0 })).toThrow(
      messages.invalidNumberOption('minPairCount', 0, 'an integer ≥ 1'),
    );
    expect(() => trainBpe('', { vocabSize: 300 })).toThrow(messages.bpeEmptyText('text'));
    expect(() => trainBpe('', { vocabSize: 300, source: 'x.txt' })).toThrow(messages.bpeEmptyText('x.txt'));
  });
});
