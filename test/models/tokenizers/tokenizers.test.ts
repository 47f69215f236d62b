import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelConfig } from '../../../src/models/model-config.js';
import { builtinTokenizer } from '../../../src/models/tokenizers/builtin-tokenizer.js';
import { ByteTokenizer } from '../../../src/models/tokenizers/byte-tokenizer.js';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';

describe('Gpt2Tokenizer', () => {
  const tok = new Gpt2Tokenizer();

  it('encodes known GPT-2 ids', () => {
    expect(tok.encode('Hello world')).toEqual([15496, 995]);
    expect(tok.encode(' the')).toEqual([262]);
    expect(tok.decode([15496, 995])).toBe('Hello world');
    expect(tok.vocabSize).toBe(50257);
  });

  it('treats a literal <|endoftext|> as text, never as the special token 50256', () => {
    const ids = tok.encode('a<|endoftext|>b');
    expect(ids).not.toContain(50256);
    expect(tok.decode(ids)).toBe('a<|endoftext|>b');
  });

  it('round-trips arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        expect(tok.decode(tok.encode(s))).toBe(s);
      }),
      {
        numRuns: 50,
      },
    );
  });
});

describe('ByteTokenizer', () => {
  const tok = new ByteTokenizer();

  it('encodes UTF-8 bytes', () => {
    expect(tok.encode('hé€')).toEqual([104, 0xc3, 0xa9, 0xe2, 0x82, 0xac]);
    expect(tok.decode([104, 0xc3, 0xa9])).toBe('hé');
  });

  it('round-trips well-formed strings losslessly', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(tok.decode(tok.encode(s))).toBe(s);
      }),
    );
  });
});

describe('builtinTokenizer', () => {
  it('picks GPT-2 BPE from 50257 ids, bytes at exactly 256, none for other sizes (a BPE vocabulary needs its own)', () => {
    expect(builtinTokenizer(ModelConfig.preset('small'))?.name).toBe('gpt2 (r50k_base)');
    expect(builtinTokenizer({ vocabSize: 60000 })?.name).toBe('gpt2 (r50k_base)');
    expect(builtinTokenizer({ vocabSize: 50257 })?.name).toBe('gpt2 (r50k_base)');
    expect(builtinTokenizer(ModelConfig.preset('tiny'))?.name).toBe('bytes');
    for (const vocabSize of [255, 257, 4096, 50256]) expect(builtinTokenizer({ vocabSize })).toBeUndefined();
  });
});
