/**
 * The settings of a training run ({@link TrainingOptions}), their defaults in one frozen table
 * ({@link TRAINING_DEFAULTS}, which `dantinox train --help` shows), and their resolution against a config.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelConfig } from '../models/model-config.js';
import { ADAMW_DEFAULTS } from './adamw.js';

/** The settings of a training run; every field is optional. */
export interface TrainingOptions {
  /** Optimizer updates. @default 1000 */
  readonly steps?: number;
  /** Sequences per batch. @default 16 */
  readonly batchSize?: number;
  /** Tokens per sequence. @default the config's `maxContext` */
  readonly seqLen?: number;
  /** Peak learning rate. @default 0.001 */
  readonly lr?: number;
  /** Learning rate at the last step (the cosine's floor). @default `lr / 10` */
  readonly minLr?: number;
  /** Steps of linear warm-up. @default min(100, ⌊steps / 10⌋) */
  readonly warmupSteps?: number;
  /** AdamW β₁. @default 0.9 */
  readonly beta1?: number;
  /** AdamW β₂. @default 0.95 */
  readonly beta2?: number;
  /** AdamW ε. @default 1e-8 */
  readonly eps?: number;
  /** Decoupled weight decay of matrices and embeddings. @default 0.1 */
  readonly weightDecay?: number;
  /** Largest global gradient norm; 0 never clips. @default 1 */
  readonly gradClip?: number;
  /** Dropout probability of the embedding and of each block's attention and FFN outputs. @default the config's `dropout` */
  readonly dropout?: number;
  /** Seed of the initial weights and of every random draw. @default 0 */
  readonly seed?: number;
  /** Validate on the held-out text every this many steps (and after the last); 0: after the last only. @default 100 */
  readonly valEvery?: number;
  /** Held-out batches scored by each validation. @default 8 */
  readonly valBatches?: number;
  /** Write a log row every this many steps (and after the last). @default 10 */
  readonly logEvery?: number;
  /** Write a checkpoint every this many steps (and after the last); 0: after the last only. @default 500 */
  readonly checkpointEvery?: number;
  /**
   * First update (1-based) whose weights join the average the run writes as its model (see `weight-average.ts`);
   * validation scores that average from then on. 0: no averaging, the model is the last update's weights.
   * @default 0
   */
  readonly averageFrom?: number;
  /** Updates between two weights averaged (from `averageFrom` on). @default 1 */
  readonly averageEvery?: number;
}

/** {@link TrainingOptions} with every field resolved. */
export type ResolvedTrainingOptions = {
  readonly [K in keyof TrainingOptions]-?: NonNullable<TrainingOptions[K]>;
};

/** The defaults of the settings that do not depend on the config or on other settings. */
export const TRAINING_DEFAULTS = Object.freeze({
  /** Optimizer updates. */
  steps: 1000,
  /** Sequences per batch. */
  batchSize: 16,
  /** Peak learning rate. */
  lr: 1e-3,
  /** AdamW β₁. */
  beta1: ADAMW_DEFAULTS.beta1,
  /** AdamW β₂. */
  beta2: ADAMW_DEFAULTS.beta2,
  /** AdamW ε. */
  eps: ADAMW_DEFAULTS.eps,
  /** Decoupled weight decay. */
  weightDecay: ADAMW_DEFAULTS.weightDecay,
  /** Largest global gradient norm. */
  gradClip: 1,
  /** Seed. */
  seed: 0,
  /** Steps between validations. */
  valEvery: 100,
  /** Held-out batches per validation. */
  valBatches: 8,
  /** Steps between log rows. */
  logEvery: 10,
  /** Steps between checkpoints. */
  checkpointEvery: 500,
  /** First update averaged (0: none). */
  averageFrom: 0,
  /** Updates between two averaged. */
  averageEvery: 1,
});

/** The warm-up a run of `steps` updates gets by default: min(100, ⌊steps / 10⌋). */
export function defaultWarmupSteps(steps: number): number {
  return Math.min(100, Math.floor(steps / 10));
}

const bad = (name: string, value: unknown, allowed: string): DantinoxError =>
  new DantinoxError('INVALID_OPTION', messages.invalidNumberOption(name, value, allowed));

function integer(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw bad(name, value, min === 0 ? 'a non-negative integer' : `an integer ≥ ${min}`);
  return value;
}

function inRange(name: string, value: number, allowed: string, ok: (v: number) => boolean): number {
  if (!Number.isFinite(value) || !ok(value)) throw bad(name, value, allowed);
  return value;
}

/**
 * The settings of a run of `config`: `options` over {@link TRAINING_DEFAULTS} and the derived defaults, checked.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming the first setting out of range: `steps` 0 (a run must
 * update at least once), a `seqLen` above `maxContext`, `minLr` above `lr`, a β outside [0, 1), a dropout
 * outside [0, 1), an `averageFrom` after the last step.
 */
export function resolveTrainingOptions(
  config: ModelConfig,
  options: TrainingOptions = {},
): ResolvedTrainingOptions {
  const steps = options.steps ?? TRAINING_DEFAULTS.steps;
  if (!Number.isSafeInteger(steps) || steps < 1)
    throw new DantinoxError('INVALID_OPTION', messages.trainNoSteps(steps));
  const lr = inRange('lr', options.lr ?? TRAINING_DEFAULTS.lr, 'a finite number > 0', (v) => v > 0);
  const minLr = options.minLr ?? lr / 10;
  if (!(minLr >= 0 && minLr <= lr)) throw new DantinoxError('INVALID_OPTION', messages.trainMinLr(minLr, lr));
  const seqLen = integer('seqLen', options.seqLen ?? config.maxContext, 1);
  if (seqLen > config.maxContext)
    throw new DantinoxError('INVALID_OPTION', messages.trainSeqTooLong(seqLen, config.maxContext));
  const averageFrom = integer('averageFrom', options.averageFrom ?? TRAINING_DEFAULTS.averageFrom, 0);
  if (averageFrom > steps)
    throw new DantinoxError('INVALID_OPTION', messages.trainAverageFrom(averageFrom, steps));
  const fraction = (name: string, value: number): number =>
    inRange(name, value, 'a number in [0, 1)', (v) => v >= 0 && v < 1);
  return Object.freeze({
    steps,
    batchSize: integer('batchSize', options.batchSize ?? TRAINING_DEFAULTS.batchSize, 1),
    seqLen,
    lr,
    minLr,
    warmupSteps: integer('warmupSteps', options.warmupSteps ?? defaultWarmupSteps(steps), 0),
    beta1: fraction('beta1', options.beta1 ?? TRAINING_DEFAULTS.beta1),
    beta2: fraction('beta2', options.beta2 ?? TRAINING_DEFAULTS.beta2),
    eps: inRange('eps', options.eps ?? TRAINING_DEFAULTS.eps, 'a finite number > 0', (v) => v > 0),
    weightDecay: inRange(
      'weightDecay',
      options.weightDecay ?? TRAINING_DEFAULTS.weightDecay,
      'a finite number ≥ 0',
      (v) => v >= 0,
    ),
    gradClip: inRange(
      'gradClip',
      options.gradClip ?? TRAINING_DEFAULTS.gradClip,
      'a finite number ≥ 0',
      (v) => v >= 0,
    ),
    dropout: fraction('dropout', options.dropout ?? config.dropout),
    seed: integer('seed', options.seed ?? TRAINING_DEFAULTS.seed, 0),
    valEvery: integer('valEvery', options.valEvery ?? TRAINING_DEFAULTS.valEvery, 0),
    valBatches: integer('valBatches', options.valBatches ?? TRAINING_DEFAULTS.valBatches, 1),
    logEvery: integer('logEvery', options.logEvery ?? TRAINING_DEFAULTS.logEvery, 1),
    checkpointEvery: integer(
      'checkpointEvery',
      options.checkpointEvery ?? TRAINING_DEFAULTS.checkpointEvery,
      0,
    ),
    averageFrom,
    averageEvery: integer('averageEvery', options.averageEvery ?? TRAINING_DEFAULTS.averageEvery, 1),
  });
}

/** Whether `every` (0: never) falls on the 1-based step `step`, or `step` is the run's last. */
export function isDue(every: number, step: number, steps: number): boolean {
  return step === steps || (every > 0 && step % every === 0);
}
