/**
 * Numerically stable log-probabilities over one row of logits, in float64: the loss of every paradigm goes
 * through here.
 *
 * @packageDocumentation
 */

/**
 * log Σ exp(x) over `row[from, from + length)`, computed as max + log Σ exp(x − max) so it never overflows: a
 * row of huge logits gives a huge finite value, not Infinity. Returns NaN when the row holds NaN or ±Infinity.
 */
export function logSumExp(row: ArrayLike<number>, from = 0, length = row.length - from): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = from; i < from + length; i++) {
    const v = row[i] ?? Number.NaN;
    if (v > max) max = v;
    else if (Number.isNaN(v)) return Number.NaN;
  }
  if (!Number.isFinite(max)) return Number.NaN;
  let sum = 0;
  for (let i = from; i < from + length; i++) sum += Math.exp((row[i] ?? 0) - max);
  return max + Math.log(sum);
}

/**
 * Cross-entropy, in nats, of `target` under the softmax of the `vocab` logits starting at `offset` in `logits`:
 * `logSumExp(row) − row[target]`.
 */
export function crossEntropy(
  logits: ArrayLike<number>,
  offset: number,
  vocab: number,
  target: number,
): number {
  return logSumExp(logits, offset, vocab) - (logits[offset + target] ?? Number.NaN);
}

/** Log-softmax of `row`, in float64. */
export function logSoftmax(row: ArrayLike<number>): Float64Array {
  const lse = logSumExp(row);
  const out = new Float64Array(row.length);
  for (let i = 0; i < row.length; i++) out[i] = (row[i] ?? 0) - lse;
  return out;
}
