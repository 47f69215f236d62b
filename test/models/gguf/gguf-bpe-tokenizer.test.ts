/**
 * A trained byte-level BPE survives the GGUF export: a tiny model exported with the tokenizer's files and loaded by
 * llama.cpp (node-llama-cpp) tokenizes text to the ids dantinox's encoder gives, and detokenizes them back.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brownCorpusText } from '../../../src/benchmarking/data/brown-corpus.js';
import { loadNodeLlamaCpp } from '../../../src/models/engines/llama-cpp/node-llama-cpp-loader.js';
import { exportGguf } from '../../../src/models/gguf/gguf-export.js';
import { END_OF_TEXT } from '../../../src/models/hf/hf-tokenizer-json.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { trainBpe } from '../../../src/models/tokenizers/train-bpe.js';
import { initWeights } from '../../../src/models/weights.js';
import { readGguf } from './read-gguf.js';

const tok = trainBpe(brownCorpusText('train').slice(0, 1_000_000), { vocabSize: 1024 });
const dir = mkdtempSync(join(tmpdir(), 'dantinox-gguf-bpe-'));
const path = join(dir, 'tiny-bpe.gguf');
const SAMPLES = [
  'Hello world!',
  "It's a test: 12345 naïve café — ünïcödé   spaces\n\nnewlines",
  "Tabs\tand 'quotes' don't won't I'll. 3.14159 ±∞ 日本語 emoji 🎉🎉",
  ' leading space and trailing ',
];

type LlamaModel = Awaited<ReturnType<Awaited<ReturnType<typeof loadNodeLlamaCpp>>['llama']['loadModel']>>;
let model: LlamaModel;

beforeAll(async () => {
  const config = ModelConfig.parse({ ...ModelConfig.preset('tiny'), vocabSize: tok.vocabSize });
  exportGguf({ config, weights: initWeights(config, 0) }, path, { tokenizer: tok.tokenizerFiles() });
  const { llama } = await loadNodeLlamaCpp();
  model = await llama.loadModel({ modelPath: path });
}, 120_000);

afterAll(async () => {
  await model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('a trained BPE in a GGUF file, tokenized by llama.cpp', () => {
  it('writes the merges in rank order, gpt-2 pre-tokenization and <|endoftext|> as a control token', () => {
    const { metadata } = readGguf(new Uint8Array(readFileSync(path)));
    const value = (key: string): unknown => {
      const entry = metadata.get(key);
      return entry === undefined ? undefined : 'values' in entry ? entry.values : entry.value;
    };
    expect(value('tokenizer.ggml.model')).toBe('gpt2');
    expect(value('tokenizer.ggml.pre')).toBe('gpt-2');
    const merges = tok.tokenizerFiles().tokenizerJson['model'] as { merges: string[] };
    expect(value('tokenizer.ggml.merges')).toEqual(merges.merges);
    expect((value('tokenizer.ggml.tokens') as unknown[])[tok.endOfText]).toBe(END_OF_TEXT);
    expect((value('tokenizer.ggml.token_type') as unknown[])[tok.endOfText]).toBe(3);
    expect(value('tokenizer.ggml.eos_token_id')).toBe(tok.endOfText);
  });

  it('gives the same ids as dantinox on the held-out Brown text and on samples, and decodes them back', () => {
    const text = brownCorpusText('held-out').slice(0, 100_000);
    expect(Array.from(model.tokenize(text))).toEqual(tok.encode(text));
    for (const sample of SAMPLES) {
      const ids = tok.encode(sample);
      expect(Array.from(model.tokenize(sample)), sample).toEqual(ids);
      expect(model.detokenize(model.tokenize(sample))).toBe(sample);
    }
  });

  it('reads <|endoftext|> as the special token when asked to, as text otherwise', () => {
    const text = `one${END_OF_TEXT}two`;
    expect(Array.from(model.tokenize(text, true))).toEqual(tok.encode(text));
    expect(Array.from(model.tokenize(text, false))).not.toContain(tok.endOfText);
  });
});
