import { describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { ggufTokenizerMetadata } from '../../../src/models/gguf/gguf-tokenizer.js';

/** A byte-level BPE tokenizer.json with `vocab`, `merges` and `added`. */
const bpe = (
  vocab: Record<string, number>,
  merges: (string | [string, string])[],
  added: { id: number; content: string; special?: boolean }[] = [],
): Record<string, unknown> => ({
  model: { type: 'BPE', vocab, merges },
  pre_tokenizer: { type: 'ByteLevel' },
  added_tokens: added,
});

/** The value of `key`, whatever its GGUF type. */
const value = (meta: ReturnType<typeof ggufTokenizerMetadata>, key: string): unknown => {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  return 'values' in v ? Array.from(v.values as ArrayLike<unknown>) : v.value;
};

describe('ggufTokenizerMetadata', () => {
  it('writes one token per id with its type, pads the ids the tokenizer lacks, and keeps the merges in order', () => {
    const meta = ggufTokenizerMetadata(
      bpe(
        { a: 0, b: 1, ab: 2 },
        ['a b', ['ab', 'b']],
        [
          { id: 3, content: '<|endoftext|>', special: true },
          { id: 5, content: 'added', special: false },
        ],
      ),
      7,
    );
    expect(value(meta, 'tokenizer.ggml.model')).toBe('gpt2');
    expect(value(meta, 'tokenizer.ggml.pre')).toBe('gpt-2');
    expect(value(meta, 'tokenizer.ggml.tokens')).toEqual([
      'a',
      'b',
      'ab',
      '<|endoftext|>',
      '[PAD4]',
      'added',
      '[PAD6]',
    ]);
    // normal 1, control 3 (special added tokens), unused 5 (padding); a non-special added token is normal.
    expect(value(meta, 'tokenizer.ggml.token_type')).toEqual([1, 1, 1, 3, 5, 1, 5]);
    expect(value(meta, 'tokenizer.ggml.merges')).toEqual(['a b', 'ab b']);
    expect(meta.get('tokenizer.ggml.bos_token_id')).toEqual({ type: 'u32', value: 3 });
    expect(meta.get('tokenizer.ggml.eos_token_id')).toEqual({ type: 'u32', value: 3 });
    expect(meta.get('tokenizer.ggml.add_bos_token')).toEqual({ type: 'bool', value: false });
  });

  it('takes <|endoftext|> as BOS/EOS among several special tokens, the only special token otherwise, else none', () => {
    const two = [
      { id: 0, content: '<s>', special: true },
      { id: 1, content: '<|endoftext|>', special: true },
    ];
    expect(value(ggufTokenizerMetadata(bpe({}, [], two), 2), 'tokenizer.ggml.eos_token_id')).toBe(1);
    const only = [{ id: 1, content: '</s>', special: true }];
    expect(value(ggufTokenizerMetadata(bpe({ x: 0 }, [], only), 2), 'tokenizer.ggml.bos_token_id')).toBe(1);
    const unnamed = [
      { id: 0, content: '<s>', special: true },
      { id: 1, content: '</s>', special: true },
    ];
    const none = ggufTokenizerMetadata(bpe({}, [], unnamed), 2);
    expect(none.has('tokenizer.ggml.bos_token_id')).toBe(false);
    expect(none.has('tokenizer.ggml.eos_token_id')).toBe(false);
    expect(ggufTokenizerMetadata(bpe({ x: 0 }, []), 1).has('tokenizer.ggml.eos_token_id')).toBe(false);
  });

  it('a BPE model without vocabulary, merges or added tokens: every id padding, no merges, no BOS/EOS', () => {
    const meta = ggufTokenizerMetadata({ model: { type: 'BPE' }, pre_tokenizer: { type: 'ByteLevel' } }, 2);
    expect(value(meta, 'tokenizer.ggml.tokens')).toEqual(['[PAD0]', '[PAD1]']);
    expect(value(meta, 'tokenizer.ggml.token_type')).toEqual([5, 5]);
    expect(value(meta, 'tokenizer.ggml.merges')).toEqual([]);
    expect(meta.has('tokenizer.ggml.eos_token_id')).toBe(false);
    expect(() => ggufTokenizerMetadata({ pre_tokenizer: { type: 'ByteLevel' } }, 2)).toThrow(
      /model type undefined with pre-tokenizer "ByteLevel"/,
    );
  });

  it('refuses ids outside the model, naming the token, and tokenizers that are not byte-level BPE', () => {
    for (const id of [4, -1, 1.5])
      expect(() => ggufTokenizerMetadata(bpe({ a: 0, z: id }, []), 4)).toThrow(
        messages.ggufTokenizer(`token "z" has id ${id}, outside the model's 4 ids`),
      );
    expect(() => ggufTokenizerMetadata(bpe({ a: 3 }, []), 4)).not.toThrow();
    expect(() =>
      ggufTokenizerMetadata({ model: { type: 'WordPiece' }, pre_tokenizer: { type: 'ByteLevel' } }, 4),
    ).toThrow(
      messages.ggufTokenizer(
        'model type "WordPiece" with pre-tokenizer "ByteLevel"; only byte-level BPE (GPT-2 style) is written',
      ),
    );
    expect(() => ggufTokenizerMetadata({ model: { type: 'BPE' }, pre_tokenizer: null }, 4)).toThrow(
      /model type "BPE" with pre-tokenizer undefined/,
    );
  });
});
