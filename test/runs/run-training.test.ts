/**
 * A training run as a run folder: a run stopped by its signal and resumed equals the uninterrupted run byte for
 * byte (weights, log, checkpoint record) with the same injected clock; the folder holds the log, the chart, the
 * checkpoint, the model and its record; bad inputs are refused before anything is trained, naming the flag.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { byteTokenizerFiles, gpt2TokenizerFiles } from '../../src/models/hf/hf-tokenizer-json.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { modelFolderConfig, readModelFolder } from '../../src/models/model-folder.js';
import { acquireRunLock } from '../../src/runs/run-lock.js';
import { runTraining, type TrainingRunInput } from '../../src/runs/run-training.js';
import { readCheckpoint, TRAINING_LOG_FILES } from '../../src/training/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'dx-train-run-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Forty paragraphs of varied text (four held out). */
const TEXT = Array.from(
  { length: 40 },
  (_, i) =>
    `Paragraph ${i}: the quick brown fox ${['jumps over', 'runs past', 'sleeps by', 'looks at'][i % 4]} the lazy dog number ${i * 7}, and the cat watches.`,
).join('\n\n');
writeFileSync(join(cwd, 'text.txt'), TEXT);

/** A clock that advances 50 ms per reading: every step lasts 50 ms in both runs. */
const manualClock = (): (() => bigint) => {
  let t = 0n;
  return () => {
    t += 50_000_000n;
    return t;
  };
};

const base = (dir: string): TrainingRunInput => ({
  dir,
  cwd,
  config: 'tiny',
  data: 'text.txt',
  options: {
    steps: 12,
    batchSize: 4,
    seqLen: 32,
    lr: 3e-3,
    logEvery: 2,
    valEvery: 4,
    valBatches: 2,
    checkpointEvery: 4,
    dropout: 0.1,
  },
  threads: 1,
  charts: false,
});

const read = (dir: string, file: string): Buffer => readFileSync(join(cwd, dir, file));

describe('runTraining', () => {
  it('resumes bit for bit: stopped after step 5, resumed to 12 = 12 straight (weights, log, record)', async () => {
    const straight = await runTraining({ ...base('straight'), clock: manualClock(), charts: true });
    expect(straight.status).toBe('completed');
    expect(straight.files).toEqual([
      TRAINING_LOG_FILES.jsonl,
      TRAINING_LOG_FILES.csv,
      'checkpoint/',
      'model/',
      'charts/training-training_curve.svg',
      'charts/training-training_curve.png',
      'training.json',
    ]);
    expect(read('straight', 'charts/training-training_curve.svg').toString()).toMatch(
      /^<svg[\s\S]*Training and validation loss/,
    );
    expect(modelFolderConfig(join(cwd, 'straight/model'))?.dropout).toBe(0.1);

    const controller = new AbortController();
    const clock = manualClock();
    const stopped = await runTraining({
      ...base('resumed'),
      clock,
      signal: controller.signal,
      hooks: { onStep: (record) => (record.step === 5 ? controller.abort() : undefined) },
    });
    expect(stopped).toMatchObject({ status: 'aborted', step: 5, steps: 12 });
    expect(stopped.files).not.toContain('model/');
    expect((await readCheckpoint(join(cwd, 'resumed')))?.record.step).toBe(5);
    const resumed = await runTraining({ dir: 'resumed', cwd, resume: true, clock, charts: false });
    expect(resumed).toMatchObject({ status: 'completed', step: 12 });

    expect(
      read('resumed', 'model/model.safetensors').equals(read('straight', 'model/model.safetensors')),
    ).toBe(true);
    expect(read('resumed', TRAINING_LOG_FILES.jsonl).toString()).toBe(
      read('straight', TRAINING_LOG_FILES.jsonl).toString(),
    );
    expect(read('resumed', TRAINING_LOG_FILES.csv).toString()).toBe(
      read('straight', TRAINING_LOG_FILES.csv).toString(),
    );
    expect(
      read('resumed', 'checkpoint/optimizer.safetensors').equals(
        read('straight', 'checkpoint/optimizer.safetensors'),
      ),
    ).toBe(true);
    const record = JSON.parse(read('straight', 'training.json').toString()) as Record<string, unknown>;
    expect(record).toMatchObject({ status: 'completed', step: 12, tokens: 12 * 4 * 32 });
    expect(record['trainSeconds']).toBeCloseTo(12 * 0.05, 9);
  });

  it('writes the average of the weights as its model, and a run stopped inside the window resumes to it', async () => {
    const averaging = { ...base('average').options, averageFrom: 6, averageEvery: 2 };
    const straight = await runTraining({ ...base('average'), options: averaging, clock: manualClock() });
    expect(straight.status).toBe('completed');
    // The last checkpoint holds the live weights and the average; the model written is the average.
    const model = read('average', 'model/model.safetensors');
    expect(model.equals(read('average', 'checkpoint/model.safetensors'))).toBe(false);
    const average = (await readCheckpoint(join(cwd, 'average')))?.state.average;
    expect(average?.count).toBe(4);
    const written = (await readModelFolder(join(cwd, 'average/model'))).weights;
    for (const [name, w] of written) expect(w.data).toEqual(average?.weights.get(name)?.data);

    const controller = new AbortController();
    const clock = manualClock();
    const stopped = await runTraining({
      ...base('average-resumed'),
      options: averaging,
      clock,
      signal: controller.signal,
      hooks: { onStep: (record) => (record.step === 7 ? controller.abort() : undefined) },
    });
    expect(stopped).toMatchObject({ status: 'aborted', step: 7 });
    await runTraining({ dir: 'average-resumed', cwd, resume: true, clock, charts: false });
    expect(read('average-resumed', 'model/model.safetensors').equals(model)).toBe(true);
    expect(read('average-resumed', TRAINING_LOG_FILES.jsonl).toString()).toBe(
      read('average', TRAINING_LOG_FILES.jsonl).toString(),
    );
  });

  it('keeps a custom tokenizer with the model, and refuses one larger than the vocabulary', async () => {
    writeFileSync(join(cwd, 'bytes.json'), JSON.stringify(byteTokenizerFiles().tokenizerJson));
    const run = await runTraining({
      ...base('own-tokenizer'),
      tokenizer: 'bytes.json',
      options: { steps: 2, batchSize: 2, seqLen: 16 },
    });
    expect(existsSync(join(cwd, 'own-tokenizer/model/tokenizer.json'))).toBe(true);
    expect(run.status).toBe('completed');
    writeFileSync(join(cwd, 'gpt2.json'), JSON.stringify(gpt2TokenizerFiles().tokenizerJson));
    await expect(runTraining({ ...base('big-tokenizer'), tokenizer: 'gpt2.json' })).rejects.toThrow(
      /50257 ids but the model's vocab_size is 256: pass a --config with vocab_size 50257/,
    );
  });

  it('refuses bad input before training, naming the flag', async () => {
    writeFileSync(join(cwd, 'empty.txt'), '\n \n');
    await expect(runTraining({ ...base('e1'), data: 'empty.txt' })).rejects.toThrow(/empty: pass --data/);
    writeFileSync(join(cwd, 'short.txt'), Array.from({ length: 10 }, (_, i) => `p${i}`).join('\n\n'));
    await expect(
      runTraining({ ...base('e2'), data: 'short.txt', options: { seqLen: 8, batchSize: 1 } }),
    ).rejects.toThrow(/held-out text has 2 tokens/);
    writeFileSync(
      join(cwd, 'medium.txt'),
      Array.from({ length: 10 }, (_, i) => `paragraph number ${i} with some words`).join('\n\n'),
    );
    await expect(
      runTraining({ ...base('e3'), data: 'medium.txt', options: { seqLen: 8, batchSize: 64 } }),
    ).rejects.toThrow(/fewer than one batch.*--batch-size or --seq-len/);
    await expect(runTraining({ ...base('e4'), options: { steps: 0 } })).rejects.toThrow(/--steps 1 or more/);
    await expect(runTraining({ ...base('e4'), options: { steps: 10, averageFrom: 11 } })).rejects.toThrow(
      /--average-from 11 is after the last step \(--steps 10\): give a step from 1 to 10, or 0/,
    );
    await expect(
      runTraining({ ...base('e5'), config: ModelConfig.preset('tiny', { ffn: 'moe' }) }),
    ).rejects.toThrow(/mixture-of-experts.*--config/);
    await expect(runTraining({ dir: 'nowhere', cwd, resume: true })).rejects.toThrow(
      /no training checkpoint in "nowhere"/,
    );
    await expect(runTraining({ ...base('straight'), resume: true })).rejects.toThrow(
      /--resume continues a run with its own/,
    );
    await expect(runTraining({ dir: 'straight', cwd, resume: true, threads: 2 })).rejects.toThrow(
      /--threads 1/,
    );
    await expect(runTraining(base('straight'))).rejects.toThrow(/already/);
    // A run drawn without charts is a run too; --force replaces it whole.
    await expect(runTraining(base('resumed'))).rejects.toThrow(/train-log\.jsonl/);
    const replaced = await runTraining({
      ...base('resumed'),
      force: true,
      options: { steps: 2, batchSize: 2, seqLen: 16, logEvery: 1 },
    });
    expect(replaced).toMatchObject({ status: 'completed', step: 2 });
    expect(
      readFileSync(join(cwd, 'resumed', TRAINING_LOG_FILES.csv), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);
  });

  it('takes the run lock before it reads a checkpoint or --force clears a run: a locked folder is left as it was', async () => {
    const first = await runTraining({ ...base('locked'), options: { steps: 2, batchSize: 2, seqLen: 16 } });
    expect(first.status).toBe('completed');
    const before = read('locked', TRAINING_LOG_FILES.jsonl);
    const lock = acquireRunLock(join(cwd, 'locked'), 'locked');
    try {
      await expect(runTraining({ ...base('locked'), force: true })).rejects.toThrow(
        /^--out "locked" is being written by another dantinox process .*Wait for it to end or pass another --out <dir>/,
      );
      await expect(runTraining({ dir: 'locked', cwd, resume: true })).rejects.toThrow(
        /^--resume "locked" is being written by another dantinox process .*Wait for it to end; if/,
      );
      expect(read('locked', TRAINING_LOG_FILES.jsonl).equals(before)).toBe(true);
      expect(existsSync(join(cwd, 'locked/model/model.safetensors'))).toBe(true);
    } finally {
      lock.release();
    }
  });

  it('refuses to resume on text that changed since the checkpoint', async () => {
    writeFileSync(join(cwd, 'changing.txt'), TEXT);
    const controller = new AbortController();
    await runTraining({
      ...base('changing'),
      data: 'changing.txt',
      signal: controller.signal,
      hooks: { onStep: () => controller.abort() },
    });
    writeFileSync(join(cwd, 'changing.txt'), `${TEXT}\n\nOne more paragraph.`);
    await expect(runTraining({ dir: 'changing', cwd, resume: true })).rejects.toThrow(
      /changing.txt is not the one the checkpoint was trained on/,
    );
  });
});
