/**
 * The memory a training run needs, estimated before anything is allocated, so that a config too large for the
 * machine is refused in the first second instead of after minutes of swapping.
 *
 * @packageDocumentation
 */
import { messages } from '../messages.js';
import { checkFitsInMemory } from '../models/memory-check.js';
import type { ModelConfig } from '../models/model-config.js';
import { countParameters } from '../profiling/parameters.js';
import type { BatchShape } from './training-data.js';
import type { ResolvedTrainingOptions } from './training-options.js';

/**
 * Copies of the weights a run holds at once: the weights, the gradients ONNX Runtime returns (and its own
 * buffers for them while a step runs), and AdamW's two moments; one more while the weights are averaged.
 */
export const TRAINING_WEIGHT_COPIES = 5;

/** Options of {@link trainingMemoryBytes}. */
export interface TrainingMemoryOptions {
  /** The run averages its weights (`averageFrom` ≥ 1): one more copy of them. @default false */
  readonly averaging?: boolean;
}

/**
 * Bytes a training step of `config` at `shape` needs at its peak, estimated (float32 everywhere):
 * {@link TRAINING_WEIGHT_COPIES} × the weights, plus what ONNX Runtime holds while the backward pass runs — per
 * token and block 24 `dim`-wide and 10 FFN-wide values (the forward's activations and their gradients), per
 * sequence and block eight `nHeads × seq²` attention matrices (scores, probabilities and their gradients), and per
 * token ten vocabulary-wide rows (logits, log-probabilities and the head's gradient temporaries). The constants
 * were fitted to the peak RSS of training processes at two shapes (dim 256 / 4 blocks / vocab 4096 / batch
 * 16 × 128: 1.07 GiB measured, 1.16 estimated; dim 384 / 6 blocks / vocab 8192 / batch 8 × 256: 2.14 measured,
 * 2.63 estimated). Against the trainer's own peak that `npm run bench:train` prints (above the process before it)
 * the estimate is 1.5× (dim 256, batch 16 × 128) and 2.5× (dim 384 / 6 blocks / vocab 4096, batch 16 × 256) the
 * measured bytes, and 0.96× at `tiny`, whose 117 MiB no machine lacks.
 */
export function trainingMemoryBytes(
  config: ModelConfig,
  shape: BatchShape,
  options: TrainingMemoryOptions = {},
): number {
  const { dim: d, numBlocks: l, vocabSize: v, nHeads: h } = config;
  const f = Math.round(config.expansion * d);
  const tokens = shape.batch * shape.seq;
  const weights = countParameters(config).total;
  const activations =
    tokens * (l * (24 * d + 10 * f) + 10 * v) + shape.batch * l * 8 * h * shape.seq * shape.seq;
  const copies = TRAINING_WEIGHT_COPIES + (options.averaging === true ? 1 : 0);
  return 4 * (copies * weights + activations);
}

/**
 * Refuses a run of `config` with the settings `options` (its batch shape, whether it averages) whose
 * {@link trainingMemoryBytes} exceed the available memory, unless `force`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` stating the estimate, what is available and the fixes
 * (`--batch-size`, `--seq-len`, `--force`).
 */
export function checkTrainingMemory(
  config: ModelConfig,
  options: Pick<ResolvedTrainingOptions, 'batchSize' | 'seqLen' | 'averageFrom'>,
  force = false,
): void {
  const shape = { batch: options.batchSize, seq: options.seqLen };
  checkFitsInMemory(
    messages.trainingBuild(config.dim, config.numBlocks, config.vocabSize, shape.batch, shape.seq),
    trainingMemoryBytes(config, shape, { averaging: options.averageFrom > 0 }),
    { force },
  );
}
