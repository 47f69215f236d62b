import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { HfTokenizer, loadHfTokenizer } from '../../../src/models/hf/hf-tokenizer.js';
import {
  bytesToUnicode,
  byteTokenizerFiles,
  gpt2TokenizerFiles,
} from '../../../src/models/hf/hf-tokenizer-json.js';
import { ByteTokenizer } from '../../../src/models/tokenizers/byte-tokenizer.js';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';

const SAMPLES = [
  'Hello world!',
  "It's a test: 12345 naïve café — ünïcödé   spaces\n\nnewlines",
  "Tabs\tand 'quotes' don't won't I'll. 3.14159 ±∞ 日本語 emoji 🎉🎉",
  ' leading space and trailing ',
  'The quick brown fox jumps over the lazy dog. '.repeat(3),
];

const tmp = mkdtempSync(join(tmpdir(), 'dantinox-hf-tok-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('bytesToUnicode is GPT-2’s table: a bijection onto printable characters, identity on printable ASCII', () => {
  const table = bytesToUnicode();
  expect(new Set(table).size).toBe(256);
  expect(table[65]).toBe('A');
  expect(table[32]).toBe('Ġ');
  expect(table[10]).toBe('Ċ');
});

describe('GPT-2 tokenizer.json rebuilt from r50k_base', () => {
  const files = gpt2TokenizerFiles();
  const hf = new HfTokenizer(files.tokenizerJson, files.tokenizerConfig);
  const gpt2 = new Gpt2Tokenizer();

  test('has 50 257 ids and encodes exactly like the built-in GPT-2 tokenizer', () => {
    expect(hf.vocabSize).toBe(50257);
    expect(hf.name).toBe('hf:BPE');
    for (const text of SAMPLES) {
      expect(hf.encode(text)).toEqual(gpt2.encode(text));
      expect(hf.decode(hf.encode(text))).toBe(text);
    }
    expect(hf.encode('Hello world')).toEqual([15496, 995]);
  });

  test('property: equal ids to the built-in tokenizer on random unicode text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        expect(hf.encode(text)).toEqual(gpt2.encode(text));
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});

describe('byte-level tokenizer.json', () => {
  const files = byteTokenizerFiles();
  const hf = new HfTokenizer(files.tokenizerJson, files.tokenizerConfig);
  const bytes = new ByteTokenizer();

  test('id = UTF-8 byte, like the built-in byte tokenizer; empty input and output', () => {
    expect(hf.vocabSize).toBe(256);
    for (const text of SAMPLES) {
      expect(hf.encode(text)).toEqual(bytes.encode(text));
      expect(hf.decode(hf.encode(text))).toBe(text);
    }
    expect(hf.encode('')).toEqual([]);
    expect(hf.decode([])).toBe('');
  });
});

describe('loadHfTokenizer', () => {
  test('reads tokenizer.json and tokenizer_config.json from a folder or a file path', () => {
    const files = byteTokenizerFiles();
    const folder = mkdtempSync(join(tmp, 'ok-'));
    writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify(files.tokenizerJson));
    writeFileSync(join(folder, 'tokenizer_config.json'), JSON.stringify(files.tokenizerConfig));
    expect(loadHfTokenizer(folder).encode('ab')).toEqual([97, 98]);
    expect(loadHfTokenizer(join(folder, 'tokenizer.json')).vocabSize).toBe(256);
  });

  test('missing, non-JSON and rejected files give one clear error naming the file', () => {
    const folder = mkdtempSync(join(tmp, 'bad-'));
    expect(() => loadHfTokenizer(folder)).toThrow(
      expect.objectContaining({ code: 'IO', message: expect.stringContaining('has no tokenizer.json') }),
    );
    writeFileSync(join(folder, 'tokenizer.json'), '{ not json');
    expect(() => loadHfTokenizer(folder)).toThrow(
      expect.objectContaining({ code: 'IO', message: expect.stringContaining('is not valid JSON') }),
    );
    writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify({ model: { type: 'Nope' } }));
    expect(() => loadHfTokenizer(folder)).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('is not a tokenizer.json that @huggingface/tokenizers can load'),
      }),
    );
  });
});
