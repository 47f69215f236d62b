/**
 * The KV cache of {@link OnnxModel}: per layer, one key and one value buffer in time-major layout
 * `[capacity, batch, kvHeads, headSize]`, so the first `c` cached positions are one contiguous view the session
 * reads in place, and the next rows one contiguous view the session writes in place (preallocated outputs).
 * Capacity grows by doubling (up to `maxContext`); a step appends one row per layer.
 *
 * Rows of different lengths share the columns right-aligned: every row's last cached position is in the last
 * column `length − 1`, and a row of `L` positions holds columns `length − L … length − 1`; the columns before are
 * holes its attention mask hides (`buildRowMasks`). A step writes every row's new key and value at column
 * `length`. {@link gatherRows} builds the cache of a new set of rows (a row joining, rows leaving), with
 * `length` the longest row's so that no column is a hole for every row.
 *
 * @packageDocumentation
 */
import { EngineDecodeState } from '../engines/engine-decode-state.js';
import type { ModelConfig } from '../model-config.js';

/**
 * The decode state of {@link OnnxModel}: the cache buffers plus the number of cached columns (`length`) and, for
 * rows of different lengths, the column of each row's first position (`starts`; absent when every row starts at
 * column 0, i.e. holds `length` positions).
 */
export class OnnxDecodeState extends EngineDecodeState<KvCache> {
  /** Column of each row's first cached position, when rows differ in length. */
  readonly starts: readonly number[] | undefined;

  constructor(owner: object, batch: number, length: number, cache: KvCache, starts?: readonly number[]) {
    super(owner, batch, length, cache, (c) => c.release());
    this.starts = starts?.some((s) => s > 0) === true ? starts : undefined;
  }

  /** Cached positions of each row: `length − starts[b]`. */
  rowLengths(): number[] {
    return Array.from({ length: this.batch }, (_, b) => this.length - (this.starts?.[b] ?? 0));
  }
}

/** One row of a {@link gatherRows} result: row `row` of a cache whose `length` columns it ends at. */
export interface GatheredRow {
  /** The cache the row is read from. */
  readonly cache: KvCache;
  /** Cached columns of that cache (the row's last position is at column `length − 1`). */
  readonly length: number;
  /** The row's index in that cache's batch. */
  readonly row: number;
  /** Positions the row holds (≤ `length`). */
  readonly positions: number;
}

/**
 * A new cache of `rows.length` rows, row i holding the last `positions` columns of `rows[i]`'s source row,
 * right-aligned at the longest row's length: returns the cache, its `length` (the longest row's positions) and
 * each row's first column. Copies every layer's keys and values; the sources are left as they were.
 */
export function gatherRows(
  config: ModelConfig,
  rows: readonly GatheredRow[],
): { cache: KvCache; length: number; starts: number[] } {
  const length = Math.max(...rows.map((r) => r.positions));
  const cache = new KvCache(config, rows.length, length + 1);
  const starts = rows.map((r) => length - r.positions);
  const cell = config.kvHeads * config.headSize;
  // Consecutive rows read from consecutive rows of one source move by the same number of columns: one copy per
  // column covers them all (a shorter row's extra columns land before its first column, where its mask hides them).
  const runs: { first: number; count: number; from: GatheredRow; positions: number }[] = [];
  rows.forEach((r, i) => {
    const run = runs.at(-1);
    if (
      run !== undefined &&
      run.from.cache === r.cache &&
      run.from.length === r.length &&
      run.from.row + run.count === r.row
    ) {
      run.count++;
      run.positions = Math.max(run.positions, r.positions);
    } else runs.push({ first: i, count: 1, from: r, positions: r.positions });
  });
  for (let layer = 0; layer < config.numBlocks; layer++) {
    const to = cache.view(layer, 0, length);
    for (const { first, count, from: r, positions } of runs) {
      const from = r.cache.view(layer, 0, r.length);
      for (let k = 0; k < positions; k++) {
        const a = (r.length - positions + k) * r.cache.rowSize + r.row * cell;
        const b = (length - positions + k) * cache.rowSize + first * cell;
        to.keys.set(from.keys.subarray(a, a + count * cell), b);
        to.values.set(from.values.subarray(a, a + count * cell), b);
      }
    }
  }
  return { cache, length, starts };
}

/** Growable per-layer key/value buffers. */
export class KvCache {
  /** Floats per cached position: `batch · kvHeads · headSize`. */
  readonly rowSize: number;
  #capacity = 0;
  #keys: Float32Array[];
  #values: Float32Array[];

  constructor(
    readonly config: ModelConfig,
    readonly batch: number,
    initialRows: number,
  ) {
    this.rowSize = batch * config.kvHeads * config.headSize;
    this.#keys = [];
    this.#values = [];
    this.ensure(initialRows);
  }

  /** Rows the buffers can hold without growing. */
  get capacity(): number {
    return this.#capacity;
  }

  /** Makes room for `rows` positions, doubling the capacity (capped at `maxContext`) and keeping the contents. */
  ensure(rows: number): void {
    if (rows <= this.#capacity) return;
    let capacity = Math.max(16, this.#capacity);
    while (capacity < rows) capacity *= 2;
    capacity = Math.min(Math.max(capacity, rows), this.config.maxContext);
    const grow = (old: Float32Array | undefined): Float32Array => {
      const next = new Float32Array(capacity * this.rowSize);
      if (old !== undefined) next.set(old);
      return next;
    };
    const layers = this.config.numBlocks;
    this.#keys = Array.from({ length: layers }, (_, i) => grow(this.#keys[i]));
    this.#values = Array.from({ length: layers }, (_, i) => grow(this.#values[i]));
    this.#capacity = capacity;
  }

  /** Views (no copy) of positions `[start, end)` of `layer`. */
  view(layer: number, start: number, end: number): { keys: Float32Array; values: Float32Array } {
    const a = start * this.rowSize;
    const b = end * this.rowSize;
    return {
      keys: (this.#keys[layer] as Float32Array).subarray(a, b),
      values: (this.#values[layer] as Float32Array).subarray(a, b),
    };
  }

  /** Bytes of the key and value buffers allocated for every layer (capacity rows, float32). */
  get allocatedBytes(): number {
    return 2 * this.config.numBlocks * this.#capacity * this.rowSize * Float32Array.BYTES_PER_ELEMENT;
  }

  /** Drops the buffers. */
  release(): void {
    this.#keys = [];
    this.#values = [];
    this.#capacity = 0;
  }
}
