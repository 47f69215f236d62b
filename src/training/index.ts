/**
 * `dantinox/training`: training the built-in transformer family on ONNX Runtime — the training graph (the
 * forward pass, its loss and every weight's gradient, built by a small reverse-mode differentiator over standard
 * ONNX operators), AdamW with warm-up and cosine decay and gradient clipping, the data split and batches, the
 * trainer, checkpoints that resume bit for bit, and the training log. `dantinox/runs`' `runTraining` makes a
 * training run of them.
 *
 * @example
 * ```ts
 * import { ModelConfig } from 'dantinox/models';
 * import { buildTrainingGraph } from 'dantinox/training';
 *
 * const graph = buildTrainingGraph(ModelConfig.preset('tiny'), { batch: 4, seq: 64, mode: 'train' });
 * console.log(graph.weights.length, 'weight inputs');
 * ```
 *
 * @packageDocumentation
 * @module dantinox/training
 */
export {
  ADAMW_DEFAULTS,
  type AdamMoments,
  type AdamWOptions,
  adamwUpdate,
  clipGradients,
  decays,
  globalNorm,
  zeroMoments,
} from './adamw.js';
export { DiffGraph, type OpOptions, type TapeNode, type ValueInfo } from './autodiff/diff-graph.js';
export { type GradientContext, type InferContext, OP_RULES, type OpRule } from './autodiff/op-rules.js';
export type { Shape } from './autodiff/shape.js';
export {
  CHECKPOINT_FOLDER,
  CHECKPOINT_FOLDERS,
  CHECKPOINT_FORMAT,
  type Checkpoint,
  type CheckpointRecord,
  checkpointFolder,
  readCheckpoint,
  writeCheckpoint,
} from './checkpoint.js';
export { type LrSchedule, learningRate } from './lr-schedule.js';
export {
  dropoutMasks,
  type StepRecord,
  Trainer,
  type TrainerInput,
  type TrainerState,
  type ValidationRecord,
} from './trainer.js';
export {
  type BatchShape,
  brownTrainingText,
  splitTrainingText,
  type TokenBatch,
  type TrainingText,
  tokenizeText,
  trainingBatch,
  type ValidationMetrics,
  type ValidationOptions,
  type ValidationSet,
  validationMetrics,
  validationSet,
  windowTokens,
} from './training-data.js';
export {
  buildTrainingGraph,
  gradientName,
  TRAINING_IO,
  type TrainingGraph,
  type TrainingGraphOptions,
  trainingAttentionMask,
  trainingBlocker,
} from './training-graph.js';
export {
  addStep,
  EMPTY_INTERVAL,
  type LogInterval,
  logRow,
  readTrainingLog,
  TRAINING_LOG_COLUMNS,
  TRAINING_LOG_FILES,
  TrainingLog,
  type TrainingLogRow,
} from './training-log.js';
export {
  checkTrainingMemory,
  TRAINING_WEIGHT_COPIES,
  type TrainingMemoryOptions,
  trainingMemoryBytes,
} from './training-memory.js';
export {
  defaultWarmupSteps,
  isDue,
  type ResolvedTrainingOptions,
  resolveTrainingOptions,
  TRAINING_DEFAULTS,
  type TrainingOptions,
} from './training-options.js';
export { RNG_STREAMS, type RngStream, trainingRng } from './training-rng.js';
export { type StepOutput, TrainingSession, type TrainingSessionOptions } from './training-session.js';
export { addToAverage, averagesAfter, type WeightAverage } from './weight-average.js';
