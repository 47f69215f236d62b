/**
 * The float64 building blocks of the reference forward pass: matrix products, norms, activations, rotary and
 * sinusoidal positions. Written for clarity on tiny sizes, not for speed.
 *
 * @packageDocumentation
 */
import type { Activation, NormKind } from '../model-config.js';

/** Epsilon of RMSNorm and LayerNorm. */
export const NORM_EPS = 1e-5;

/** Base of the rotary frequencies. */
export const ROPE_BASE = 10000;

/** `x @ w` for `x` `[n, k]` (float64) and `w` `[k, m]` (float32, row-major): a float64 `[n, m]` result. */
export function matmul(x: Float64Array, n: number, w: Float32Array, k: number, m: number): Float64Array {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < k; p++) {
      const a = x[i * k + p] ?? 0;
      if (a === 0) continue;
      const wRow = p * m;
      const oRow = i * m;
      for (let j = 0; j < m; j++) out[oRow + j] = (out[oRow + j] ?? 0) + a * (w[wRow + j] ?? 0);
    }
  }
  return out;
}

/** `x @ wᵀ` for `x` `[n, k]` and `w` `[m, k]` (the tied LM head over the `[V, D]` embedding). */
export function matmulTransposed(
  x: Float64Array,
  n: number,
  w: Float32Array,
  k: number,
  m: number,
): Float64Array {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (x[i * k + p] ?? 0) * (w[j * k + p] ?? 0);
      out[i * m + j] = s;
    }
  }
  return out;
}

/** Normalises each of the `n` rows of width `d` of `x`: RMSNorm (`weight`) or LayerNorm (`weight`, `bias`). */
export function normRows(
  kind: NormKind,
  x: Float64Array,
  n: number,
  d: number,
  weight: Float32Array,
  bias: Float32Array | undefined,
): Float64Array {
  const out = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const row = x.subarray(i * d, (i + 1) * d);
    let mean = 0;
    if (kind === 'layernorm') {
      for (const v of row) mean += v;
      mean /= d;
    }
    let sq = 0;
    for (const v of row) sq += (v - mean) * (v - mean);
    const inv = 1 / Math.sqrt(sq / d + NORM_EPS);
    for (let j = 0; j < d; j++) {
      out[i * d + j] = ((row[j] ?? 0) - mean) * inv * (weight[j] ?? 0) + (bias?.[j] ?? 0);
    }
  }
  return out;
}

/** The error function, accurate to ~1e-13 (Taylor series below 3, continued fraction for erfc above). */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 3) {
    // erf(x) = 2/√π Σ (−1)^n x^(2n+1) / (n! (2n+1))
    let term = x;
    let sum = x;
    const x2 = x * x;
    for (let n = 1; n < 100; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), evaluated bottom-up.
  let f = ax;
  for (let k = 60; k >= 1; k--) f = ax + k / 2 / f;
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}

/** Applies `activation` in place: exact (erf) GELU, SiLU or ReLU. */
export function activate(kind: Activation, x: Float64Array): Float64Array {
  for (let i = 0; i < x.length; i++) {
    const v = x[i] ?? 0;
    x[i] = kind === 'gelu' ? 0.5 * v * (1 + erf(v / Math.SQRT2)) : kind === 'silu' ? silu(v) : Math.max(0, v);
  }
  return x;
}

/** SiLU: x·σ(x). */
export function silu(v: number): number {
  return v / (1 + Math.exp(-v));
}

/**
 * Rotates, in place, each of `heads` head vectors of size `hs` in row `x` (one token at `position`) with the
 * rotate-half (NeoX/Llama) convention: pairs (i, i + hs/2) turn by `position · base^(−2i/hs)`.
 */
export function applyRotary(x: Float64Array, heads: number, hs: number, position: number): void {
  const half = hs / 2;
  for (let h = 0; h < heads; h++) {
    const o = h * hs;
    for (let i = 0; i < half; i++) {
      const angle = position * ROPE_BASE ** (-(2 * i) / hs);
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      const a = x[o + i] ?? 0;
      const b = x[o + i + half] ?? 0;
      x[o + i] = a * c - b * s;
      x[o + i + half] = b * c + a * s;
    }
  }
}

/** Sinusoidal position encoding of width `d` at `position`: PE[2i] = sin(p/10000^(2i/d)), PE[2i+1] = cos(…). */
export function sinusoidal(position: number, d: number): Float64Array {
  const out = new Float64Array(d);
  for (let j = 0; j < d; j += 2) {
    const angle = position / 10000 ** (j / d);
    out[j] = Math.sin(angle);
    if (j + 1 < d) out[j + 1] = Math.cos(angle);
  }
  return out;
}

/** Softmax of `x` (in place, max-subtracted) over float64 values. */
export function softmaxInPlace(x: Float64Array): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of x) if (v > max) max = v;
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    const e = Math.exp((x[i] ?? 0) - max);
    x[i] = e;
    sum += e;
  }
  for (let i = 0; i < x.length; i++) x[i] = (x[i] ?? 0) / sum;
  return x;
}
