/**
 * The autoregressive paradigm: next-token cross-entropy and KV-cache generation on a causal model.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Rng } from '../../rng.js';
import type { BatchShape, DecodeState, Model } from '../model.js';
import type { ModelConfig } from '../model-config.js';
import { logitScorer } from '../onnx/logit-scorer.js';
import type { GenerateOptions, GenerationResult, LossOptions, LossResult, Paradigm } from '../paradigm.js';
import { checkTokenBatch } from '../token-checks.js';
import { type SamplingOptions, sampleToken } from './sampling.js';

/** Tokens {@link ARParadigm.generate} produces when `maxNewTokens` is not given (the seed's default). */
export const DEFAULT_MAX_NEW_TOKENS = 200;

/** Throws `INVALID_INPUT` unless `model` was built for `kind`. */
export function checkParadigmMatches(kind: string, model: Model): void {
  if (model.config.paradigm !== kind) {
    throw new DantinoxError('INVALID_INPUT', messages.paradigmMismatch(kind, model.config.paradigm));
  }
}

/** Validates temperature, top-k and top-p; returns them as sampling options. */
export function samplingOptions(options: GenerateOptions): SamplingOptions {
  const { temperature, topK, topP, greedy } = options;
  const bad = (name: string, value: unknown, allowed: string): DantinoxError =>
    new DantinoxError('INVALID_OPTION', messages.badGenerateOption(name, value, allowed));
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0)) {
    throw bad('temperature', temperature, 'a finite number ≥ 0');
  }
  if (topK !== undefined && !(Number.isSafeInteger(topK) && topK >= 1))
    throw bad('topK', topK, 'an integer ≥ 1');
  if (topP !== undefined && !(topP > 0 && topP <= 1)) throw bad('topP', topP, 'a number in (0, 1]');
  return {
    ...(temperature === undefined ? {} : { temperature }),
    ...(topK === undefined ? {} : { topK }),
    ...(topP === undefined ? {} : { topP }),
    ...(greedy === undefined ? {} : { greedy }),
  };
}

/**
 * Autoregressive language modelling (the seed's `ARParadigm`): the loss is the mean next-token cross-entropy,
 * and generation runs one prefill then one real KV-cache decode step per new token.
 *
 * @example
 * ```ts
 * const paradigm = new ARParadigm(model.config);
 * const { meanLoss } = await paradigm.lossFn(model, batch, { batch: 4, seq: 129 }, new Rng(0));
 * ```
 */
export class ARParadigm implements Paradigm {
  /** `ar`. */
  readonly type = 'ar' as const;
  /** The architecture this paradigm was built for. */
  readonly config: ModelConfig;
  /** `true`: generation uses the KV cache, one decode step per token. */
  readonly supportsKvDecode = true;

  constructor(config: ModelConfig) {
    this.config = config;
  }

  /** Parameters of `model`. */
  numParameters(model: Model): number {
    return model.numParameters();
  }

  /**
   * Mean next-token cross-entropy, in nats per token: rows of `batch` hold T+1 tokens; the model runs on the
   * first T and target position i (0-based) is token i+1. Positions before `options.scoreFrom` are context
   * only. Each position's loss is computed by ONNX Runtime (`LogitScorer`: a max-subtracted log-sum-exp in
   * float32, so a huge loss stays finite) and summed in float64. `rng` is unused (the loss is deterministic).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for rows shorter than 2, bad ids, more than maxContext inputs
   * or a model of another paradigm; `INVALID_OPTION` for `scoreFrom` outside [0, T).
   */
  async lossFn(
    model: Model,
    batch: Int32Array,
    shape: BatchShape,
    _rng: Rng,
    options: LossOptions = {},
  ): Promise<LossResult> {
    checkParadigmMatches(this.type, model);
    if (Number.isSafeInteger(shape?.seq) && shape.seq < 2) {
      throw new DantinoxError('INVALID_INPUT', messages.lossRowTooShort(shape.seq));
    }
    // The last token of each row is only a target: it takes no position, hence pastLength −1.
    checkTokenBatch(model.config, batch, shape, -1, 'the loss batch (T inputs + 1 target)');
    const { batch: b, seq } = shape;
    const t = seq - 1;
    const scoreFrom = options.scoreFrom ?? 0;
    if (!Number.isSafeInteger(scoreFrom) || scoreFrom < 0 || scoreFrom >= t) {
      throw new DantinoxError('INVALID_OPTION', messages.badScoreFrom(scoreFrom, t));
    }
    const inputs = new Int32Array(b * t);
    for (let r = 0; r < b; r++) inputs.set(batch.subarray(r * seq, r * seq + t), r * t);
    const logits = await model.forward(inputs, { batch: b, seq: t });
    const targets = new BigInt64Array(b * t);
    for (let r = 0; r < b; r++)
      for (let i = 0; i < t; i++) targets[r * t + i] = BigInt(batch[r * seq + i + 1] ?? 0);
    const { nll } = await (await logitScorer()).nll(logits.data, logits.dims[2], targets);
    let sumLoss = 0;
    let tokensScored = 0;
    for (let r = 0; r < b; r++) {
      for (let i = scoreFrom; i < t; i++) {
        sumLoss += nll[r * t + i] as number;
        tokensScored++;
      }
    }
    return { meanLoss: sumLoss / tokensScored, sumLoss, tokensScored };
  }

  /**
   * Generates `maxNewTokens` tokens after `prompt` (`[batch, seq]`): one prefill (step 0), then one KV-cache
   * decode step per further token, picking each token with {@link sampleToken} (greedy, or temperature / top-k
   * / top-p sampling from `rng`). `onStep(i)` runs after model call i has finished (after `model.barrier()`)
   * and its token has been picked. Decode states are disposed even when a step fails.
   *
   * @param options - `maxNewTokens` @default 200; `temperature` @default 1; `topK`, `topP`, `greedy`, `onStep`.
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when prompt + maxNewTokens exceeds the model's maxContext or
   * the prompt is invalid; `INVALID_OPTION` for out-of-range options.
   */
  async generate(
    model: Model,
    prompt: Int32Array,
    shape: BatchShape,
    rng: Rng,
    options: GenerateOptions = {},
  ): Promise<GenerationResult> {
    checkParadigmMatches(this.type, model);
    const newTokens = options.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS;
    if (!Number.isSafeInteger(newTokens) || newTokens < 1) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.badGenerateOption('maxNewTokens', newTokens, 'an integer ≥ 1'),
      );
    }
    const sampling = samplingOptions(options);
    checkTokenBatch(model.config, prompt, shape, newTokens, `the prompt + ${newTokens} new tokens`);
    const { batch: b, seq: p } = shape;
    const total = p + newTokens;
    const out = new Int32Array(b * total);
    for (let r = 0; r < b; r++) out.set(prompt.subarray(r * p, (r + 1) * p), r * total);
    const next = new Int32Array(b);
    const v = model.config.vocabSize;
    let state: DecodeState | undefined;
    try {
      // Only the last position is sampled: an engine across a page boundary then sends just that row.
      const first = await model.prefill(prompt, shape, { logits: 'last' });
      state = first.state;
      await model.barrier();
      const rows = first.logits.dims[1] ?? p;
      for (let r = 0; r < b; r++) {
        next[r] = sampleToken(first.logits.data, (r * rows + rows - 1) * v, v, rng, sampling);
        out[r * total + p] = next[r] ?? 0;
      }
      options.onStep?.(0);
      for (let i = 1; i < newTokens; i++) {
        const step = await model.decodeStep(next.slice(), state);
        state = step.state;
        await model.barrier();
        for (let r = 0; r < b; r++) {
          next[r] = sampleToken(step.logits.data, r * v, v, rng, sampling);
          out[r * total + p + i] = next[r] ?? 0;
        }
        options.onStep?.(i);
      }
    } finally {
      state?.dispose();
    }
    return { tokens: out, shape: { batch: b, seq: total }, modelCalls: newTokens };
  }
}
