/**
 * What every block builder of the transformer graph shares: the graph being built, the config, the weights
 * (registered as initializers on first use) and the names of the graph-wide inputs.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { ModelConfig } from '../model-config.js';
import type { WeightMap } from '../weights.js';
import type { GraphBuilder } from './graph-builder.js';

/** Names of the graph inputs the blocks read. */
export interface GraphInputNames {
  /** `input_ids`: integer token ids `[batch, seq]` (int32 in the built-in graph, int64 in the HF layout). */
  readonly inputIds: string;
  /** `position_ids`: int64 `[batch, seq]` absolute positions (absent for `posEncoding: 'none'`). */
  readonly positionIds?: string;
  /**
   * Additive float attention mask (0 where a key is visible) in the layout the graph's attention reads: the
   * built-in graph's `attention_mask` input `[group · seq, past + seq]` (rows repeated per group), or the mask the
   * HF layout derives from its int64 `attention_mask`.
   */
  readonly attentionMask: string;
}

/** Options of {@link GraphContext}. */
export interface GraphContextOptions {
  /**
   * Fuse projections that read the same input into one product over a derived, column-concatenated
   * initializer (e.g. SwiGLU's gate and up). Off for exported files, whose initializers keep the canonical
   * weight names and shapes.
   * @default true
   */
  readonly fuseWeights?: boolean;
}

/** The state shared by the block builders while one graph is generated. */
export class GraphContext {
  readonly #registered = new Set<string>();
  readonly #memo = new Map<string, unknown>();
  /** Whether blocks may fuse weights into derived initializers (see {@link GraphContextOptions.fuseWeights}). */
  readonly fuseWeights: boolean;

  constructor(
    /** The graph under construction. */
    readonly g: GraphBuilder,
    /** The architecture. */
    readonly config: ModelConfig,
    /** The weights, by canonical name. */
    readonly weights: WeightMap,
    /** Graph input names. */
    readonly inputs: GraphInputNames,
    options: GraphContextOptions = {},
  ) {
    this.fuseWeights = options.fuseWeights ?? true;
  }

  /**
   * The initializer holding weight `name` (registered on first use as external data viewing the weight's array).
   *
   * @throws {@link DantinoxError} `INVALID_INPUT` when the weight is missing.
   */
  weight(name: string): string {
    if (!this.#registered.has(name)) {
      const t = this.weights.get(name);
      if (t === undefined) throw new DantinoxError('INVALID_INPUT', `${name}: ${messages.missingWeight([])}`);
      this.g.floatInit(name, t.dims, t.data);
      this.#registered.add(name);
    }
    return name;
  }

  /**
   * An initializer derived from the weights (fused or transposed layouts), computed by `make` on first use and
   * registered as external data.
   */
  derived(name: string, dims: readonly number[], make: () => Float32Array): string {
    if (!this.#registered.has(name)) {
      this.g.floatInit(name, dims, make());
      this.#registered.add(name);
    }
    return name;
  }

  /** The data of weight `name`. @throws {@link DantinoxError} `INVALID_INPUT` when it is missing. */
  data(name: string): Float32Array {
    const t = this.weights.get(name);
    if (t === undefined) throw new DantinoxError('INVALID_INPUT', `${name}: ${messages.missingWeight([])}`);
    return t.data;
  }

  /** The value `make()` returned the first time `key` was asked for (shared constants, e.g. rotary tables). */
  memo<T>(key: string, make: () => T): T {
    if (!this.#memo.has(key)) this.#memo.set(key, make());
    return this.#memo.get(key) as T;
  }
}
