/**
 * The KV cache of {@link OnnxModel}: per layer, one key and one value buffer in time-major layout
 * `[capacity, batch, kvHeads, headSize]`, so the first `c` cached positions are one contiguous view the session
 * reads in place. Capacity grows by doubling (up to `maxContext`); a step appends one row per layer.
 *
 * @packageDocumentation
 */
import { EngineDecodeState } from '../engines/engine-decode-state.js';
import type { ModelConfig } from '../model-config.js';

/** The decode state of {@link OnnxModel}: the cache buffers plus the number of cached positions. */
export class OnnxDecodeState extends EngineDecodeState<KvCache> {
  constructor(owner: object, batch: number, length: number, cache: KvCache) {
    super(owner, batch, length, cache, (c) => c.release());
  }
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

  /** Writes `keys`/`values` (`rows × rowSize` floats, time-major) of `layer` at position `start`. */
  write(layer: number, start: number, keys: Float32Array, values: Float32Array): void {
    this.ensure(start + keys.length / this.rowSize);
    (this.#keys[layer] as Float32Array).set(keys, start * this.rowSize);
    (this.#values[layer] as Float32Array).set(values, start * this.rowSize);
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
