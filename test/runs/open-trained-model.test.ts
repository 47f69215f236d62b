/**
 * What `runTraining` leaves opens as a model, end to end with a BPE of `dantinox tokenizer train`: the folder holds
 * the trained weights and that `tokenizer.json`, the inference graph's loss equals the training graph's on the
 * same batch, and `dantinox bench --model <run>/model` benchmarks it tokenizing with the BPE (every engine and
 * dtype: `open-model-folder.test.ts`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { loadHfTokenizerFiles } from '../../src/models/hf/hf-tokenizer.js';
import { initWeights } from '../../src/models/index.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { readModelFolder } from '../../src/models/model-folder.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { modelTokenizer } from '../../src/models/tokenizers/model-tokenizer.js';
import { Rng } from '../../src/rng.js';
import { openModel } from '../../src/runs/open-model.js';
import { runTraining } from '../../src/runs/run-training.js';
import { TrainingSession, trainingBatch, trainingRng } from '../../src/training/index.js';
import { captureIo } from '../cli/capture-io.js';
import { benchModelPerplexity } from './bench-model-perplexity.js';

const cwd = mkdtempSync(join(tmpdir(), 'dx-trained-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TEXT = Array.from(
  { length: 30 },
  (_, i) => `Line ${i}: a small text to train a tiny model on, again and again.`,
).join('\n\n');

/** Ids of the model (the BPE learns up to as many). */
const VOCAB = 512;
const config = ModelConfig.preset('tiny', { vocabSize: VOCAB });

beforeAll(async () => {
  writeFileSync(join(cwd, 'text.txt'), TEXT);
  const io = captureIo(cwd);
  const code = await runCli(
    ['tokenizer', 'train', '--data', 'text.txt', '--vocab-size', String(VOCAB), '--out', 'bpe'],
    io,
  );
  expect(code, io.err.join('')).toBe(0);
  await runTraining({
    dir: 'run',
    cwd,
    config,
    data: 'text.txt',
    tokenizer: 'bpe/tokenizer.json',
    options: { steps: 20, batchSize: 4, seqLen: 32, lr: 3e-3, valBatches: 1 },
    threads: 1,
    charts: false,
  });
}, 120_000);

/** The BPE `dantinox tokenizer train` wrote, as files and as the tokenizer the model runs with. */
const bpeFiles = () => loadHfTokenizerFiles(join(cwd, 'bpe/tokenizer.json'));
const bpe = () => modelTokenizer(config, bpeFiles()) as NonNullable<ReturnType<typeof modelTokenizer>>;

describe('a trained model', () => {
  it('holds the trained weights and the tokenizer it was trained with', async () => {
    const folder = await readModelFolder(join(cwd, 'run/model'));
    expect(folder.config).toEqual(config);
    expect(folder.tokenizer).toEqual(bpeFiles());
    // A BPE, not bytes: it cuts the text into fewer tokens than it has bytes.
    expect(bpe().encode(TEXT).length).toBeLessThan(0.8 * Buffer.byteLength(TEXT));
    const seeded = initWeights(config, 0);
    const bytes = (data: Float32Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    for (const [name, w] of folder.weights) {
      const initial = seeded.get(name)?.data as Float32Array;
      expect(bytes(w.data).equals(bytes(initial)), name).toBe(false);
    }
  });

  it("gives the inference graph's loss the training graph's loss on the same batch", async () => {
    const { weights } = await readModelFolder(join(cwd, 'run/model'));
    const stream = Int32Array.from(bpe().encode(TEXT));
    const batch = trainingBatch(
      stream,
      { batch: 2, seq: 32 },
      'ar',
      trainingRng(5, 'batch', 0),
      config.maskTokenId,
    );
    const session = await TrainingSession.create(config, { batch: 2, seq: 32, threads: 1 });
    const trainingLoss = await session.evaluate(weights, {
      ...batch,
      weights: new Float32Array(64).fill(1 / 64),
    });
    await session.dispose();
    // The same rows as windows of 33 tokens: inputs then the last target.
    const windows = new Int32Array(2 * 33);
    for (let r = 0; r < 2; r++) {
      windows.set(batch.inputs.subarray(r * 32, r * 32 + 32), r * 33);
      windows[r * 33 + 32] = Number(batch.targets[r * 32 + 31]);
    }
    const opened = await openModel(
      { model: 'run/model', engine: 'ort', dtype: 'fp32', seed: 0, threads: 1 },
      cwd,
    );
    const inference = await new ARParadigm(config).lossFn(
      opened.model,
      windows,
      { batch: 2, seq: 33 },
      new Rng(0),
    );
    await opened.model.dispose();
    expect(Math.abs(inference.meanLoss - trainingLoss)).toBeLessThan(1e-5);
  });

  it('is benchmarked by `dantinox bench --model <run>/model`, its perplexity counting the BPE tokens', async () => {
    const { printed, cells } = await benchModelPerplexity(cwd, 'run/model', 'text.txt', 'bench');
    expect(printed).toContain('dantinox model folder run/model, trained weights');
    expect(cells['tokenizer']).toBe('hf:BPE');
    expect(Number(cells['eval_loss'])).toBeLessThan(Math.log(VOCAB));
    // bits/byte ÷ bits/token = scored tokens ÷ their bytes: the BPE's tokens per byte (1 with bytes as tokens).
    const perByte = Number(cells['bits_per_byte']) / Number(cells['bits_per_token']);
    const expected = bpe().encode(TEXT).length / Buffer.byteLength(TEXT);
    expect(Math.abs(perByte - expected)).toBeLessThan(0.1);
    expect(perByte).toBeLessThan(0.8);
  });
});
