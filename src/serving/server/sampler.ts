/**
 * Picks the next token from one row of logits: greedy argmax at temperature 0, otherwise a seeded draw from the
 * softmax of `logits / temperature`, restricted to the nucleus of mass `topP`.
 *
 * @packageDocumentation
 */
import type { Rng } from '../../rng.js';

/** How {@link sampleToken} picks a token. */
export interface SamplingOptions {
  /** Softmax temperature; 0 is greedy argmax (the first of equal maxima). */
  readonly temperature: number;
  /** Nucleus mass in (0, 1]: sample among the most likely tokens whose probabilities sum to at least this. */
  readonly topP: number;
  /** The random draws of this request (unused when greedy). */
  readonly rng: Rng;
  /** A token id never to pick (the end-of-sequence token while `min_tokens` are not yet generated). */
  readonly suppress?: number | undefined;
}

/** Index of the largest of `logits[offset … offset + vocab)`, relative to `offset`, skipping `suppress`. */
export function argmax(logits: Float32Array, offset: number, vocab: number, suppress?: number): number {
  let best = -1;
  let bestValue = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < vocab; i++) {
    const v = logits[offset + i] as number;
    if (i !== suppress && (best < 0 || v > bestValue)) {
      best = i;
      bestValue = v;
    }
  }
  return best;
}

/**
 * The next token id from `logits[offset … offset + vocab)` (one row of a `[batch, seq, vocab]` logits block).
 * Greedy when `temperature` is 0, so the same logits always give the same id; otherwise one draw of `rng`.
 */
export function sampleToken(
  logits: Float32Array,
  offset: number,
  vocab: number,
  options: SamplingOptions,
): number {
  if (options.temperature === 0) return argmax(logits, offset, vocab, options.suppress);
  const max = logits[offset + argmax(logits, offset, vocab, options.suppress)] as number;
  const weights = new Float64Array(vocab);
  let total = 0;
  for (let i = 0; i < vocab; i++) {
    const w =
      i === options.suppress ? 0 : Math.exp(((logits[offset + i] as number) - max) / options.temperature);
    weights[i] = w;
    total += w;
  }
  const order = Array.from({ length: vocab }, (_, i) => i);
  let pool = order;
  let mass = total;
  if (options.topP < 1) {
    order.sort((a, b) => (weights[b] as number) - (weights[a] as number) || a - b);
    pool = [];
    mass = 0;
    for (const i of order) {
      pool.push(i);
      mass += weights[i] as number;
      if (mass >= options.topP * total) break;
    }
  }
  let draw = options.rng.next() * mass;
  for (const i of pool) {
    draw -= weights[i] as number;
    if (draw < 0) return i;
  }
  // Rounding left a sliver of the draw: the most likely token.
  return argmax(logits, offset, vocab, options.suppress);
}
