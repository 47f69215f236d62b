/**
 * Number of (query, key) pairs one attention head scores in one sequence: the quantity the QKᵀ and AV
 * FLOPs are proportional to.
 */
import type { ModelConfig } from '../models/model-config.js';

/**
 * Σ over p in [0, n) of min(p, w): the number of earlier keys (up to `w` of them) summed over the first `n`
 * positions. Exact in integers while the result stays below 2^53.
 */
function sumMinPrefix(n: number, w: number): number {
  if (n <= 0) return 0;
  if (n <= w + 1) return (n * (n - 1)) / 2;
  return (w * (w + 1)) / 2 + (n - w - 1) * w;
}

/**
 * The number of (query, key) pairs, summed over the `seqLen` queries at absolute positions
 * `pastLength … pastLength + seqLen − 1`, that one head scores against the `pastLength + seqLen` keys in the
 * cache, following the FLOPs convention of dantinox:
 *
 * - **Full attention, causal or not**: every query is scored against every key, `(pastLength + seqLen)` per
 *   query. A causal mask is applied to a full score matrix, so the causal count is **not halved**
 *   (the PaLM/Megatron convention; the masked half is computed, then discarded).
 * - **Causal sliding window** (`slidingWindow`, key k visible to query p iff `0 ≤ p − k ≤ contextWindow`): each
 *   query counts only its visible keys, `min(p, contextWindow) + 1`, i.e. the band a windowed kernel computes,
 *   clipped at the start of the sequence.
 * - **Bidirectional sliding window** (`|p − k| ≤ contextWindow`): `min(p, w) + min(K − 1 − p, w) + 1` keys per
 *   query, K = `pastLength + seqLen`, clipped at both edges.
 *
 * Computed in closed form, exactly (the tests check it against a brute-force loop over (p, k) pairs).
 *
 * @param config - The model; reads `causal`, `slidingWindow` and `contextWindow`.
 * @param seqLen - Number of new query tokens (≥ 1, not checked here).
 * @param pastLength - Number of tokens already in the KV cache (≥ 0, not checked here).
 * @returns The pair count per head per sequence.
 */
export function countAttendedKeys(config: ModelConfig, seqLen: number, pastLength: number): number {
  const keys = pastLength + seqLen;
  if (!config.slidingWindow) return seqLen * keys;
  const w = config.contextWindow;
  const earlier = sumMinPrefix(keys, w) - sumMinPrefix(pastLength, w);
  if (config.causal) return seqLen + earlier;
  // Later keys of query p: min(K − 1 − p, w); with r = K − 1 − p running over [0, seqLen) that is sumMinPrefix(seqLen, w).
  return seqLen + earlier + sumMinPrefix(seqLen, w);
}
