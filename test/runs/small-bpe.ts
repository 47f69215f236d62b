/**
 * A small byte-level BPE for tests of models with their own tokenizer: the layout of a trained `tokenizer.json`
 * (the 256 bytes, merges in rank order, `<|endoftext|>` last) at a vocabulary a `tiny` model can have.
 */
import { HfTokenizer } from '../../src/models/hf/hf-tokenizer.js';
import { gpt2TokenizerFiles, type HfTokenizerFiles } from '../../src/models/hf/hf-tokenizer-json.js';

/**
 * A byte-level BPE of `n` ids: GPT-2's first n − 1 ids (the 256 bytes and its first n − 257 merges, merge i making
 * id 256 + i) and `<|endoftext|>` as id n − 1.
 */
export function smallBpe(n: number): HfTokenizerFiles {
  const gpt2 = gpt2TokenizerFiles();
  const json = gpt2.tokenizerJson as {
    added_tokens: Record<string, unknown>[];
    model: { vocab: Record<string, number>; merges: string[] };
  };
  const vocab = Object.fromEntries(Object.entries(json.model.vocab).filter(([, id]) => id < n - 1));
  vocab['<|endoftext|>'] = n - 1;
  return {
    tokenizerJson: {
      ...json,
      added_tokens: json.added_tokens.map((t) => ({ ...t, id: n - 1 })),
      model: { ...json.model, vocab, merges: json.model.merges.slice(0, n - 257) },
    },
    tokenizerConfig: gpt2.tokenizerConfig,
  };
}

/** {@link smallBpe} as a tokenizer. */
export function smallBpeTokenizer(n: number): HfTokenizer {
  const files = smallBpe(n);
  return new HfTokenizer(files.tokenizerJson, files.tokenizerConfig);
}
