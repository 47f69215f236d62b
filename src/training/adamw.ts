/**
 * AdamW (Loshchilov & Hutter, decoupled weight decay) over the model's float32 weights, in JavaScript, with
 * gradient clipping by global norm. `npm run bench:train` measured this loop against the same update as a second
 * ONNX Runtime graph (see docs/training.md).
 *
 * Per weight tensor, at update t (1-based) with gradient g and learning rate η:
 * `m ← β₁m + (1 − β₁)g`, `v ← β₂v + (1 − β₂)g²`, `m̂ = m / (1 − β₁ᵗ)`, `v̂ = v / (1 − β₂ᵗ)`, then
 * `w ← w − η·λ·w` (decoupled decay, only for tensors of two or more dimensions: matrices and embeddings, never
 * the norms' weights and biases) and `w ← w − η·m̂ / (√v̂ + ε)` — PyTorch's `AdamW` order. Each element is computed
 * in float64 and stored in float32, in a fixed order, so an update is the same on every run.
 *
 * @packageDocumentation
 */
import type { WeightTensor } from '../models/weights.js';

/** AdamW's hyperparameters. */
export interface AdamWOptions {
  /** β₁, the first moment's decay. @default 0.9 */
  readonly beta1?: number;
  /** β₂, the second moment's decay. @default 0.95 */
  readonly beta2?: number;
  /** ε added to √v̂. @default 1e-8 */
  readonly eps?: number;
  /** λ, the decoupled weight decay of matrices and embeddings. @default 0.1 */
  readonly weightDecay?: number;
}

/** The defaults of {@link AdamWOptions}. */
export const ADAMW_DEFAULTS = Object.freeze({
  /** β₁. */
  beta1: 0.9,
  /** β₂. */
  beta2: 0.95,
  /** ε. */
  eps: 1e-8,
  /** λ. */
  weightDecay: 0.1,
});

/** The moments of one weight tensor. */
export interface AdamMoments {
  /** First moment m, one per element. */
  readonly m: Float32Array;
  /** Second moment v, one per element. */
  readonly v: Float32Array;
}

/** Whether AdamW decays the tensor of shape `dims`: matrices and embeddings yes, vectors (norms) no. */
export function decays(dims: readonly number[]): boolean {
  return dims.length >= 2;
}

/** Fresh (zero) moments for a tensor of `size` elements. */
export function zeroMoments(size: number): AdamMoments {
  return { m: new Float32Array(size), v: new Float32Array(size) };
}

/**
 * Applies one AdamW update in place to `weight` with gradient `grad`, at update `t` (1-based) and learning rate
 * `lr`; `moments` are updated in place too.
 */
export function adamwUpdate(
  weight: WeightTensor,
  grad: Float32Array,
  moments: AdamMoments,
  t: number,
  lr: number,
  options: AdamWOptions = {},
): void {
  const { beta1, beta2, eps, weightDecay } = { ...ADAMW_DEFAULTS, ...options };
  const { m, v } = moments;
  const w = weight.data;
  const c1 = 1 - beta1 ** t;
  const c2 = 1 - beta2 ** t;
  const shrink = decays(weight.dims) ? 1 - lr * weightDecay : 1;
  for (let i = 0; i < w.length; i++) {
    const g = grad[i] as number;
    const mi = beta1 * (m[i] as number) + (1 - beta1) * g;
    const vi = beta2 * (v[i] as number) + (1 - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    w[i] = (w[i] as number) * shrink - (lr * (mi / c1)) / (Math.sqrt(vi / c2) + eps);
  }
}

/** The global L2 norm of `grads` (summed in float64, in the given order). */
export function globalNorm(grads: readonly Float32Array[]): number {
  let sum = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) sum += (g[i] as number) * (g[i] as number);
  return Math.sqrt(sum);
}

/**
 * Clips `grads` in place to global norm `maxNorm` (PyTorch's `clip_grad_norm_`: every gradient is multiplied by
 * `maxNorm / (norm + 1e-6)` when that factor is below 1) and returns the norm before clipping. `maxNorm` 0 (or
 * `Infinity`) never clips.
 */
export function clipGradients(grads: readonly Float32Array[], maxNorm: number): number {
  const norm = globalNorm(grads);
  if (!(maxNorm > 0) || !Number.isFinite(maxNorm)) return norm;
  const factor = maxNorm / (norm + 1e-6);
  if (factor >= 1) return norm;
  for (const g of grads) for (let i = 0; i < g.length; i++) g[i] = (g[i] as number) * factor;
  return norm;
}
