/**
 * `Trainer`: the state of a training run — weights, AdamW moments, the number of updates done — and one update
 * (`trainStep`) or one validation (`validate`) at a time. Every random draw of update s is a function of the
 * seed and s only (`training-rng.ts`), so a trainer restored from a checkpoint at step k continues exactly as the
 * run that wrote it would have.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelConfig } from '../models/model-config.js';
import { initWeights, numElements, type WeightMap, type WeightTensor } from '../models/weights.js';
import { xoshiro128 } from '../rng.js';
import { type AdamMoments, adamwUpdate, clipGradients, zeroMoments } from './adamw.js';
import { learningRate } from './lr-schedule.js';
import {
  type TokenBatch,
  trainingBatch,
  type ValidationSet,
  validationMetrics,
  windowTokens,
} from './training-data.js';
import { checkTrainingMemory } from './training-memory.js';
import type { ResolvedTrainingOptions } from './training-options.js';
import { trainingRng } from './training-rng.js';
import { TrainingSession } from './training-session.js';
import { addToAverage, averagesAfter, type WeightAverage } from './weight-average.js';

/** Weights, moments and progress of a run: everything a checkpoint stores to resume it bit for bit. */
export interface TrainerState {
  /** Updates done (the next one is update `step`, 0-based). */
  readonly step: number;
  /** The weights, by canonical name. */
  readonly weights: ReadonlyMap<string, WeightTensor>;
  /** AdamW's moments, by weight name. */
  readonly moments: ReadonlyMap<string, AdamMoments>;
  /** The average of the weights so far (absent before the first update averaged). */
  readonly average?: WeightAverage;
}

/** What one update did. */
export interface StepRecord {
  /** Updates done after it (1-based step number). */
  readonly step: number;
  /** Training loss of its batch (nats per scored token, before the update). */
  readonly loss: number;
  /** Learning rate it used. */
  readonly lr: number;
  /** Global gradient norm before clipping. */
  readonly gradNorm: number;
  /** Positions the batch ran (batch × seq). */
  readonly tokens: number;
  /** Positions whose loss was scored. */
  readonly scored: number;
}

/** A validation's result. */
export interface ValidationRecord {
  /** Held-out loss, nats per scored token. */
  readonly loss: number;
  /** Held-out bits per byte (ar only). */
  readonly bitsPerByte?: number;
  /** Held-out positions scored. */
  readonly tokens: number;
}

/** Inputs of {@link Trainer.create}. */
export interface TrainerInput {
  /** The architecture (its `dropout` is the one trained with). */
  readonly config: ModelConfig;
  /** Resolved settings. */
  readonly options: ResolvedTrainingOptions;
  /** Training tokens. */
  readonly train: Int32Array;
  /** The fixed validation batches. */
  readonly validation: ValidationSet;
  /** Intra-op threads. @default every available core */
  readonly threads?: number;
  /** State to continue from (a checkpoint's). @default fresh weights from `options.seed`, zero moments */
  readonly state?: TrainerState;
  /** Start even when the memory estimate exceeds the available memory. @default false */
  readonly force?: boolean;
}

/** A training run's state and its next update. */
export class Trainer {
  /** The architecture trained. */
  readonly config: ModelConfig;
  /** The run's settings. */
  readonly options: ResolvedTrainingOptions;
  readonly #session: TrainingSession;
  readonly #train: Int32Array;
  readonly #validation: ValidationSet;
  readonly #weights: Map<string, WeightTensor>;
  readonly #moments: Map<string, AdamMoments>;
  #average: WeightAverage | undefined;
  #step: number;

  private constructor(input: TrainerInput, session: TrainingSession, state: TrainerState) {
    this.config = input.config;
    this.options = input.options;
    this.#session = session;
    this.#train = input.train;
    this.#validation = input.validation;
    this.#weights = new Map(state.weights);
    this.#moments = new Map(state.moments);
    this.#average = state.average;
    this.#step = state.step;
  }

  /**
   * Opens the training graph and sets up the state (fresh or given).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the training tokens are fewer than one batch;
   * `INVALID_OPTION` when the run does not fit in the available memory (unless `force`); the errors of
   * {@link TrainingSession.create}.
   */
  static async create(input: TrainerInput): Promise<Trainer> {
    const { config, options } = input;
    const shape = { batch: options.batchSize, seq: options.seqLen };
    const window = windowTokens(config.paradigm, shape.seq);
    if (input.train.length < shape.batch * window)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.trainTextTooShort(input.train.length, shape.batch, window),
      );
    checkTrainingMemory(config, options, input.force);
    const session = await TrainingSession.create(config, {
      ...shape,
      ...(input.threads === undefined ? {} : { threads: input.threads }),
    });
    return new Trainer(input, session, input.state ?? freshState(config, options.seed));
  }

  /** Updates done. */
  get step(): number {
    return this.#step;
  }

  /** The current weights (live: the next update changes them). */
  get weights(): WeightMap {
    return this.#weights;
  }

  /**
   * The model the run writes: the average of the weights once an update has been averaged (see
   * `averageFrom`), else the current weights (live: the next update changes them).
   */
  get model(): WeightMap {
    return this.#average?.weights ?? this.#weights;
  }

  /** Intra-op threads of the sessions. */
  get threads(): number {
    return this.#session.threads;
  }

  /** Engine label of the sessions. */
  get engine(): string {
    return this.#session.engine;
  }

  /** The state now (live views: copy or write it before the next update). */
  state(): TrainerState {
    return {
      step: this.#step,
      weights: this.#weights,
      moments: this.#moments,
      ...(this.#average === undefined ? {} : { average: this.#average }),
    };
  }

  /**
   * Runs update `step` (0-based): draws its batch (and dropout masks), computes loss and gradients, clips them,
   * applies AdamW at the schedule's learning rate, and adds the new weights to the average when they are due.
   *
   * @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` when the loss is not finite (divergence) or the engine fails.
   */
  async trainStep(): Promise<StepRecord> {
    const s = this.#step;
    const { options, config } = this;
    const shape = { batch: options.batchSize, seq: options.seqLen };
    const batch: TokenBatch = trainingBatch(
      this.#train,
      shape,
      config.paradigm,
      trainingRng(options.seed, 'batch', s),
      config.maskTokenId,
    );
    const masks = dropoutMasks(
      this.#session.dropoutMasks.length,
      shape.batch * shape.seq * config.dim,
      options,
      s,
    );
    const out = await this.#session.step(this.#weights, batch, masks);
    if (!Number.isFinite(out.loss))
      throw new DantinoxError('RUNTIME_ERROR', messages.trainDiverged(s + 1, out.loss, options.lr));
    const names = [...this.#weights.keys()];
    const grads = names.map((n) => out.grads.get(n) as Float32Array);
    const gradNorm = clipGradients(grads, options.gradClip);
    const lr = learningRate(options, s);
    names.forEach((name, i) => {
      adamwUpdate(
        this.#weights.get(name) as WeightTensor,
        grads[i] as Float32Array,
        this.#moments.get(name) as AdamMoments,
        s + 1,
        lr,
        options,
      );
    });
    this.#step = s + 1;
    if (averagesAfter(options, s + 1)) this.#average = addToAverage(this.#average, this.#weights);
    return {
      step: s + 1,
      loss: out.loss,
      lr,
      gradNorm,
      tokens: shape.batch * shape.seq,
      scored: batch.scored,
    };
  }

  /**
   * Scores the fixed held-out batches with {@link Trainer.model}, the model the run would write now (no dropout).
   *
   * @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` when the engine fails.
   */
  async validate(): Promise<ValidationRecord> {
    let sumNll = 0;
    for (const batch of this.#validation.batches) sumNll += await this.#session.evaluate(this.model, batch);
    return { ...validationMetrics(this.#validation, sumNll), tokens: this.#validation.tokens };
  }

  /** Releases the sessions. */
  async dispose(): Promise<void> {
    await this.#session.dispose();
  }
}

/** Seeded initial weights (the built-in model's, `initWeights`) and zero moments. */
function freshState(config: ModelConfig, seed: number): TrainerState {
  const weights = new Map(initWeights(config, seed));
  const moments = new Map<string, AdamMoments>();
  for (const [name, w] of weights) moments.set(name, zeroMoments(numElements(w.dims)));
  return { step: 0, weights, moments };
}

/**
 * The dropout keep-masks of update `step`: `count` arrays of `size` bytes, 1 with probability 1 − p, from one
 * {@link xoshiro128} stream seeded by the step's `dropout` generator. None when there is no dropout.
 */
export function dropoutMasks(
  count: number,
  size: number,
  options: Pick<ResolvedTrainingOptions, 'dropout' | 'seed'>,
  step: number,
): Uint8Array[] {
  if (count === 0 || options.dropout === 0) return [];
  const bits = xoshiro128(trainingRng(options.seed, 'dropout', step));
  const threshold = options.dropout * 2 ** 32;
  return Array.from({ length: count }, () => {
    const mask = new Uint8Array(size);
    for (let i = 0; i < size; i++) mask[i] = bits() >>> 0 >= threshold ? 1 : 0;
    return mask;
  });
}
