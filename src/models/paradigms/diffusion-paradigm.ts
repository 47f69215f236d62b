/**
 * The masked-diffusion paradigm (LLaDA-style, bidirectional): masked-token cross-entropy and iterative
 * unmasking by confidence.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Rng } from '../../rng.js';
import type { BatchShape, Model } from '../model.js';
import type { ModelConfig } from '../model-config.js';
import type { GenerateOptions, GenerationResult, LossOptions, LossResult, Paradigm } from '../paradigm.js';
import { checkTokenBatch } from '../token-checks.js';
import { checkParadigmMatches } from './ar-paradigm.js';
import { crossEntropy, logSumExp } from './log-probs.js';
import { argmax, sampleToken } from './sampling.js';

/** Generation length when `maxNewTokens` is not given (the seed's `gen_len`). */
export const DEFAULT_GEN_LENGTH = 256;
/** Denoising passes when `steps` is not given (the seed's `n_steps`). */
export const DEFAULT_DIFFUSION_STEPS = 50;

/**
 * Tokens to unmask in pass `step` (0-based) of `steps` so that all `genLen` are unmasked after the last pass:
 * `⌊(step+1)·genLen/steps⌋ − ⌊step·genLen/steps⌋` (≈ genLen/steps each; 0 for some passes when steps > genLen).
 */
export function unmaskCount(step: number, steps: number, genLen: number): number {
  return Math.floor(((step + 1) * genLen) / steps) - Math.floor((step * genLen) / steps);
}

/** A batch with some tokens replaced by the mask token, and which ones. */
export interface MaskedTokens {
  /** The batch with the masked positions set to the mask token id. */
  readonly noisy: Int32Array;
  /** 1 at each masked position, 0 elsewhere (row-major like the batch). */
  readonly masked: Uint8Array;
}

/**
 * The masking of {@link DiffusionParadigm.lossFn} (and of diffusion training): per row a ratio t = `rng.next()`,
 * then one `rng.next()` per position from `scoreFrom` on, masked when below t; a row left with no masked position
 * gets one at `scoreFrom + rng.int(T − scoreFrom)`.
 */
export function maskTokens(
  batch: Int32Array,
  shape: BatchShape,
  rng: Rng,
  maskTokenId: number,
  scoreFrom = 0,
): MaskedTokens {
  const { batch: b, seq: t } = shape;
  const noisy = batch.slice();
  const masked = new Uint8Array(b * t);
  for (let r = 0; r < b; r++) {
    const ratio = rng.next();
    let count = 0;
    for (let i = scoreFrom; i < t; i++) {
      if (rng.next() < ratio) {
        masked[r * t + i] = 1;
        count++;
      }
    }
    if (count === 0) masked[r * t + scoreFrom + rng.int(t - scoreFrom)] = 1;
    for (let i = 0; i < t; i++) if (masked[r * t + i] === 1) noisy[r * t + i] = maskTokenId;
  }
  return { noisy, masked };
}

/**
 * Masked diffusion over a bidirectional model (the seed's discrete paradigm, LLaDA-style with a linear
 * schedule).
 *
 * The loss is the **plain masked-token cross-entropy**: per row a ratio t ~ U(0,1) is drawn, each scored token is
 * replaced by `maskTokenId` with probability t (at least one per row), and the mean cross-entropy of the
 * original tokens at the masked positions is returned. It is not the 1/t-weighted ELBO the seed trains with
 * (that weighting inflates and destabilises the number as t → 0), so exp(loss) is a masked-token perplexity, not
 * a likelihood bound.
 */
export class DiffusionParadigm implements Paradigm {
  /** `diffusion`. */
  readonly type = 'diffusion' as const;
  /** The architecture this paradigm was built for. */
  readonly config: ModelConfig;
  /** `false`: every denoising pass is a full forward over the whole sequence. */
  readonly supportsKvDecode = false;

  constructor(config: ModelConfig) {
    this.config = config;
  }

  /** Parameters of `model`. */
  numParameters(model: Model): number {
    return model.numParameters();
  }

  /**
   * Masked-token cross-entropy, in nats per masked token, on rows of T tokens. Draws, per row, t = `rng.next()`
   * then one `rng.next()` per maskable position. Positions before `options.scoreFrom` are never masked
   * (context only).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids, shapes or a model of another paradigm;
   * `INVALID_OPTION` for `scoreFrom` outside [0, T).
   */
  async lossFn(
    model: Model,
    batch: Int32Array,
    shape: BatchShape,
    rng: Rng,
    options: LossOptions = {},
  ): Promise<LossResult> {
    checkParadigmMatches(this.type, model);
    checkTokenBatch(model.config, batch, shape, 0, 'the loss batch');
    const { batch: b, seq: t } = shape;
    const scoreFrom = options.scoreFrom ?? 0;
    if (!Number.isSafeInteger(scoreFrom) || scoreFrom < 0 || scoreFrom >= t) {
      throw new DantinoxError('INVALID_OPTION', messages.badScoreFrom(scoreFrom, t));
    }
    const { noisy, masked } = maskTokens(batch, shape, rng, model.config.maskTokenId, scoreFrom);
    const logits = await model.forward(noisy, shape);
    const v = logits.dims[2];
    let sumLoss = 0;
    let tokensScored = 0;
    for (let k = 0; k < b * t; k++) {
      if (masked[k] !== 1) continue;
      sumLoss += crossEntropy(logits.data, k * v, v, batch[k] ?? 0);
      tokensScored++;
    }
    return { meanLoss: sumLoss / tokensScored, sumLoss, tokensScored };
  }

  /**
   * Appends `maxNewTokens` mask tokens to `prompt` and runs `steps` full forward passes. In each pass every
   * still-masked position gets a candidate (arg-max when `temperature` is 0 or `greedy`, else a sample from
   * the softmax at that temperature; the mask token itself is never proposed) with its probability as
   * confidence, and the {@link unmaskCount} most confident are committed (ties to the earlier position). All
   * generated positions are unmasked after the last pass. `onStep(s)` runs after pass s (after `barrier()`).
   *
   * @param options - `maxNewTokens` (generation length) @default 256; `steps` @default 50; `temperature`
   * @default 1; `greedy`; `onStep`. `topK`/`topP` are not used.
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when prompt + maxNewTokens exceeds maxContext;
   * `INVALID_OPTION` for out-of-range options.
   */
  async generate(
    model: Model,
    prompt: Int32Array,
    shape: BatchShape,
    rng: Rng,
    options: GenerateOptions = {},
  ): Promise<GenerationResult> {
    checkParadigmMatches(this.type, model);
    const genLen = options.maxNewTokens ?? DEFAULT_GEN_LENGTH;
    const steps = options.steps ?? DEFAULT_DIFFUSION_STEPS;
    const temperature = options.greedy === true ? 0 : (options.temperature ?? 1);
    const bad = (name: string, value: unknown, allowed: string): DantinoxError =>
      new DantinoxError('INVALID_OPTION', messages.badGenerateOption(name, value, allowed));
    if (!Number.isSafeInteger(genLen) || genLen < 1) throw bad('maxNewTokens', genLen, 'an integer ≥ 1');
    if (!Number.isSafeInteger(steps) || steps < 1) throw bad('steps', steps, 'an integer ≥ 1');
    if (!(Number.isFinite(temperature) && temperature >= 0))
      throw bad('temperature', temperature, 'a finite number ≥ 0');
    checkTokenBatch(model.config, prompt, shape, genLen, `the prompt + ${genLen} generated tokens`);
    const { batch: b, seq: p } = shape;
    const total = p + genLen;
    const v = model.config.vocabSize;
    const maskId = model.config.maskTokenId;
    const x = new Int32Array(b * total).fill(maskId);
    const isMasked = new Uint8Array(b * total);
    for (let r = 0; r < b; r++) {
      x.set(prompt.subarray(r * p, (r + 1) * p), r * total);
      isMasked.fill(1, r * total + p, (r + 1) * total);
    }
    const row = new Float64Array(v);
    for (let step = 0; step < steps; step++) {
      const logits = await model.forward(x, { batch: b, seq: total });
      await model.barrier();
      const quota = unmaskCount(step, steps, genLen);
      for (let r = 0; r < b; r++) {
        const candidates: { pos: number; token: number; confidence: number }[] = [];
        for (let pos = p; pos < total; pos++) {
          const k = r * total + pos;
          if (isMasked[k] !== 1) continue;
          for (let i = 0; i < v; i++)
            row[i] = (logits.data[k * v + i] ?? 0) / (temperature === 0 ? 1 : temperature);
          row[maskId] = Number.NEGATIVE_INFINITY;
          const token = temperature === 0 ? argmax(row) : sampleToken(row, 0, v, rng);
          candidates.push({ pos, token, confidence: (row[token] ?? 0) - logSumExp(row) });
        }
        candidates.sort((a, c) => c.confidence - a.confidence || a.pos - c.pos);
        for (const c of candidates.slice(0, quota)) {
          x[r * total + c.pos] = c.token;
          isMasked[r * total + c.pos] = 0;
        }
      }
      options.onStep?.(step);
    }
    return { tokens: x, shape: { batch: b, seq: total }, modelCalls: steps };
  }
}
