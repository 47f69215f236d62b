/**
 * A dantinox model folder (a built-in architecture with its own weights and its own byte-level BPE, as
 * `dantinox train` writes it) opens like a preset: on ONNX Runtime in every dtype, on transformers.js and on
 * llama.cpp (their logits agree with ONNX Runtime's, and each tokenizes text with the folder's BPE), and
 * `dantinox bench --model <dir>` benchmarks it, its perplexity counting that BPE's tokens.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Model } from '../../src/models/model.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { writeModelFolder } from '../../src/models/model-folder.js';
import { checkModelSelection } from '../../src/models/model-selection.js';
import { logSoftmax } from '../../src/models/paradigms/log-probs.js';
import { initWeights } from '../../src/models/weights.js';
import { openModel } from '../../src/runs/open-model.js';
import { benchModelPerplexity } from './bench-model-perplexity.js';
import { smallBpe, smallBpeTokenizer } from './small-bpe.js';

const cwd = mkdtempSync(join(tmpdir(), 'dx-model-folder-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TEXT = Array.from(
  { length: 30 },
  (_, i) => `Line ${i}: a small text to score a tiny model on, again and again.`,
).join('\n\n');

/** Ids of the BPE, and of the model. */
const VOCAB = 512;
const bpe = smallBpeTokenizer(VOCAB);

beforeAll(async () => {
  writeFileSync(join(cwd, 'text.txt'), TEXT);
  const config = ModelConfig.preset('tiny', { vocabSize: VOCAB });
  // Weights away from the seeded initialisation, so the folder's weights, not a seed's, are what runs.
  const weights = initWeights(config, 7);
  for (const w of weights.values())
    for (let i = 0; i < w.data.length; i++) w.data[i] = (1 + 0.5 * Math.sin(i)) * (w.data[i] as number);
  await writeModelFolder(join(cwd, 'my-model'), { config, weights, tokenizer: smallBpe(VOCAB) });
}, 60_000);

const open = (engine: 'ort' | 'transformers.js' | 'llama.cpp', dtype = 'fp32') =>
  openModel({ model: 'my-model', engine, dtype, seed: 0, threads: 1 }, cwd);

const ids = Int32Array.from(Buffer.from('Line 3: a small text'));

/** Next-token log-probabilities of every position of a fixed text (engines may shift logits by a constant). */
async function logProbsOf(model: Model): Promise<number[]> {
  const logits = (await model.forward(ids, { batch: 1, seq: ids.length })).data;
  const v = model.config.vocabSize;
  return Array.from({ length: ids.length }, (_, t) => [
    ...logSoftmax(logits.subarray(t * v, (t + 1) * v)),
  ]).flat();
}

/** The largest absolute difference of two equally long lists. */
const worstOf = (a: readonly number[], b: readonly number[]): number =>
  a.reduce((w, x, i) => Math.max(w, Math.abs(x - (b[i] as number))), 0);

describe('a dantinox model folder', () => {
  it('opens on ONNX Runtime with its own weights and tokenizer, in every dtype', async () => {
    const opened = await open('ort');
    expect(opened.randomWeights).toBe(false);
    expect(opened.description).toMatch(/^my-model \(dantinox model folder my-model, trained weights\): /);
    expect(opened.weights).toMatch(/^sha256:/);
    expect(opened.model.tokenizer?.name).toBe('hf:BPE');
    const encoded = bpe.encode(TEXT);
    expect(opened.model.tokenizer?.encode(TEXT)).toEqual(encoded);
    // The BPE's merges: fewer tokens than bytes, and ids above the bytes'.
    expect(encoded.length).toBeLessThan(0.8 * Buffer.byteLength(TEXT));
    expect(Math.max(...encoded)).toBeGreaterThan(255);
    const fp32 = await logProbsOf(opened.model);
    await opened.model.dispose();
    for (const dtype of ['fp16', 'q8', 'q4']) {
      const q = await open('ort', dtype);
      const logits = await logProbsOf(q.model);
      await q.model.dispose();
      const worst = worstOf(logits, fp32);
      expect(worst, dtype).toBeLessThan(dtype === 'q4' ? 0.5 : 0.1);
      expect(worst, dtype).toBeGreaterThan(0);
    }
  });

  it('refuses --paradigm other than its own, naming it', () => {
    expect(() => checkModelSelection({ model: 'my-model', paradigm: 'diffusion', seed: 0 }, cwd)).toThrow(
      /--paradigm diffusion does not apply to this trained model: its weights were trained as ar/,
    );
    expect(checkModelSelection({ model: 'my-model', paradigm: 'ar', seed: 0 }, cwd).config?.vocabSize).toBe(
      VOCAB,
    );
  });

  it('opens on transformers.js and llama.cpp with the same logits as ONNX Runtime and the same tokenizer', async () => {
    const ort = await open('ort');
    const reference = await logProbsOf(ort.model);
    await ort.model.dispose();
    for (const engine of ['transformers.js', 'llama.cpp'] as const) {
      const other = await open(engine);
      expect(other.randomWeights).toBe(false);
      expect(other.model.tokenizer?.encode(TEXT), engine).toEqual(bpe.encode(TEXT));
      const logits = await logProbsOf(other.model);
      await other.model.dispose();
      expect(worstOf(logits, reference), engine).toBeLessThan(1e-3);
    }
  }, 120_000);

  it('is benchmarked by `dantinox bench --model <dir>`, its perplexity counting the BPE tokens', async () => {
    const { printed, cells } = await benchModelPerplexity(cwd, 'my-model', 'text.txt', 'bench');
    expect(printed).toContain('dantinox model folder my-model, trained weights');
    expect(cells['tokenizer']).toBe('hf:BPE');
    // bits/byte ÷ bits/token = scored tokens ÷ their bytes: below 1 only when the text was cut by the BPE.
    const perByte = Number(cells['bits_per_byte']) / Number(cells['bits_per_token']);
    const expected = bpe.encode(TEXT).length / Buffer.byteLength(TEXT);
    expect(Math.abs(perByte - expected)).toBeLessThan(0.1);
    expect(perByte).toBeLessThan(0.8);
  });
});
