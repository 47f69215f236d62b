/**
 * Choosing the next token from a row of logits: arg-max, or seeded sampling with temperature, top-k and top-p.
 *
 * @packageDocumentation
 */
import type { Rng } from '../../rng.js';

/** How to pick a token from logits. */
export interface SamplingOptions {
  /** Softmax temperature; 0 means arg-max. @default 1 */
  readonly temperature?: number;
  /** Keep only the tokens whose logit is at least the k-th largest (ties at the boundary are all kept). */
  readonly topK?: number;
  /** Keep the smallest most-likely set whose probability reaches p (nucleus sampling), in (0, 1]. */
  readonly topP?: number;
  /** Arg-max decoding regardless of temperature. @default false */
  readonly greedy?: boolean;
}

/** Index of the largest of `row[from, from + length)` (the first one on ties). */
export function argmax(row: ArrayLike<number>, from = 0, length = row.length - from): number {
  let best = 0;
  let bestValue = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < length; i++) {
    const v = row[from + i] ?? Number.NEGATIVE_INFINITY;
    if (v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

/** The k-th largest value of `values` (1-based), by quickselect on a copy: O(n) on average. */
export function kthLargest(values: Float64Array, k: number): number {
  const a = values.slice();
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1] ?? 0;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] ?? 0) > pivot) i++;
      while ((a[j] ?? 0) < pivot) j--;
      if (i <= j) {
        const t = a[i] ?? 0;
        a[i] = a[j] ?? 0;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target] ?? 0;
}

/**
 * Picks a token id from the `vocab` logits at `offset` in `logits`. Greedy (or temperature 0) is the arg-max;
 * otherwise logits are divided by the temperature, filtered by top-k then top-p, and one id is drawn from the
 * renormalised softmax with one `rng.next()` call, so a seeded `rng` reproduces the same tokens.
 */
export function sampleToken(
  logits: ArrayLike<number>,
  offset: number,
  vocab: number,
  rng: Rng,
  options: SamplingOptions = {},
): number {
  const temperature = options.temperature ?? 1;
  if (options.greedy === true || temperature === 0) return argmax(logits, offset, vocab);
  const z = new Float64Array(vocab);
  for (let i = 0; i < vocab; i++) z[i] = (logits[offset + i] ?? 0) / temperature;
  if (options.topK !== undefined && options.topK < vocab) {
    const kth = kthLargest(z, options.topK);
    for (let i = 0; i < vocab; i++) if ((z[i] ?? 0) < kth) z[i] = Number.NEGATIVE_INFINITY;
  }
  let max = Number.NEGATIVE_INFINITY;
  for (const v of z) if (v > max) max = v;
  let sum = 0;
  for (let i = 0; i < vocab; i++) {
    const e = Math.exp((z[i] ?? 0) - max);
    z[i] = e;
    sum += e;
  }
  for (let i = 0; i < vocab; i++) z[i] = (z[i] ?? 0) / sum;
  const topP = options.topP;
  if (topP !== undefined && topP < 1) nucleus(z, topP);
  let total = 0;
  for (const p of z) total += p;
  const u = rng.next() * total;
  let acc = 0;
  let last = 0;
  for (let i = 0; i < vocab; i++) {
    const p = z[i] ?? 0;
    if (p <= 0) continue;
    acc += p;
    last = i;
    if (u < acc) return i;
  }
  return last;
}

/**
 * Zeroes, in place, every probability outside the nucleus: the smallest set of most likely tokens whose mass
 * reaches `topP`. Only tokens with p ≥ (1 − topP)/V can be in it (the rest hold less than 1 − topP in total),
 * so only those are sorted.
 */
function nucleus(probs: Float64Array, topP: number): void {
  const floor = (1 - topP) / probs.length;
  const candidates: number[] = [];
  for (let i = 0; i < probs.length; i++) if ((probs[i] ?? 0) >= floor) candidates.push(i);
  candidates.sort((a, b) => (probs[b] ?? 0) - (probs[a] ?? 0) || a - b);
  const keep = new Uint8Array(probs.length);
  let mass = 0;
  for (const i of candidates) {
    keep[i] = 1;
    mass += probs[i] ?? 0;
    if (mass >= topP) break;
  }
  for (let i = 0; i < probs.length; i++) if (keep[i] === 0) probs[i] = 0;
}
