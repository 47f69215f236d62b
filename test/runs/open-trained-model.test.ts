/**
 * What `runTraining` leaves opens as a model: the folder holds the trained weights and the `--tokenizer` it was
 * trained with, the inference graph's loss equals the training graph's on the same batch, and
 * `dantinox bench --model <run>/model` benchmarks it (every engine and dtype: `open-model-folder.test.ts`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initWeights } from '../../src/models/index.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { readModelFolder } from '../../src/models/model-folder.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { Rng } from '../../src/rng.js';
import { openModel } from '../../src/runs/open-model.js';
import { runTraining } from '../../src/runs/run-training.js';
import { TrainingSession, trainingBatch, trainingRng } from '../../src/training/index.js';
import { benchModelPerplexity } from './bench-model-perplexity.js';
import { smallBpe, smallBpeTokenizer } from './small-bpe.js';

const cwd = mkdtempSync(join(tmpdir(), 'dx-trained-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TEXT = Array.from(
  { length: 30 },
  (_, i) => `Line ${i}: a small text to train a tiny model on, again and again.`,
).join('\n\n');

/** Ids of the BPE, and of the model. */
const VOCAB = 512;
const config = ModelConfig.preset('tiny', { vocabSize: VOCAB });

beforeAll(async () => {
  writeFileSync(join(cwd, 'text.txt'), TEXT);
  const bpe = smallBpe(VOCAB);
  writeFileSync(join(cwd, 'tokenizer.json'), JSON.stringify(bpe.tokenizerJson));
  writeFileSync(join(cwd, 'tokenizer_config.json'), JSON.stringify(bpe.tokenizerConfig));
  await runTraining({
    dir: 'run',
    cwd,
    config,
    data: 'text.txt',
    tokenizer: 'tokenizer.json',
    options: { steps: 20, batchSize: 4, seqLen: 32, lr: 3e-3, valBatches: 1 },
    threads: 1,
    charts: false,
  });
}, 120_000);

describe('a trained model', () => {
  it('holds the trained weights and the tokenizer it was trained with', async () => {
    const folder = await readModelFolder(join(cwd, 'run/model'));
    expect(folder.config).toEqual(config);
    expect(folder.tokenizer).toEqual(smallBpe(VOCAB));
    const seeded = initWeights(config, 0);
    const bytes = (data: Float32Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    for (const [name, w] of folder.weights) {
      const initial = seeded.get(name)?.data as Float32Array;
      expect(bytes(w.data).equals(bytes(initial)), name).toBe(false);
    }
  });

  it("gives the inference graph's loss the training graph's loss on the same batch", async () => {
    const { weights } = await readModelFolder(join(cwd, 'run/model'));
    const stream = Int32Array.from(smallBpeTokenizer(VOCAB).encode(TEXT));
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

  it('is benchmarked by `dantinox bench --model <run>/model`', async () => {
    const { printed, cells } = await benchModelPerplexity(cwd, 'run/model', 'text.txt', 'bench');
    expect(printed).toContain('dantinox model folder run/model, trained weights');
    expect(cells['tokenizer']).toBe('hf:BPE');
    expect(Number(cells['eval_loss'])).toBeLessThan(Math.log(VOCAB));
  });
});
