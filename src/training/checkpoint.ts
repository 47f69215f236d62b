/**
 * Checkpoints of a training run: everything needed to continue it bit for bit, written atomically into the run
 * folder's `checkpoint/`:
 *
 * - `model.safetensors` (+ `tokenizer.json` and `tokenizer_config.json` for a model with its own tokenizer): the
 *   weights and config as a dantinox model folder, so a checkpoint also opens with `--model`;
 * - `optimizer.safetensors`: AdamW's moments, `m.<weight>` and `v.<weight>`;
 * - `average.safetensors`, once the run averages its weights: their running mean, under the weights' names;
 * - `trainer.json`: the step, the resolved settings, the thread count, what the data and tokenizer were (SHA-256),
 *   the sums of the log rows's unfinished interval and how many updates the average holds.
 *
 * A checkpoint is written whole into `checkpoint.partial/`, then swapped in by two renames (the previous one kept
 * as `checkpoint.previous/` until the new one is in place), so a run killed at any moment leaves a complete
 * checkpoint: {@link readCheckpoint} takes `checkpoint/`, else `checkpoint.previous/`.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { HfTokenizerFiles } from '../models/hf/hf-tokenizer-json.js';
import type { ModelConfig } from '../models/model-config.js';
import { readModelFolder, writeModelFolder } from '../models/model-folder.js';
import { loadSafetensors, saveSafetensors } from '../models/safetensors.js';
import type { WeightTensor } from '../models/weights.js';
import type { AdamMoments } from './adamw.js';
import type { TrainerState } from './trainer.js';
import type { LogInterval } from './training-log.js';
import type { ResolvedTrainingOptions } from './training-options.js';
import type { WeightAverage } from './weight-average.js';

/** Folder of the checkpoint in a run folder. */
export const CHECKPOINT_FOLDER = 'checkpoint';
const PARTIAL = `${CHECKPOINT_FOLDER}.partial`;
const PREVIOUS = `${CHECKPOINT_FOLDER}.previous`;

/** Every folder a checkpoint's writing may leave in a run folder: the checkpoint, and its two stand-ins while swapped. */
export const CHECKPOINT_FOLDERS = [CHECKPOINT_FOLDER, PARTIAL, PREVIOUS] as const;
const STATE_FILE = 'trainer.json';
const OPTIMIZER_FILE = 'optimizer.safetensors';
const AVERAGE_FILE = 'average.safetensors';
const FORMAT = 'dantinox-checkpoint/1';

/** What `trainer.json` records. */
export interface CheckpointRecord {
  /** `dantinox-checkpoint/1`. */
  readonly format: typeof FORMAT;
  /** Updates done. */
  readonly step: number;
  /** The run's settings. */
  readonly options: ResolvedTrainingOptions;
  /** Intra-op threads (a resume uses the same, to continue bit for bit). */
  readonly threads: number;
  /** The training text. */
  readonly data: {
    /** Its name (`brown` or the file as given). */
    readonly name: string;
    /** The file, absolute (absent for the Brown corpus). */
    readonly path?: string;
    /** SHA-256 of the training and held-out texts. */
    readonly sha256: string;
  };
  /** The tokenizer. */
  readonly tokenizer: {
    /** Its name. */
    readonly name: string;
    /** Its number of ids. */
    readonly vocabSize: number;
    /** SHA-256 of its `tokenizer.json` (absent for a built-in tokenizer). */
    readonly sha256?: string;
  };
  /** Tokens trained so far. */
  readonly tokens: number;
  /** Seconds spent in training steps so far. */
  readonly trainSeconds: number;
  /** The unfinished log interval. */
  readonly interval: LogInterval;
  /** Updates the weights' average holds (absent before the first one averaged). */
  readonly averaged?: number;
}

const count = z.number().int().min(0);
const recordSchema: z.ZodType<CheckpointRecord> = z.object({
  format: z.literal(FORMAT),
  step: count,
  options: z.object({
    steps: count,
    batchSize: count,
    seqLen: count,
    lr: z.number(),
    minLr: z.number(),
    warmupSteps: count,
    beta1: z.number(),
    beta2: z.number(),
    eps: z.number(),
    weightDecay: z.number(),
    gradClip: z.number(),
    dropout: z.number(),
    seed: count,
    valEvery: count,
    valBatches: count,
    logEvery: count,
    checkpointEvery: count,
    // Absent from the checkpoints of runs before averaging existed: those runs did not average.
    averageFrom: count.default(0),
    averageEvery: count.min(1).default(1),
  }),
  threads: count,
  data: z.object({ name: z.string(), path: z.exactOptional(z.string()), sha256: z.string() }),
  tokenizer: z.object({ name: z.string(), vocabSize: count, sha256: z.exactOptional(z.string()) }),
  tokens: z.number(),
  trainSeconds: z.number(),
  interval: z.object({
    steps: count,
    lossSum: z.number(),
    scored: z.number(),
    gradNormSum: z.number(),
    tokens: z.number(),
    seconds: z.number(),
  }),
  averaged: z.exactOptional(z.number().int().min(1)),
});

/** A checkpoint: the record, the trainer's state, the config and the model's own tokenizer (if any). */
export interface Checkpoint {
  /** The record (`trainer.json`). */
  readonly record: CheckpointRecord;
  /** Weights, moments and step. */
  readonly state: TrainerState;
  /** The architecture (with the dropout trained with). */
  readonly config: ModelConfig;
  /** The model's own tokenizer. */
  readonly tokenizer?: HfTokenizerFiles;
}

/** The `format` a checkpoint record carries. */
export const CHECKPOINT_FORMAT = FORMAT;

/**
 * Writes `checkpoint` into `runDir/checkpoint/` atomically (see the module notes).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when a file cannot be written.
 */
export async function writeCheckpoint(runDir: string, checkpoint: Checkpoint): Promise<void> {
  const partial = join(runDir, PARTIAL);
  rmSync(partial, { recursive: true, force: true });
  const { state, config, tokenizer, record } = checkpoint;
  await writeModelFolder(partial, {
    config,
    weights: state.weights,
    ...(tokenizer === undefined ? {} : { tokenizer }),
  });
  const moments = new Map<string, WeightTensor>();
  for (const [name, m] of state.moments) {
    const dims = (state.weights.get(name) as WeightTensor).dims;
    moments.set(`m.${name}`, { dims, data: m.m });
    moments.set(`v.${name}`, { dims, data: m.v });
  }
  await saveSafetensors(join(partial, OPTIMIZER_FILE), moments);
  if (state.average !== undefined) await saveSafetensors(join(partial, AVERAGE_FILE), state.average.weights);
  // The record last: a folder with it is complete.
  writeFileSync(join(partial, STATE_FILE), `${JSON.stringify(record, null, 2)}\n`);
  const current = join(runDir, CHECKPOINT_FOLDER);
  const previous = join(runDir, PREVIOUS);
  rmSync(previous, { recursive: true, force: true });
  if (existsSync(current)) renameSync(current, previous);
  renameSync(partial, current);
  rmSync(previous, { recursive: true, force: true });
}

/** The complete checkpoint folder of `runDir`, if any: `checkpoint/`, else `checkpoint.previous/`. */
export function checkpointFolder(runDir: string): string | undefined {
  return [CHECKPOINT_FOLDER, PREVIOUS]
    .map((f) => join(runDir, f))
    .find((f) => existsSync(join(f, STATE_FILE)));
}

/**
 * Reads the checkpoint of `runDir` (see {@link checkpointFolder}), or `undefined` when there is none.
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a checkpoint whose files are missing or malformed.
 */
export async function readCheckpoint(runDir: string): Promise<Checkpoint | undefined> {
  const folder = checkpointFolder(runDir);
  if (folder === undefined) return undefined;
  const statePath = join(folder, STATE_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(statePath, 'utf8'));
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(statePath, 'JSON', cause), { cause });
  }
  const parsed = recordSchema.safeParse(raw);
  if (!parsed.success)
    throw new DantinoxError('IO', messages.malformedFile(statePath, 'checkpoint record', parsed.error));
  const model = await readModelFolder(folder);
  const optimizer = (await loadSafetensors(join(folder, OPTIMIZER_FILE))).weights;
  const weights = new Map<string, WeightTensor>(model.weights);
  const moments = new Map<string, AdamMoments>();
  for (const name of weights.keys()) {
    const m = optimizer.get(`m.${name}`);
    const v = optimizer.get(`v.${name}`);
    if (m === undefined || v === undefined)
      throw new DantinoxError(
        'IO',
        messages.malformedFile(join(folder, OPTIMIZER_FILE), 'optimizer state', `no moments of ${name}`),
      );
    moments.set(name, { m: m.data, v: v.data });
  }
  const average =
    parsed.data.averaged === undefined
      ? undefined
      : await readAverage(join(folder, AVERAGE_FILE), parsed.data.averaged, weights);
  return {
    record: parsed.data,
    state: { step: parsed.data.step, weights, moments, ...(average === undefined ? {} : { average }) },
    config: model.config,
    ...(model.tokenizer === undefined ? {} : { tokenizer: model.tokenizer }),
  };
}

/** The average of `count` updates in `path`, checked to hold every weight of `weights` at its shape. */
async function readAverage(
  path: string,
  count: number,
  weights: ReadonlyMap<string, WeightTensor>,
): Promise<WeightAverage> {
  const stored = existsSync(path) ? (await loadSafetensors(path)).weights : undefined;
  const mean = new Map<string, WeightTensor>();
  for (const [name, w] of weights) {
    const a = stored?.get(name);
    if (a === undefined || a.data.length !== w.data.length)
      throw new DantinoxError(
        'IO',
        messages.malformedFile(
          path,
          'weights average',
          `no average of ${name} at shape [${w.dims.join(', ')}]`,
        ),
      );
    mean.set(name, { dims: w.dims, data: a.data });
  }
  return { count, weights: mean };
}
