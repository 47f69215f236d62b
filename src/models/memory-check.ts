/**
 * Memory checked before it is spent: a model whose weights cannot fit in the machine's available memory is
 * refused before anything is allocated, with the estimate in the message (`force` tries anyway).
 *
 * @packageDocumentation
 */
import { freemem } from 'node:os';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { countParameters } from '../profiling/parameters.js';
import type { ModelConfig } from './model-config.js';

/**
 * Copies of the fp32 weights alive at once while a built-in model is created, with margin. The weights are
 * generated and written to the model file one initializer at a time, so the peak is ONNX Runtime's own copy plus
 * one weight being repacked (`npm run bench:memory`: gpt2-small's creation peaks at 1.01× the memory the process
 * settles at); 1.5 leaves room for the allocator and the process itself.
 */
export const BUILD_WEIGHT_COPIES = 1.5;

/** Bytes needed to create a built-in model of `config`: {@link BUILD_WEIGHT_COPIES} × parameters × 4 bytes. */
export function modelBuildBytes(config: ModelConfig): number {
  return BUILD_WEIGHT_COPIES * countParameters(config).total * 4;
}

/**
 * Score-sized tensors (`heads × seq × seq` floats per sequence) live at once at the peak of the built-in graph's
 * attention: the scores with the mask added, their softmax and the slice of it that multiplies the new values.
 * Measured (`test/models/onnx/activation-bytes.test.ts`: peak RSS growth of a forward, MHA, GQA, sliding window and
 * MoE) at 1.0–1.2× the estimate with 3; with 2 the estimate was 1.5–1.6× short.
 */
export const ATTENTION_SCORE_COPIES = 3;

/**
 * Bytes of fp32 activations one forward pass of `batch` × `seq` tokens needs at its peak, estimated: the logits
 * (`vocabSize` per token), a dozen `dim`-wide intermediates per token (one block at a time: ONNX Runtime reuses
 * buffers across blocks) and {@link ATTENTION_SCORE_COPIES} head-by-head attention score matrices per sequence.
 */
export function forwardActivationBytes(config: ModelConfig, batch: number, seq: number): number {
  const perToken = config.vocabSize + 12 * config.dim + Math.round(config.expansion * config.dim);
  return 4 * batch * seq * (perToken + ATTENTION_SCORE_COPIES * config.nHeads * seq);
}

/** Options of {@link checkFitsInMemory}. */
export interface MemoryCheckOptions {
  /** Skip the check (try anyway). @default false */
  readonly force?: boolean;
  /** Bytes available, for tests. @default os.freemem() (Linux: MemAvailable) */
  readonly availableBytes?: number;
  /** Whether the caller has a `force` switch to mention in the message. @default true */
  readonly canForce?: boolean;
}

/**
 * Refuses `neededBytes` of allocation for `what` when it exceeds the available memory.
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` stating the estimate, what is available and the fixes
 * (a smaller shape, or `force`).
 */
export function checkFitsInMemory(what: string, neededBytes: number, options: MemoryCheckOptions = {}): void {
  if (options.force === true) return;
  const available = options.availableBytes ?? freemem();
  if (!(neededBytes <= available)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.doesNotFitInMemory(what, neededBytes, available, options.canForce ?? true),
    );
  }
}
