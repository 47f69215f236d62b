/**
 * The decode state shared by the engines (ONNX Runtime's KV buffers, llama.cpp sequences, transformers.js
 * tensors): owner, rows, cached length and the engine's cache handle, released on dispose unless a decode step
 * took it over.
 *
 * @packageDocumentation
 */
import type { ClaimableDecodeState } from '../token-checks.js';

/** A decode state holding an engine cache `cache`, freed by `release` when disposed before being consumed. */
export class EngineDecodeState<C> implements ClaimableDecodeState {
  /** Set when a decode step has consumed this state (its cache then belongs to the next state). */
  consumed = false;
  #disposed = false;

  constructor(
    /** The model that made this state (an opaque token). */
    readonly owner: object,
    /** Rows. */
    readonly batch: number,
    /** Cached positions. */
    readonly length: number,
    /** The engine's cache (shared with the states derived from this one). */
    readonly cache: C,
    /** Frees `cache`. */
    private readonly release: (cache: C) => void,
  ) {}

  /** Whether {@link EngineDecodeState.dispose} was called. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Frees the cache unless a decode step took it over; idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (!this.consumed) this.release(this.cache);
  }
}
