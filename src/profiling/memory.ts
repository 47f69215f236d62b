/**
 * Memory footprint of a {@link ModelConfig}: weight bytes and KV-cache bytes per token.
 */
import type { ModelConfig } from '../models/model-config.js';
import { checkOneOf } from './option-checks.js';
import { countParameters } from './parameters.js';

/** Element type of weights and KV cache. */
export type Dtype = 'float32' | 'float16' | 'bfloat16' | 'int8';

/** Bytes per element of each {@link Dtype}. */
export const BYTES_PER_ELEMENT = Object.freeze({
  float32: 4,
  float16: 2,
  bfloat16: 2,
  int8: 1,
} as const satisfies Record<Dtype, number>);

/** Options of {@link memoryFootprint}. */
export interface MemoryFootprintOptions {
  /**
   * Element type of the weights and the KV cache.
   * @default 'float32'
   */
  dtype?: Dtype;
}

/** Memory of a model, in bytes. */
export interface MemoryFootprint {
  /** Bytes of all stored weights ({@link ParameterCount.total} × bytes per element). */
  readonly weightBytes: number;
  /** Bytes of the weights one token touches (MoE: router + topK experts); what a decode step must read. */
  readonly activeWeightBytes: number;
  /** KV-cache bytes per token per sequence: 2 (K and V) · numBlocks · kvHeads · headSize · bytes per element. */
  readonly kvBytesPerToken: number;
  /** Bytes per element of the chosen dtype. */
  readonly bytesPerElement: number;
  /** The dtype used. */
  readonly dtype: Dtype;
}

/**
 * Memory of a model in bytes: weights (total and active) and the KV cache per token, for one dtype. A
 * sequence of c cached tokens holds `c · kvBytesPerToken` bytes of KV cache; a batch of B sequences B times
 * that. `int8` counts one byte per weight and ignores quantisation scales and zero points. Activations and
 * runtime workspace are not included.
 *
 * @example
 * ```ts
 * memoryFootprint(ModelConfig.preset('gpt2-small'), { dtype: 'float16' }).kvBytesPerToken; // 36_864
 * ```
 *
 * @throws {@link DantinoxError} with code `INVALID_OPTION` for an unknown dtype.
 */
export function memoryFootprint(config: ModelConfig, options: MemoryFootprintOptions = {}): MemoryFootprint {
  const { dtype = 'float32' } = options;
  checkOneOf('dtype', dtype, Object.keys(BYTES_PER_ELEMENT) as Dtype[]);
  const bytes = BYTES_PER_ELEMENT[dtype];
  const params = countParameters(config);
  return Object.freeze({
    weightBytes: params.total * bytes,
    activeWeightBytes: params.active * bytes,
    kvBytesPerToken: 2 * config.numBlocks * config.kvHeads * config.headSize * bytes,
    bytesPerElement: bytes,
    dtype,
  });
}
