/**
 * The additive attention mask fed to the graph: `[group · T, P + T]` of 0 (visible) or −∞ (hidden), rows
 * repeated once per query head of a KV group. Past columns are cache rows at absolute positions
 * `pastStart … pastStart + P − 1`; new columns are the T new tokens at `pastLength …`.
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

/** Builds the mask of `layout` for `config`. */
export function buildAttentionMask(config: ModelConfig, layout: MaskLayout): Float32Array {
  const { seq, pastLength, pastStart, pastRows, placeholder } = layout;
  const group = config.nHeads / config.kvHeads;
  const keys = pastRows + seq;
  const rows = new Float32Array(seq * keys);
  for (let t = 0; t < seq; t++) {
    const q = pastLength + t;
    const row = t * keys;
    for (let j = 0; j < pastRows; j++) {
      if (placeholder || !isVisible(config, q, pastStart + j)) rows[row + j] = Number.NEGATIVE_INFINITY;
    }
    for (let j = 0; j < seq; j++) {
      if (!isVisible(config, q, pastLength + j)) rows[row + pastRows + j] = Number.NEGATIVE_INFINITY;
    }
  }
  if (group === 1) return rows;
  const out = new Float32Array(group * rows.length);
  for (let i = 0; i < group; i++) out.set(rows, i * rows.length);
  return out;
}
