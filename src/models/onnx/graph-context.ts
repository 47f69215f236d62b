/**
 * What every block builder of the transformer graph shares: the graph being built, the config, the weights
 * (registered as initializers on first use) and the names of the graph-wide inputs.
 *
 * @packageDocumentation
 */
import { TENSOR_TYPES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { toFloat16Bits } from '../float16.js';
import type { ModelConfig } from '../model-config.js';
import type { WeightMap, WeightTensor } from '../weights.js';
import type { GraphBuilder } from './graph-builder.js';
import type { LinearWeight } from './linear.js';
import { type BuiltinDtype, FP32_PRECISION, type WeightPrecision } from './precision.js';

/** Names of the graph inputs the blocks read. */
export interface GraphInputNames {
  /** `input_ids`: integer token ids `[batch, seq]` (int32 in the built-in graph, int64 in the HF layout). */
  readonly inputIds: string;
  /** `position_ids`: int64 `[batch, seq]` absolute positions (absent for `posEncoding: 'none'`). */
  readonly positionIds?: string;
  /**
   * Additive float attention mask (0 where a key is visible) in the layout the graph's attention reads: the
   * built-in graph's `attention_mask` input `[maskBatch, group · seq, past + seq]` (rows repeated per group)
   * unsqueezed to `[maskBatch, 1, group · seq, past + seq]`, or the mask the
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
  /** How the weight matrices are stored and multiplied. @default float32 everywhere */
  readonly precision?: WeightPrecision;
}

/** The state shared by the block builders while one graph is generated. */
export class GraphContext {
  readonly #registered = new Set<string>();
  readonly #memo = new Map<string, unknown>();
  readonly #quantized = new Map<string, BuiltinDtype>();
  /** The weight read last: a lazy map computes each read afresh, so two reads in a row share one tensor. */
  #last: { readonly name: string; readonly tensor: WeightTensor | undefined } | undefined;
  /** Whether blocks may fuse weights into derived initializers (see {@link GraphContextOptions.fuseWeights}). */
  readonly fuseWeights: boolean;
  /** How the weight matrices are stored (see {@link GraphContextOptions.precision}). */
  readonly precision: WeightPrecision;

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
    this.precision = options.precision ?? FP32_PRECISION;
  }

  /** Notes that the matrix initializer `name` is stored in `dtype` (not float32). */
  recordQuantized(name: string, dtype: BuiltinDtype): void {
    this.#quantized.set(name, dtype);
  }

  /** The matrices stored in a dtype other than float32, by initializer name, in the order they were added. */
  get quantized(): ReadonlyMap<string, BuiltinDtype> {
    return this.#quantized;
  }

  /**
   * The value holding weight `name`, registered on first use: a float32 initializer viewing the weight's array,
   * or (`half`) a float16 initializer `name.fp16` behind a `Cast` to float32 named `name`, which ONNX Runtime
   * folds into a float32 weight when the session is created.
   *
   * @param half - store it as float16. @default the graph's precision is `fp16`
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the weight is missing.
   */
  weight(name: string, half = this.precision.dtype === 'fp16'): string {
    if (!this.#registered.has(name)) {
      const t = this.#read(name);
      if (t === undefined) throw new DantinoxError('INVALID_INPUT', `${name}: ${messages.missingWeight([])}`);
      this.#register(name, t.dims, t.data, half);
    }
    return name;
  }

  /**
   * A value derived from the weights (fused or transposed layouts), computed by `make` on first use and stored
   * like {@link GraphContext.weight}'s.
   */
  derived(
    name: string,
    dims: readonly number[],
    make: () => Float32Array,
    half = this.precision.dtype === 'fp16',
  ): string {
    if (!this.#registered.has(name)) this.#register(name, dims, make(), half);
    return name;
  }

  #register(name: string, dims: readonly number[], data: Float32Array, half: boolean): void {
    if (half) {
      const init = this.g.tensorInit(`${name}.fp16`, dims, 'float16', toFloat16Bits(data));
      this.g.op('Cast', [init], { to: { int: TENSOR_TYPES.float32.onnx } }, { output: name });
    } else this.g.floatInit(name, dims, data);
    this.#registered.add(name);
  }

  /** Weight `name` (a `[K, N]` matrix) as a {@link LinearWeight} used in place. */
  matrix(name: string): LinearWeight {
    const t = this.#read(name);
    if (t === undefined) throw new DantinoxError('INVALID_INPUT', `${name}: ${messages.missingWeight([])}`);
    return { name, k: t.dims[0] as number, n: t.dims[1] as number, data: () => t.data, canonical: true };
  }

  /** The data of weight `name`. @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when it is missing. */
  data(name: string): Float32Array {
    const t = this.#read(name);
    if (t === undefined) throw new DantinoxError('INVALID_INPUT', `${name}: ${messages.missingWeight([])}`);
    return t.data;
  }

  #read(name: string): WeightTensor | undefined {
    if (this.#last?.name !== name) this.#last = { name, tensor: this.weights.get(name) };
    return this.#last.tensor;
  }

  /** The value `make()` returned the first time `key` was asked for (shared constants, e.g. rotary tables). */
  memo<T>(key: string, make: () => T): T {
    if (!this.#memo.has(key)) this.#memo.set(key, make());
    return this.#memo.get(key) as T;
  }
}
