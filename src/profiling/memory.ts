/**
 * Memory footprint of a {@link ModelConfig}: weight bytes and KV-cache bytes per token, for one weight dtype of
 * the dtype table.
 */
import { DTYPES, type Dtype, parseDtype, TENSOR_TYPES } from '../dtype.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelConfig } from '../models/model-config.js';
import { checkConfigNumbers } from './option-checks.js';
import { countParameters } from './parameters.js';

/** Options of {@link memoryFootprint}. */
export interface MemoryFootprintOptions {
  /**
   * How the weights are stored (the KV cache is held in the dtype's activation type: float16 for `fp16` and
   * `q4f16`, float32 otherwise). The long spellings `float32`, `float16`, `bfloat16` are accepted too.
   * @default 'fp32'
   */
  dtype?: Dtype | 'float32' | 'float16' | 'bfloat16';
  /**
   * Dtype of the LM head. dantinox quantizes the head with the other matrices; a tied head that is quantized is
   * then stored twice (the embedding table, which the token lookup reads, and the quantized head). @default `dtype`
   */
  headDtype?: Dtype;
  /**
   * Bytes per element of the KV cache, when the engine holds it in another type than the dtype's activation type
   * (llama.cpp's F16 cache of a float32 model: 2). @default the dtype's activation type's bytes
   */
  kvBytesPerElement?: number;
}

/** Memory of a model, in bytes. */
export interface MemoryFootprint {
  /** Bytes of all stored weights ({@link ParameterCount.total} × bytes per weight element). */
  readonly weightBytes: number;
  /** Bytes of the weights one token touches (MoE: router + topK experts); what a decode step must read. */
  readonly activeWeightBytes: number;
  /** KV-cache bytes per token per sequence: 2 (K and V) · numBlocks · kvHeads · headSize · bytes per element. */
  readonly kvBytesPerToken: number;
  /** Bytes per weight element of the dtype, including block scales and zero points of blocked formats. */
  readonly bytesPerElement: number;
  /** Bytes per element of the KV cache (the dtype's activation type, or `kvBytesPerElement` when given). */
  readonly kvBytesPerElement: number;
  /** The dtype used. */
  readonly dtype: Dtype;
}

/**
 * Memory of a model in bytes: weights (total and active) and the KV cache per token, for one dtype, as dantinox's
 * ONNX graphs and transformers.js files store it. Full- and half-precision dtypes store every weight in the dtype.
 * Quantized dtypes (`q8`, `q4`, …) store the weight matrices (attention, FFN/experts, router, LM head) at the
 * dtype's bytes per element (blocked formats include their scales and zero points) and keep the token and
 * position tables and the norms in float32; the LM head follows `headDtype`. A sequence of c cached tokens holds
 * `c · kvBytesPerToken` bytes of KV cache, a batch of B sequences B times that. Activations and runtime workspace
 * are not included.
 *
 * @example
 * ```ts
 * memoryFootprint(ModelConfig.preset('gpt2-small'), { dtype: 'fp16' }).kvBytesPerToken; // 36_864
 * ```
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` for an unknown dtype, naming the known ones.
 */
export function memoryFootprint(config: ModelConfig, options: MemoryFootprintOptions = {}): MemoryFootprint {
  checkConfigNumbers(config);
  const dtype = parseDtype(String(options.dtype ?? 'fp32'));
  const info = DTYPES[dtype];
  const bytes = info.bytesPerElement;
  const kv = options.kvBytesPerElement;
  if (kv !== undefined && !(Number.isFinite(kv) && kv > 0))
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('kvBytesPerElement', kv, 'a finite number > 0'),
    );
  const kvBytes = kv ?? TENSOR_TYPES[info.activation].bytes;
  const params = countParameters(config);
  const headInfo = DTYPES[parseDtype(String(options.headDtype ?? dtype), 'headDtype')];
  const d = config.dim;
  const head = d * config.vocabSize;
  const untiedHead = config.weightTying ? 0 : head;
  // A tied head is the embedding table itself unless it is quantized into its own copy.
  const storedHead = (config.weightTying && !headInfo.quantized ? 0 : head) * headInfo.bytesPerElement;
  const norm = config.norm === 'layernorm' ? 2 * d : d;
  const fullPrecision = params.embedding - untiedHead + (2 * config.numBlocks + 1) * norm;
  const weights = (count: number): number =>
    info.quantized
      ? fullPrecision * TENSOR_TYPES.float32.bytes + (count - fullPrecision - untiedHead) * bytes + storedHead
      : (count - untiedHead) * bytes + storedHead;
  return Object.freeze({
    weightBytes: weights(params.total),
    activeWeightBytes: weights(params.active),
    kvBytesPerToken: 2 * config.numBlocks * config.kvHeads * config.headSize * kvBytes,
    bytesPerElement: bytes,
    kvBytesPerElement: kvBytes,
    dtype,
  });
}
