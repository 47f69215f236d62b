/**
 * The trainer on real ONNX Runtime sessions: a toy task it must learn to near-zero loss, determinism in the seed,
 * and checkpoints that continue a run bit for bit.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelConfig, type ModelConfigInput } from '../../src/models/model-config.js';
import { ByteTokenizer } from '../../src/models/tokenizers/byte-tokenizer.js';
import type { WeightMap, WeightTensor } from '../../src/models/weights.js';
import {
  CHECKPOINT_FOLDER,
  checkpointFolder,
  dropoutMasks,
  EMPTY_INTERVAL,
  readCheckpoint,
  resolveTrainingOptions,
  Trainer,
  type TrainingOptions,
  validationSet,
  writeCheckpoint,
} from '../../src/training/index.js';

/** A period-16 sequence of bytes: the next token is a function of the current one. */
const PATTERN = Int32Array.from(Buffer.from('abcdefghijklmnop'.repeat(300)));

async function toyTrainer(over: ModelConfigInput = {}, settings: TrainingOptions = {}, threads = 1) {
  const config = ModelConfig.preset('tiny', over);
  const options = resolveTrainingOptions(config, {
    steps: 120,
    batchSize: 4,
    seqLen: 32,
    lr: 1e-2,
    warmupSteps: 10,
    ...settings,
  });
  const validation = toyValidation(config, 2, options.seed);
  return Trainer.create({ config, options, train: PATTERN, validation, threads });
}

/** The validation of a toy trainer holding `weights`. */
async function toyTrainerAt(weights: WeightMap) {
  const t = await toyTrainer({}, { steps: 10 });
  const state = t.state();
  await t.dispose();
  const other = await Trainer.create({
    config: t.config,
    options: t.options,
    train: PATTERN,
    validation: toyValidation(t.config, 2),
    threads: 1,
    state: { ...state, weights: copyOf(weights) },
  });
  const result = await other.validate();
  await other.dispose();
  return result;
}

/** The toy task's held-out batches (4 × 32): `maxBatches` of the pattern's first 400 bytes. */
function toyValidation(config: ModelConfig, maxBatches: number, seed = 0) {
  return validationSet(PATTERN.subarray(0, 400), {
    shape: { batch: 4, seq: 32 },
    maxBatches,
    paradigm: config.paradigm,
    tokenizer: new ByteTokenizer(),
    seed,
    maskTokenId: config.maskTokenId,
  });
}

/** A checkpoint record of `trainer` at its step (data and tokenizer stand-ins). */
const recordOf = (trainer: Trainer) => ({
  format: 'dantinox-checkpoint/1' as const,
  step: trainer.step,
  options: trainer.options,
  threads: 1,
  data: { name: 'toy', sha256: 'x' },
  tokenizer: { name: 'bytes', vocabSize: 256 },
  tokens: 128 * trainer.step,
  trainSeconds: 0.5,
  interval: EMPTY_INTERVAL,
  ...(trainer.state().average === undefined ? {} : { averaged: trainer.state().average?.count as number }),
});

const bytesOf = (trainer: Trainer, weights: WeightMap = trainer.weights): Buffer =>
  Buffer.concat(
    [...weights.values()].map((w) => Buffer.from(w.data.buffer, w.data.byteOffset, w.data.byteLength)),
  );

/** A copy of `weights`. */
const copyOf = (weights: WeightMap): Map<string, WeightTensor> =>
  new Map([...weights].map(([name, w]) => [name, { dims: w.dims, data: Float32Array.from(w.data) }]));

describe('Trainer', () => {
  it('learns a repeating sequence to near-zero loss (ar)', async () => {
    const trainer = await toyTrainer();
    const before = await trainer.validate();
    let last = { loss: Number.NaN };
    while (trainer.step < trainer.options.steps) last = await trainer.trainStep();
    const after = await trainer.validate();
    await trainer.dispose();
    expect(before.loss).toBeGreaterThan(5);
    expect(last.loss).toBeLessThan(0.05);
    expect(after.loss).toBeLessThan(0.05);
    expect(after.bitsPerByte).toBeLessThan(0.1);
  });

  it('learns it with dropout too, and a diffusion model well below the uniform 16-way loss', async () => {
    const dropped = await toyTrainer({ dropout: 0.1 });
    while (dropped.step < dropped.options.steps) await dropped.trainStep();
    expect((await dropped.validate()).loss).toBeLessThan(0.1);
    await dropped.dispose();
    const diffusion = await toyTrainer({ paradigm: 'diffusion' }, { steps: 800 });
    while (diffusion.step < diffusion.options.steps) await diffusion.trainStep();
    expect((await diffusion.validate()).loss).toBeLessThan(Math.log(16) - 0.5);
    await diffusion.dispose();
  });

  it('gives the same weights for the same seed (on two threads too), other weights for another', async () => {
    const run = async (seed: number): Promise<Buffer> => {
      const t = await toyTrainer({ dropout: 0.1 }, { steps: 8, seed }, 2);
      while (t.step < 8) await t.trainStep();
      const bytes = bytesOf(t);
      await t.dispose();
      return bytes;
    };
    const a = await run(1);
    expect((await run(1)).equals(a)).toBe(true);
    expect((await run(2)).equals(a)).toBe(false);
  });

  it('gives the same weights on two threads where many positions pick one embedding row (its gradient is a sum)', async () => {
    // 2,048 positions over the pattern's 16 ids, 1 KiB rows: wide enough that ONNX Runtime splits the embedding's
    // gradient over both threads. A ScatterND scatter-add there lost or reordered additions to a repeated row.
    const run = async (): Promise<Buffer> => {
      const t = await toyTrainer({ dim: 256, numBlocks: 1 }, { steps: 3, batchSize: 16, seqLen: 128 }, 2);
      while (t.step < 3) await t.trainStep();
      const bytes = bytesOf(t);
      await t.dispose();
      return bytes;
    };
    const first = await run();
    for (let i = 0; i < 4; i++) expect((await run()).equals(first)).toBe(true);
  });

  it.each([
    ['', {}],
    [
      ', averaging from step 3 every 2 (the checkpoint inside the window)',
      { averageFrom: 3, averageEvery: 2 },
    ],
  ])(
    'continues from a checkpoint bit for bit: 10 steps straight = 4, checkpoint, a new trainer, 6 more%s',
    async (_, averaging) => {
      const straight = await toyTrainer({ dropout: 0.1 }, { steps: 10, ...averaging });
      while (straight.step < 10) await straight.trainStep();
      const expected = bytesOf(straight);
      const expectedModel = bytesOf(straight, straight.model);
      await straight.dispose();

      const dir = mkdtempSync(join(tmpdir(), 'dx-ckpt-'));
      const first = await toyTrainer({ dropout: 0.1 }, { steps: 10, ...averaging });
      for (let i = 0; i < 4; i++) await first.trainStep();
      await writeCheckpoint(dir, { record: recordOf(first), state: first.state(), config: first.config });
      await first.dispose();
      const checkpoint = await readCheckpoint(dir);
      expect(checkpoint?.state.step).toBe(4);
      const config = checkpoint?.config as ModelConfig;
      const resumed = await Trainer.create({
        config,
        options: checkpoint?.record.options ?? first.options,
        train: PATTERN,
        validation: toyValidation(config, 1),
        threads: 1,
        ...(checkpoint === undefined ? {} : { state: checkpoint.state }),
      });
      while (resumed.step < 10) await resumed.trainStep();
      expect(bytesOf(resumed).equals(expected)).toBe(true);
      expect(bytesOf(resumed, resumed.model).equals(expectedModel)).toBe(true);
      await resumed.dispose();
    },
  );

  it('averages the weights after updates 6, 8 and 10 as its model, and validates that average', async () => {
    const trainer = await toyTrainer({}, { steps: 10, averageFrom: 6, averageEvery: 2 });
    const after: Map<string, WeightTensor>[] = [];
    while (trainer.step < 10) {
      // Before update 6 the model is the live weights.
      if (trainer.step < 6) expect(trainer.model).toBe(trainer.weights);
      else expect(trainer.model).not.toBe(trainer.weights);
      await trainer.trainStep();
      after.push(copyOf(trainer.weights));
    }
    const mean = (steps: number[]) => (name: string, i: number) =>
      steps.reduce((sum, s) => sum + (after[s - 1]?.get(name)?.data[i] as number), 0) / steps.length;
    const expected = mean([6, 8, 10]);
    const wrong = mean([5, 7, 9]);
    let near = 0;
    let far = 0;
    for (const [name, w] of trainer.model)
      w.data.forEach((v, i) => {
        near = Math.max(near, Math.abs(v - expected(name, i)));
        far = Math.max(far, Math.abs(v - wrong(name, i)));
      });
    expect(near).toBeLessThan(1e-6);
    expect(far).toBeGreaterThan(1e-3);
    expect(trainer.state().average?.count).toBe(3);
    // Validation scores the average: a trainer holding the average as its weights scores the same.
    const loss = (await trainer.validate()).loss;
    const live = (await toyTrainerAt(trainer.weights)).loss;
    const ofMean = (await toyTrainerAt(trainer.model)).loss;
    await trainer.dispose();
    expect(loss).toBe(ofMean);
    expect(loss).not.toBe(live);
  });

  it('refuses a text shorter than one batch and a run too large for memory, naming the flags', async () => {
    const config = ModelConfig.preset('tiny');
    const options = resolveTrainingOptions(config, { batchSize: 4, seqLen: 32 });
    const validation = toyValidation(config, 1);
    await expect(
      Trainer.create({ config, options, train: PATTERN.subarray(0, 131), validation }),
    ).rejects.toThrow(/131 tokens, fewer than one batch \(4 × 33 = 132\).*--batch-size or --seq-len/);
    const huge = ModelConfig.parse({
      dim: 8192,
      nHeads: 64,
      numBlocks: 96,
      vocabSize: 50257,
      maxContext: 2048,
    });
    const hugeOptions = resolveTrainingOptions(huge, { batchSize: 64 });
    await expect(
      Trainer.create({ config: huge, options: hugeOptions, train: new Int32Array(64 * 2049), validation }),
    ).rejects.toThrow(/--batch-size or --seq-len needs less\) needs about .* GiB of memory.*--force/);
  });
});

describe('dropout masks', () => {
  it('keep each element with probability 1 − p, the same masks for the same seed and step', () => {
    const masks = dropoutMasks(2, 50_000, { dropout: 0.2, seed: 3 }, 7);
    const kept = masks.flatMap((m) => [...m]).reduce((s, v) => s + v, 0) / 100_000;
    expect(kept).toBeGreaterThan(0.79);
    expect(kept).toBeLessThan(0.81);
    expect(dropoutMasks(2, 50_000, { dropout: 0.2, seed: 3 }, 7)).toEqual(masks);
    expect(dropoutMasks(2, 50_000, { dropout: 0.2, seed: 3 }, 8)[0]).not.toEqual(masks[0]);
    expect(dropoutMasks(2, 10, { dropout: 0, seed: 3 }, 7)).toEqual([]);
  });
});

describe('checkpoint files', () => {
  it('are swapped in atomically: a partial folder is ignored, the previous one used until the new one is in place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dx-ckpt-swap-'));
    expect(await readCheckpoint(dir)).toBeUndefined();
    const trainer = await toyTrainer({}, { steps: 2 });
    await trainer.trainStep();
    const record = recordOf(trainer);
    await writeCheckpoint(dir, { record, state: trainer.state(), config: trainer.config });
    await trainer.dispose();
    // A run killed between the two renames: only checkpoint.previous/ is complete.
    renameSync(join(dir, CHECKPOINT_FOLDER), join(dir, `${CHECKPOINT_FOLDER}.previous`));
    mkdirSync(join(dir, `${CHECKPOINT_FOLDER}.partial`));
    writeFileSync(join(dir, `${CHECKPOINT_FOLDER}.partial`, 'model.safetensors'), 'half written');
    expect(checkpointFolder(dir)).toBe(join(dir, `${CHECKPOINT_FOLDER}.previous`));
    const read = await readCheckpoint(dir);
    expect(read?.record).toEqual(record);
    expect([...(read?.state.moments.keys() ?? [])]).toEqual([...(read?.state.weights.keys() ?? [])]);
    rmSync(join(dir, `${CHECKPOINT_FOLDER}.previous`), { recursive: true });
    expect(existsSync(join(dir, CHECKPOINT_FOLDER))).toBe(false);
    expect(await readCheckpoint(dir)).toBeUndefined();
  });

  it('read a record written before averaging existed as a run without it; refuse an average that is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dx-ckpt-average-'));
    const trainer = await toyTrainer({}, { steps: 3, averageFrom: 1 });
    await trainer.trainStep();
    await writeCheckpoint(dir, { record: recordOf(trainer), state: trainer.state(), config: trainer.config });
    await trainer.dispose();
    const statePath = join(dir, CHECKPOINT_FOLDER, 'trainer.json');
    const record = JSON.parse(readFileSync(statePath, 'utf8'));
    expect(record.averaged).toBe(1);
    expect((await readCheckpoint(dir))?.state.average?.count).toBe(1);
    rmSync(join(dir, CHECKPOINT_FOLDER, 'average.safetensors'));
    await expect(readCheckpoint(dir)).rejects.toThrow(/average\.safetensors.*no average of/);
    delete record.averaged;
    delete record.options.averageFrom;
    delete record.options.averageEvery;
    writeFileSync(statePath, JSON.stringify(record));
    const old = await readCheckpoint(dir);
    expect(old?.record.options).toMatchObject({ averageFrom: 0, averageEvery: 1 });
    expect(old?.state.average).toBeUndefined();
  });
});
