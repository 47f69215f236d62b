/**
 * The paradigm contract (the seed's `paradigm` argument): how a model is trained-against (its loss) and how it
 * generates. `Paradigm.for(config)` (implemented beside the paradigms) picks the one named by `config.paradigm`.
 *
 * @packageDocumentation
 */
import type { Rng } from '../rng.js';
import type { BatchShape, Model } from './model.js';
import type { ModelConfig, ParadigmKind } from './model-config.js';
import { ARParadigm } from './paradigms/ar-paradigm.js';
import { DiffusionParadigm } from './paradigms/diffusion-paradigm.js';

/** Options of {@link Paradigm.lossFn}. */
export interface LossOptions {
  /**
   * Positions of the target sequence before this index are context only and are not scored (sliding-window
   * perplexity). For `ar`, target position i is token i+1 of the batch row.
   * @default 0
   */
  readonly scoreFrom?: number;
}

/** Loss over a batch, with the totals needed to combine batches token-weighted. */
export interface LossResult {
  /** Mean loss over the scored tokens, in nats per token. */
  readonly meanLoss: number;
  /** Sum of the per-token losses, in nats. */
  readonly sumLoss: number;
  /** Number of tokens scored. */
  readonly tokensScored: number;
}

/** Options of {@link Paradigm.generate}; each paradigm documents which ones it reads. */
export interface GenerateOptions {
  /** Tokens to generate (ar) or to unmask (diffusion: the generation length). */
  readonly maxNewTokens?: number;
  /** Denoising passes (diffusion only). */
  readonly steps?: number;
  /** Softmax temperature; 0 or `greedy` picks the arg-max. @default 1 */
  readonly temperature?: number;
  /** Keep only the k most likely tokens before sampling (ar only). */
  readonly topK?: number;
  /** Keep the smallest set of tokens whose probability reaches p (ar only). */
  readonly topP?: number;
  /** Arg-max decoding. @default false */
  readonly greedy?: boolean;
  /**
   * Called after each model call of the generation has finished (after the engine barrier): step 0 is the
   * prefill (ar) or the first denoising pass (diffusion). Benchmarks time TTFT and TPOT from these calls.
   */
  readonly onStep?: (step: number) => void;
}

/** Generated sequences: the prompt followed by the new tokens, row-major `[batch, seq]`. */
export interface GenerationResult {
  /** Prompt + generated ids. */
  readonly tokens: Int32Array;
  /** Shape of `tokens`. */
  readonly shape: BatchShape;
  /** Number of model calls made (prefill + decode steps, or denoising passes). */
  readonly modelCalls: number;
}

/** A generation paradigm over a {@link Model}. */
export interface Paradigm {
  /** Which paradigm this is. */
  readonly type: ParadigmKind;
  /** The model architecture this paradigm was built for. */
  readonly config: ModelConfig;
  /** Whether {@link Paradigm.generate} uses a KV cache with one decode step per token (ar) or full passes. */
  readonly supportsKvDecode: boolean;
  /** Parameters of `model`. */
  numParameters(model: Model): number;
  /**
   * Training loss on `batch`. For `ar`: rows of T+1 tokens, next-token cross-entropy on positions 1..T. For
   * `diffusion`: rows of T tokens, a mask ratio t ~ U(0,1) per row drawn from `rng`, cross-entropy on the masked
   * positions only.
   */
  lossFn(
    model: Model,
    batch: Int32Array,
    shape: BatchShape,
    rng: Rng,
    options?: LossOptions,
  ): Promise<LossResult>;
  /** Generates from `prompt` (`[batch, seq]`). */
  generate(
    model: Model,
    prompt: Int32Array,
    shape: BatchShape,
    rng: Rng,
    options?: GenerateOptions,
  ): Promise<GenerationResult>;
}

/**
 * Companion of the {@link Paradigm} interface: picks the implementation named by `config.paradigm`.
 *
 * @example
 * ```ts
 * const paradigm = Paradigm.for(model.config); // ARParadigm for 'ar', DiffusionParadigm for 'diffusion'
 * const { meanLoss } = await paradigm.lossFn(model, batch, shape, new Rng(0));
 * ```
 */
export const Paradigm = {
  /** The paradigm of `config`: {@link ARParadigm} for `ar`, {@link DiffusionParadigm} for `diffusion`. */
  for(config: ModelConfig): Paradigm {
    return config.paradigm === 'ar' ? new ARParadigm(config) : new DiffusionParadigm(config);
  },
  /** The paradigm kinds dantinox implements. */
  kinds(): ParadigmKind[] {
    return ['ar', 'diffusion'];
  },
} as const;
