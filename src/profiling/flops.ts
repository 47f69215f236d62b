/**
 * Analytical FLOPs of a transformer forward pass, decode step and training step: pure arithmetic on
 * {@link ModelConfig} fields, no runtime.
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelConfig } from '../models/model-config.js';
import { countAttendedKeys } from './attended-keys.js';
import { FlopsBreakdown, type FlopsFormula, type FlopsPass, type MoeCounting } from './flops-breakdown.js';
import {
  checkConfigNumbers,
  checkNonNegativeInt,
  checkOneOf,
  checkOptionsObject,
  checkPositiveInt,
} from './option-checks.js';

const FORMULAS: readonly FlopsFormula[] = ['exact', 'seed'];
const MOE_COUNTINGS: readonly MoeCounting[] = ['active', 'dense'];

/** Options of {@link countFlops}. */
export interface CountFlopsOptions {
  /** Number of new tokens per sequence processed by the pass (the query length T). Required, ≥ 1. */
  seqLen: number;
  /**
   * Number of sequences B.
   * @default 1
   */
  batchSize?: number;
  /**
   * Tokens already in the KV cache; the new tokens attend over `pastLength + seqLen` keys. Must be 0 with
   * `formula: 'seed'`.
   * @default 0
   */
  pastLength?: number;
  /**
   * `'exact'` for the architecture's real count, `'seed'` for the seed's documented formulas.
   * @default 'exact'
   */
  formula?: FlopsFormula;
  /**
   * How MoE layers are counted (ignored by `formula: 'seed'`, which has no MoE term).
   * @default 'active'
   */
  moe?: MoeCounting;
  /**
   * Positions per sequence whose logits the pass computes, the last ones (the LM head runs on those only): all
   * `seqLen` for a pass that scores every position, 1 for a generation's prefill, which needs only the next
   * token's distribution. An integer from 1 to `seqLen`; `seqLen` with `formula: 'seed'`.
   * @default seqLen
   */
  logitPositions?: number;
}

/** Options of {@link countDecodeFlops}. */
export interface CountDecodeFlopsOptions {
  /** Tokens already in the KV cache, c ≥ 0; the new token attends over c + 1 keys. Required. */
  context: number;
  /**
   * Number of sequences decoded together.
   * @default 1
   */
  batchSize?: number;
  /**
   * How MoE layers are counted.
   * @default 'active'
   */
  moe?: MoeCounting;
}

/** Options of {@link countTrainingFlops}. */
export type CountTrainingFlopsOptions = Omit<CountFlopsOptions, 'pastLength' | 'logitPositions'>;

interface ResolvedCount {
  seqLen: number;
  batchSize: number;
  pastLength: number;
  formula: FlopsFormula;
  moe: MoeCounting;
  logitPositions: number;
}

function resolveOptions(config: ModelConfig, options: CountFlopsOptions): ResolvedCount {
  checkConfigNumbers(config);
  checkOptionsObject('countFlops', options, '{ seqLen: 512 }');
  const { seqLen, batchSize = 1, pastLength = 0, formula = 'exact', moe = 'active' } = options;
  checkPositiveInt('seqLen', seqLen);
  const logitPositions = options.logitPositions ?? seqLen;
  checkPositiveInt('logitPositions', logitPositions);
  if (logitPositions > seqLen) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('logitPositions', logitPositions, `at most seqLen (${seqLen})`),
    );
  }
  checkPositiveInt('batchSize', batchSize);
  checkNonNegativeInt('pastLength', pastLength);
  checkOneOf('FLOPs formula', formula, FORMULAS);
  checkOneOf('MoE counting', moe, MOE_COUNTINGS);
  if (seqLen + pastLength > config.maxContext) {
    throw new DantinoxError('INVALID_OPTION', messages.contextTooLong(seqLen, pastLength, config.maxContext));
  }
  if (formula === 'seed' && pastLength !== 0) {
    throw new DantinoxError('INVALID_OPTION', messages.seedFormulaNoCache(pastLength));
  }
  if (formula === 'seed' && logitPositions !== seqLen) {
    throw new DantinoxError('INVALID_OPTION', messages.seedFormulaAllLogits(logitPositions, seqLen));
  }
  return { seqLen, batchSize, pastLength, formula, moe, logitPositions };
}

/** FFN hidden width F = expansion · dim (a whole number: ModelConfig validates it). */
function ffnWidth(config: ModelConfig): number {
  return Math.round(config.expansion * config.dim);
}

function countResolved(config: ModelConfig, o: ResolvedCount, pass: FlopsPass): FlopsBreakdown {
  const { dim: d, numBlocks: layers, vocabSize: v } = config;
  const tokens = o.batchSize * o.seqLen;
  const f = ffnWidth(config);
  const factor = pass === 'training' ? 3 : 1;
  const meta = {
    seqLen: o.seqLen,
    batchSize: o.batchSize,
    pastLength: o.pastLength,
    logitPositions: o.logitPositions,
    formula: o.formula,
    moe: o.moe,
  };
  if (o.formula === 'seed') {
    const s = config.useSwiglu ? 2 : 1;
    return new FlopsBreakdown({
      attentionProjections: factor * 4 * 2 * tokens * d * d * layers,
      attentionScores: factor * 2 * o.batchSize * o.seqLen * o.seqLen * d * layers,
      ffn: factor * (2 * tokens * d * f * s + 2 * tokens * f * d) * layers,
      router: 0,
      lmHead: factor * 2 * tokens * v * d,
      ...meta,
      pass,
    });
  }
  const qWidth = config.nHeads * config.headSize;
  const kvWidth = config.kvHeads * config.headSize;
  // Q [D, H·hs], K and V [D, kvH·hs], O [H·hs, D]: 2 FLOPs per multiply-add, per token.
  const projections = 2 * tokens * (d * qWidth + 2 * d * kvWidth + qWidth * d);
  // QKᵀ and AV: each (query, key) pair costs 2·hs per head for the score and 2·hs per head for the mix.
  const scores = 2 * 2 * o.batchSize * qWidth * countAttendedKeys(config, o.seqLen, o.pastLength);
  const mlp = 2 * tokens * d * f * (config.useSwiglu ? 3 : 2);
  const isMoe = config.ffn === 'moe';
  const router = isMoe ? 2 * tokens * d * config.nExperts : 0;
  const experts = isMoe ? (o.moe === 'dense' ? config.nExperts : config.topK) : 1;
  return new FlopsBreakdown({
    attentionProjections: factor * projections * layers,
    attentionScores: factor * scores * layers,
    ffn: factor * (experts * mlp + router) * layers,
    router: factor * router * layers,
    lmHead: factor * 2 * o.batchSize * o.logitPositions * d * v,
    ...meta,
    pass,
  });
}

/**
 * FLOPs of one forward pass over `batchSize` sequences of `seqLen` new tokens (after `pastLength` cached
 * tokens), in floating-point operations.
 *
 * **Convention** (`formula: 'exact'`, the default): 1 multiply-add = 2 FLOPs, and only matrix products are
 * counted — the Q/K/V/O projections (Q and O at D×H·hs, K and V at the `kvHeads` width, so GQA is cheaper),
 * QKᵀ and AV (both counted, over every key a query is scored against: the full `pastLength + seqLen` keys for
 * causal and bidirectional attention, **not halved** for the causal mask; with a sliding window only the
 * band of visible keys, summed exactly per query — see {@link countAttendedKeys}), the FFN (two matrices, or
 * three with SwiGLU, of width F = expansion·dim), the MoE router (D×nExperts) plus `topK` experts
 * (`moe: 'active'`) or all `nExperts` (`moe: 'dense'`), and the LM head (2·B·R·D·V over the R =
 * `logitPositions` positions whose logits the pass computes: every position by default, 1 for a prefill). Norms, softmax, activations, rotary embeddings, residual adds and the embedding lookup are not
 * counted.
 *
 * **`formula: 'seed'`** reproduces the seed's documented formulas exactly, with s = 2 if `useSwiglu` else 1:
 * attention = (4·2·B·T·D² + 2·B·T²·D)·L, ffn = (2·B·T·D·(E·D)·s + 2·B·T·(E·D)·D)·L,
 * embedding = 2·B·T·V·D. It ignores GQA, MoE, sliding windows and half of the score term (only one of QKᵀ
 * and AV), and has no KV-cache mode.
 *
 * Arithmetic is in integers held by doubles: every count is exact while it stays below 2^53 ≈ 9.0·10^15
 * FLOPs (e.g. a 7B-parameter model at 600k tokens); above that, values are rounded to the nearest
 * representable double (relative error < 10^-15).
 *
 * @example
 * ```ts
 * const flops = countFlops(ModelConfig.preset('small'), { seqLen: 512, batchSize: 4 });
 * console.log(String(flops)); // FLOPs breakdown: … total : … GFLOPs
 * countFlops(config, { seqLen: 512, batchSize: 4, formula: 'seed' }); // the seed's numbers
 * ```
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when `seqLen` is not a positive integer,
 * `batchSize` is not a positive integer, `pastLength` is negative or fractional, `seqLen + pastLength` exceeds
 * `config.maxContext`, `formula` or `moe` is unknown, or `pastLength > 0` with `formula: 'seed'`.
 */
export function countFlops(config: ModelConfig, options: CountFlopsOptions): FlopsBreakdown {
  return countResolved(config, resolveOptions(config, options), 'forward');
}

/**
 * FLOPs of one decode step, in floating-point operations: one new token per sequence attending over a KV
 * cache of `context` tokens, i.e. {@link countFlops} with `seqLen: 1, pastLength: context` (the new token
 * attends over `context + 1` keys, or its sliding-window band).
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` when `context` is negative or fractional,
 * `context + 1` exceeds `config.maxContext`, `batchSize` is not a positive integer or `moe` is unknown.
 */
export function countDecodeFlops(config: ModelConfig, options: CountDecodeFlopsOptions): FlopsBreakdown {
  checkConfigNumbers(config);
  checkOptionsObject('countDecodeFlops', options, '{ context: 511 }');
  const { context, batchSize = 1, moe = 'active' } = options;
  checkNonNegativeInt('context', context);
  if (context + 1 > config.maxContext) {
    throw new DantinoxError('INVALID_OPTION', messages.decodeContextTooLong(context, config.maxContext));
  }
  return countFlops(config, { seqLen: 1, pastLength: context, batchSize, moe });
}

/**
 * FLOPs of one training step (forward + backward) over `batchSize` sequences of `seqLen` tokens, in
 * floating-point operations: 3 × the forward count of every matmul, field by field. The backward pass of a
 * matmul Y = X·W costs two matmuls of the same size (dL/dX = dL/dY·Wᵀ and dL/dW = Xᵀ·dL/dY), so backward =
 * 2 × forward (Kaplan et al. 2020; Hoffmann et al. 2022, App. F). Activation recomputation and the optimizer
 * update are not counted (model FLOPs, as used for MFU).
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` for the same inputs as {@link countFlops}.
 */
export function countTrainingFlops(config: ModelConfig, options: CountTrainingFlopsOptions): FlopsBreakdown {
  return countResolved(config, resolveOptions(config, { ...options, pastLength: 0 }), 'training');
}
