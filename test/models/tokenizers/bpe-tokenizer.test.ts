/**
 * A trained byte-level BPE encodes like its own `tokenizer.json` does in `@huggingface/tokenizers` (dantinox's
 * `HfTokenizer`) and in transformers.js: equal ids on the Brown corpus's held-out text and on random text, and
 * lossless round trips. `tokenizer.json` is written in GPT-2's layout; merge lists are checked.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brownCorpusText } from '../../../src/benchmarking/data/brown-corpus.js';
import { messages } from '../../../src/messages.js';
import { HfTokenizer, loadHfTokenizer } from '../../../src/models/hf/hf-tokenizer.js';
import { bytesToUnicode, END_OF_TEXT } from '../../../src/models/hf/hf-tokenizer-json.js';
import { BpeTokenizer } from '../../../src/models/tokenizers/bpe-tokenizer.js';
import { trainBpe } from '../../../src/models/tokenizers/train-bpe.js';

/** A 1,024-id vocabulary learned from the first 1 MB of the training split (≈ 0.5 s). */
const tok = trainBpe(brownCorpusText('train').slice(0, 1_000_000), { vocabSize: 1024 });
const files = tok.tokenizerFiles();
const hf = new HfTokenizer(files.tokenizerJson, files.tokenizerConfig);
const heldOut = brownCorpusText('held-out');
const dir = mkdtempSync(join(tmpdir(), 'dantinox-bpe-'));
const folder = join(dir, 'bpe-1024');
mkdirSync(folder);
writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify(files.tokenizerJson));
writeFileSync(join(folder, 'tokenizer_config.json'), JSON.stringify(files.tokenizerConfig));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SAMPLES = [
  'Hello world!',
  "It's a test: 12345 naïve café — ünïcödé   spaces\n\nnewlines",
  "Tabs\tand 'quotes' don't won't I'll. 3.14159 ±∞ 日本語 emoji 🎉🎉",
  ' leading space and trailing ',
  `one${END_OF_TEXT}two ${END_OF_TEXT}`,
];

describe('BpeTokenizer and its tokenizer.json in @huggingface/tokenizers', () => {
  it('has the asked size, with <|endoftext|> last, and GPT-2 layout files', () => {
    expect(tok.vocabSize).toBe(1024);
    expect(tok.endOfText).toBe(1023);
    expect(hf.vocabSize).toBe(1024);
    const model = files.tokenizerJson['model'] as { vocab: Record<string, number>; merges: string[] };
    const alphabet = bytesToUnicode();
    expect(model.vocab[alphabet[32] as string]).toBe(32); // id = byte value for the 256 bytes
    expect(model.vocab[END_OF_TEXT]).toBe(1023);
    expect(model.merges).toHaveLength(tok.merges.length);
    const [a, b] = tok.merges[0] as readonly [number, number];
    expect(model.merges[0]).toBe(
      `${[...(tok.tokens[a] as Uint8Array)].map((x) => alphabet[x]).join('')} ${[
        ...(tok.tokens[b] as Uint8Array),
      ]
        .map((x) => alphabet[x])
        .join('')}`,
    );
    expect(files.tokenizerConfig).toMatchObject({
      eos_token: END_OF_TEXT,
      clean_up_tokenization_spaces: false,
    });
  });

  it('encodes the held-out Brown text to the same ids and decodes it back whole', () => {
    const ids = tok.encode(heldOut);
    expect(hf.encode(heldOut)).toEqual(ids);
    expect(tok.decode(ids)).toBe(heldOut);
    expect(hf.decode(ids)).toBe(heldOut);
    expect(ids.length / heldOut.length).toBeLessThan(0.45); // merges were learned: fewer tokens than bytes
  });

  it('samples, the special token included: same ids and round trips', () => {
    for (const text of SAMPLES) {
      const ids = tok.encode(text);
      expect(hf.encode(text), text).toEqual(ids);
      expect(tok.decode(ids)).toBe(text);
      expect(hf.decode(ids)).toBe(text);
    }
    expect(tok.encode(`a${END_OF_TEXT}b`)).toEqual([97, 1023, 98]);
    expect(tok.encode('')).toEqual([]);
  });

  it('property: equal ids and lossless round trips on random unicode text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        const ids = tok.encode(text);
        expect(hf.encode(text)).toEqual(ids);
        expect(tok.decode(ids)).toBe(text);
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it('loads from a folder with loadHfTokenizer', () => {
    expect(loadHfTokenizer(folder).encode(SAMPLES[1] as string)).toEqual(tok.encode(SAMPLES[1] as string));
  });
});

describe('the same tokenizer.json in transformers.js 4.3.2', () => {
  let tjs: {
    encode(text: string, options: { add_special_tokens: boolean }): number[];
    decode(ids: number[]): string;
  };
  beforeAll(async () => {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${dirname(folder)}/`;
    tjs = await AutoTokenizer.from_pretrained(basename(folder));
  }, 60_000);

  it('loads it and encodes the held-out text and the samples to the same ids', () => {
    expect(tjs.encode(heldOut, { add_special_tokens: false })).toEqual(tok.encode(heldOut));
    for (const text of SAMPLES) {
      const ids = tok.encode(text);
      expect(tjs.encode(text, { add_special_tokens: false }), text).toEqual(ids);
      expect(tjs.decode(ids)).toBe(text);
    }
  });
});

describe('BpeTokenizer from merges', () => {
  it('numbers tokens 256 + i in merge order; a merge whose bytes are already a token adds no id', () => {
    // "ab" then "abc" = ab + c, then a + bc needs "bc" first: (b,c) → 259, then (a, 259) is "abc" again → no id.
    const t = new BpeTokenizer([
      [97, 98],
      [256, 99],
      [98, 99],
      [97, 258],
    ]);
    expect(t.vocabSize).toBe(256 + 3 + 1);
    expect(Buffer.from(t.tokens[257] as Uint8Array).toString()).toBe('abc');
    expect(Buffer.from(t.tokens[258] as Uint8Array).toString()).toBe('bc');
    expect(t.encode('abc')).toEqual([257]);
    expect(t.encode('bcd')).toEqual([258, 100]);
  });

  it('refuses a merge of an id that does not exist yet, and decodes only known ids', () => {
    expect(() => new BpeTokenizer([[97, 256]])).toThrow(messages.bpeBadMerge(0, 97, 256, 256));
    expect(() => new BpeTokenizer([[97, -1]])).toThrow(messages.bpeBadMerge(0, 97, -1, 256));
    const t = new BpeTokenizer([[97, 98]]);
    expect(() => t.decode([258])).toThrow(messages.unknownTokenId(258, 258, t.name));
    expect(t.decode([256, 257, 99])).toBe(`ab${END_OF_TEXT}c`);
  });
});
