/**
 * The analytical cost of a call at context depth d: FLOPs (attention scores apart), KV-cache bytes read and
 * held, for a prefill of `seqLen` tokens or a decode step on a cache that already holds d tokens.
 *
 * @packageDocumentation
 */
import type { Dtype } from '../dtype.js';
import type { ModelConfig } from '../models/model-config.js';
import { countFlops } from './flops.js';
import { memoryFootprint } from './memory.js';

/** Options of {@link depthCost}. */
export interface DepthCostOptions {
  /** Tokens already in the KV cache before the call, d ≥ 0. Required. */
  readonly depth: number;
  /** New tokens per sequence the call processes: the prompt length P of a prefill, 1 for a decode step. Required. */
  readonly seqLen: number;
  /** Weight dtype (sets weight bytes and the KV element size, see {@link memoryFootprint}). @default 'fp32' */
  readonly dtype?: Dtype;
}

/** The analytical cost of one call (batch 1) at depth d. */
export interface DepthCost {
  /** Depth d: tokens in the cache before the call. */
  readonly depth: number;
  /** New tokens of the call. */
  readonly seqLen: number;
  /**
   * FLOPs of the call (1 multiply-add = 2), as {@link countFlops} with `pastLength: depth` and `logitPositions: 1`
   * (a prefill or decode step needs the last position's logits only).
   */
  readonly flops: number;
  /** The attention-score part of `flops` (QKᵀ and AV over all blocks): the part that grows with depth. */
  readonly attentionScoreFlops: number;
  /**
   * KV-cache bytes the call reads: the distinct cached and new positions some query attends to (all
   * `depth + seqLen` with full attention; `min(depth, contextWindow) + seqLen` with a causal sliding window)
   * × {@link MemoryFootprint.kvBytesPerToken}.
   */
  readonly kvReadBytes: number;
  /** KV-cache bytes held after the call, `(depth + seqLen) · kvBytesPerToken` (an engine that keeps every position). */
  readonly kvHeldBytes: number;
  /** Bytes the call must move: active weights once plus `kvReadBytes` (activations not counted). */
  readonly bytes: number;
}

/**
 * The analytical cost, in FLOPs and bytes, of one call (batch 1) that processes `seqLen` new tokens on a KV
 * cache already holding `depth` tokens: total FLOPs and the attention-score FLOPs that grow with depth (from
 * {@link countFlops}, so the same convention: the causal mask is not halved, a sliding window counts its band; the
 * LM head over the last position only, the one whose logits a generation reads),
 * the KV bytes read and held, and the bytes the call moves. Weights are read once per call whatever the depth,
 * so the depth-dependent part of the time is the attention-score FLOPs (compute) and `kvReadBytes` (memory).
 *
 * @example
 * ```ts
 * const c = depthCost(ModelConfig.preset('small'), { depth: 256, seqLen: 1 });
 * c.attentionScoreFlops; // 4 · layers · heads · headSize · 257
 * ```
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when `depth + seqLen` exceeds `maxContext`, `depth` is
 * negative or fractional, or `seqLen` is not a positive integer (the checks of {@link countFlops}).
 */
export function depthCost(config: ModelConfig, options: DepthCostOptions): DepthCost {
  const { depth, seqLen } = options;
  const flops = countFlops(config, { seqLen, pastLength: depth, logitPositions: 1 });
  const footprint = memoryFootprint(config, { dtype: options.dtype ?? 'fp32' });
  const causalWindow = config.slidingWindow && config.causal;
  const readPositions = (causalWindow ? Math.min(depth, config.contextWindow) : depth) + seqLen;
  const kvReadBytes = readPositions * footprint.kvBytesPerToken;
  return {
    depth,
    seqLen,
    flops: flops.total,
    attentionScoreFlops: flops.attentionScores,
    kvReadBytes,
    kvHeldBytes: (depth + seqLen) * footprint.kvBytesPerToken,
    bytes: footprint.activeWeightBytes + kvReadBytes,
  };
}
