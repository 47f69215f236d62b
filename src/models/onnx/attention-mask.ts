/**
 * The additive attention mask fed to the graph: `[maskBatch, group · T, P + T]` of 0 (visible) or −∞ (hidden),
 * rows repeated once per query head of a KV group; `maskBatch` is 1 (one mask broadcast over the batch) or B (one
 * per row, for rows of different lengths). Past columns are cache rows `pastStart … pastStart + P − 1`; new
 * columns are the T new tokens at `pastLength …`.
 *
 * @packageDocumentation
 */
import type { ModelConfig } from '../model-config.js';

/** Where the past columns of a mask come from. */
export interface MaskLayout {
  /** New tokens T. */
  readonly seq: number;
  /** Tokens already cached (absolute position of the first new token). */
  readonly pastLength: number;
  /** Absolute position of the first past row fed to the graph. */
  readonly pastStart: number;
  /** Past rows fed to the graph. */
  readonly pastRows: number;
  /** The past rows are a placeholder (no cache): every past column is hidden. */
  readonly placeholder: boolean;
}

/**
 * The layout a call with `seq` new tokens after `pastLength` cached ones feeds the graph: no cache → one masked
 * placeholder row; otherwise the whole cache, or with a sliding window only its last `contextWindow` rows (at
 * least one row, masked when the window holds none).
 */
export function maskLayout(config: ModelConfig, seq: number, pastLength: number): MaskLayout {
  if (pastLength === 0) return { seq, pastLength: 0, pastStart: 0, pastRows: 1, placeholder: true };
  let start = config.slidingWindow ? Math.max(0, pastLength - config.contextWindow) : 0;
  const placeholder = start === pastLength;
  if (placeholder) start = pastLength - 1;
  return { seq, pastLength, pastStart: start, pastRows: pastLength - start, placeholder };
}

/** Whether key position `k` is visible to query position `q` under the config's mask. */
export function isVisible(
  config: Pick<ModelConfig, 'causal' | 'slidingWindow' | 'contextWindow'>,
  q: number,
  k: number,
): boolean {
  const delta = q - k;
  if (config.causal && delta < 0) return false;
  return !config.slidingWindow || Math.abs(delta) <= config.contextWindow;
}

/** Builds the mask of `layout` for `config`: `[group · T, P + T]`, one mask for every row of the batch. */
export function buildAttentionMask(config: ModelConfig, layout: MaskLayout): Float32Array {
  return repeatPerGroup(config, maskRows(config, layout, 0));
}

/**
 * Builds one mask per row, `[B, group · T, P + T]`, for rows that share the cache columns but not their lengths:
 * row b's cached positions are the columns `starts[b] … layout.pastLength − 1` (its position k at column
 * `starts[b] + k`), so the columns before `starts[b]` are holes, hidden from it. With every start 0 each row's
 * mask is {@link buildAttentionMask}'s.
 */
export function buildRowMasks(
  config: ModelConfig,
  layout: MaskLayout,
  starts: readonly number[],
): Float32Array {
  const perRow = config.nHeads / config.kvHeads;
  const size = perRow * layout.seq * (layout.pastRows + layout.seq);
  const out = new Float32Array(starts.length * size);
  starts.forEach((start, b) => {
    out.set(repeatPerGroup(config, maskRows(config, layout, start)), b * size);
  });
  return out;
}

/**
 * The `[T, P + T]` mask of a row whose first cached position is at column `start` (so it holds
 * `pastLength − start` positions): past column j is cache column `pastStart + j`.
 */
function maskRows(config: ModelConfig, layout: MaskLayout, start: number): Float32Array {
  const { seq, pastLength, pastStart, pastRows, placeholder } = layout;
  const keys = pastRows + seq;
  const length = pastLength - start;
  const rows = new Float32Array(seq * keys);
  for (let t = 0; t < seq; t++) {
    const q = length + t;
    const row = t * keys;
    for (let j = 0; j < pastRows; j++) {
      const column = pastStart + j;
      if (placeholder || column < start || !isVisible(config, q, column - start))
        rows[row + j] = Number.NEGATIVE_INFINITY;
    }
    for (let j = 0; j < seq; j++) {
      if (!isVisible(config, q, length + j)) rows[row + pastRows + j] = Number.NEGATIVE_INFINITY;
    }
  }
  return rows;
}

/** `rows` repeated once per query head of a KV group. */
function repeatPerGroup(config: ModelConfig, rows: Float32Array): Float32Array {
  const group = config.nHeads / config.kvHeads;
  if (group === 1) return rows;
  const out = new Float32Array(group * rows.length);
  for (let i = 0; i < group; i++) out.set(rows, i * rows.length);
  return out;
}
