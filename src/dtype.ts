/**
 * The two tables every layer reads for element types: {@link TENSOR_TYPES} (how one tensor element is stored:
 * bytes, ONNX `TensorProto.DataType` number, safetensors name) and {@link DTYPES} (how a model's weights are
 * stored: full precision, half precision, 8-bit or 4-bit blocks, with the Hugging Face / transformers.js file
 * that holds each variant). Both are frozen; nothing else in dantinox repeats these facts.
 *
 * This module imports nothing from the engine, so profiling can size memory without loading a runtime.
 *
 * @packageDocumentation
 */
import { DantinoxError } from './errors.js';
import { messages } from './messages.js';

/** Facts about one tensor element type. */
export interface TensorTypeInfo {
  /** ONNX `TensorProto.DataType` number (1 = float, 10 = float16, 7 = int64…). */
  readonly onnx: number;
  /** Bytes per element; 0.5 for the packed 4-bit types. */
  readonly bytes: number;
  /** Name in a safetensors header, where the format has one. */
  readonly safetensors?: string;
}

/**
 * Tensor element types by their ONNX Runtime name (`Tensor.type` in onnxruntime-node), in bytes per element.
 * The names are the ones onnxruntime-node uses, so a session's input metadata indexes this table directly.
 */
export const TENSOR_TYPES = Object.freeze({
  /** 4 bytes per element: IEEE 754 single precision. */
  float32: Object.freeze({ onnx: 1, bytes: 4, safetensors: 'F32' }),
  /** 1 byte per element: unsigned 8-bit integer. */
  uint8: Object.freeze({ onnx: 2, bytes: 1, safetensors: 'U8' }),
  /** 1 byte per element: signed 8-bit integer. */
  int8: Object.freeze({ onnx: 3, bytes: 1, safetensors: 'I8' }),
  /** 4 bytes per element: signed 32-bit integer. */
  int32: Object.freeze({ onnx: 6, bytes: 4, safetensors: 'I32' }),
  /** 8 bytes per element: signed 64-bit integer (token ids, shapes). */
  int64: Object.freeze({ onnx: 7, bytes: 8, safetensors: 'I64' }),
  /** 1 byte per element: boolean. */
  bool: Object.freeze({ onnx: 9, bytes: 1, safetensors: 'BOOL' }),
  /** 2 bytes per element: IEEE 754 half precision. */
  float16: Object.freeze({ onnx: 10, bytes: 2, safetensors: 'F16' }),
  /** 8 bytes per element: IEEE 754 double precision. */
  float64: Object.freeze({ onnx: 11, bytes: 8, safetensors: 'F64' }),
  /** 2 bytes per element: bfloat16 (float32 with a 7-bit mantissa). */
  bfloat16: Object.freeze({ onnx: 16, bytes: 2, safetensors: 'BF16' }),
  /** 0.5 bytes per element: unsigned 4-bit integer, two per byte (no safetensors name). */
  uint4: Object.freeze({ onnx: 21, bytes: 0.5 }),
  /** 0.5 bytes per element: signed 4-bit integer, two per byte (no safetensors name). */
  int4: Object.freeze({ onnx: 22, bytes: 0.5 }),
} as const satisfies Record<string, TensorTypeInfo>);

/** A tensor element type name, e.g. `float32`, `float16`, `int64`. */
export type TensorType = keyof typeof TENSOR_TYPES;

/** Tensor element types that hold weights (floating point and 8-/4-bit integers); not indices, masks or shapes. */
export const WEIGHT_TENSOR_TYPES: readonly TensorType[] = Object.freeze([
  'float32',
  'float16',
  'bfloat16',
  'float64',
  'int8',
  'uint8',
  'int4',
  'uint4',
]);

/** Facts about one way of storing a model's weights. */
export interface DtypeInfo {
  /** The dtype's name, as on the command line (`--dtype q4`). */
  readonly name: string;
  /** One line a user can read: what the weights are and how they are computed with. */
  readonly description: string;
  /** Bits per stored weight element, before block overhead. */
  readonly bits: number;
  /**
   * Average bytes per weight element including the overhead of blocked formats:
   * `bits / 8 + (scale bytes + zero-point bits / 8) / blockSize`.
   */
  readonly bytesPerElement: number;
  /** Weights per block that share one scale (and zero point), for blocked formats. */
  readonly blockSize?: number;
  /** Tensor element type of the stored weights (packed 4-bit values live in `uint8`). */
  readonly storage: TensorType;
  /** Element type of activations, logits and the KV cache when a model of this dtype runs. */
  readonly activation: TensorType;
  /** Whether the weights are integer-quantized (with scales), not plain floating point. */
  readonly quantized: boolean;
  /** ONNX `TensorProto.DataType` of the stored weights, where ONNX has one. */
  readonly onnxElementType: number;
  /** safetensors dtype name of the stored weights, where the format has one. */
  readonly safetensors?: string;
  /** File name of this variant in a Hugging Face / transformers.js `onnx/` folder, where one is conventional. */
  readonly onnxFile?: string;
}

/** Builds a frozen {@link DtypeInfo}, deriving the ONNX and safetensors names from the storage type. */
function dtype(
  name: string,
  description: string,
  fields: {
    bits: number;
    storage: TensorType;
    activation: TensorType;
    onnxFile?: string;
    block?: { size: number; scaleBytes: number; zeroPointBits: number };
    safetensors?: boolean;
  },
): DtypeInfo {
  const { bits, storage, activation, onnxFile, block, safetensors = true } = fields;
  const overhead = block === undefined ? 0 : (block.scaleBytes + block.zeroPointBits / 8) / block.size;
  const st: string | undefined = (TENSOR_TYPES[storage] as TensorTypeInfo).safetensors;
  return Object.freeze({
    name,
    description,
    bits,
    bytesPerElement: bits / 8 + overhead,
    ...(block === undefined ? {} : { blockSize: block.size }),
    storage,
    activation,
    quantized: bits <= 8,
    onnxElementType: TENSOR_TYPES[storage].onnx,
    ...(safetensors && st !== undefined ? { safetensors: st } : {}),
    ...(onnxFile === undefined ? {} : { onnxFile }),
  });
}

/**
 * Every weight dtype dantinox knows, keyed by name: bits, bytes per weight (blocked formats include their scales
 * and zero points), storage and activation element types, and the transformers.js file of each variant.
 *
 * | name | weights | file |
 * |---|---|---|
 * | `fp32` | float32 | `model.onnx` |
 * | `fp16` | float16 | `model_fp16.onnx` |
 * | `bf16` | bfloat16 | — |
 * | `q8` | int8, scales per tensor or channel, activations quantized on the fly | `model_quantized.onnx` |
 * | `q4` | 4-bit blocks of 32 with a float32 scale and 4-bit zero point (`MatMulNBits`) | `model_q4.onnx` |
 * | `q4f16` | as `q4` with float16 scales and float16 activations | `model_q4f16.onnx` |
 * | `int8` / `uint8` | 8-bit weights, signed / unsigned | `model_int8.onnx` / `model_uint8.onnx` |
 * | `bnb4` | 4-bit NF4/FP4 blocks of 64 with a float32 absmax (`MatMulBnb4`) | `model_bnb4.onnx` |
 */
export const DTYPES = Object.freeze({
  /** 4 bytes per weight: float32 weights and compute. */
  fp32: dtype('fp32', 'float32 weights and compute', {
    bits: 32,
    storage: 'float32',
    activation: 'float32',
    onnxFile: 'model.onnx',
  }),
  /** 2 bytes per weight: float16 weights, activations and KV cache. */
  fp16: dtype('fp16', 'float16 weights, activations and KV cache', {
    bits: 16,
    storage: 'float16',
    activation: 'float16',
    onnxFile: 'model_fp16.onnx',
  }),
  /** 2 bytes per weight: bfloat16 weights (safetensors checkpoints; no ONNX variant file). */
  bf16: dtype('bf16', 'bfloat16 weights (safetensors checkpoints; no ONNX variant file)', {
    bits: 16,
    storage: 'bfloat16',
    activation: 'float32',
  }),
  /** 1 byte per weight: int8 weights with per-tensor or per-channel scales, activations quantized on the fly. */
  q8: dtype('q8', 'int8 weights with per-tensor or per-channel scales, activations quantized on the fly', {
    bits: 8,
    storage: 'int8',
    activation: 'float32',
    onnxFile: 'model_quantized.onnx',
  }),
  /** 0.640625 bytes per weight: 4-bit weights in blocks of 32 with a float32 scale and a 4-bit zero point. */
  q4: dtype('q4', '4-bit weights in blocks of 32 with a float32 scale and a 4-bit zero point (MatMulNBits)', {
    bits: 4,
    storage: 'uint8',
    activation: 'float32',
    onnxFile: 'model_q4.onnx',
    block: { size: 32, scaleBytes: 4, zeroPointBits: 4 },
    safetensors: false,
  }),
  /** 0.578125 bytes per weight: 4-bit weights in blocks of 32 with float16 scales; float16 activations. */
  q4f16: dtype('q4f16', '4-bit weights in blocks of 32 with float16 scales; float16 activations', {
    bits: 4,
    storage: 'uint8',
    activation: 'float16',
    onnxFile: 'model_q4f16.onnx',
    block: { size: 32, scaleBytes: 2, zeroPointBits: 4 },
    safetensors: false,
  }),
  /** 1 byte per weight: signed 8-bit weights. */
  int8: dtype('int8', 'signed 8-bit weights', {
    bits: 8,
    storage: 'int8',
    activation: 'float32',
    onnxFile: 'model_int8.onnx',
  }),
  /** 1 byte per weight: unsigned 8-bit weights. */
  uint8: dtype('uint8', 'unsigned 8-bit weights', {
    bits: 8,
    storage: 'uint8',
    activation: 'float32',
    onnxFile: 'model_uint8.onnx',
  }),
  /** 0.5625 bytes per weight: 4-bit NF4/FP4 weights in blocks of 64 with a float32 absmax. */
  bnb4: dtype('bnb4', '4-bit NF4/FP4 weights in blocks of 64 with a float32 absmax (MatMulBnb4)', {
    bits: 4,
    storage: 'uint8',
    activation: 'float32',
    onnxFile: 'model_bnb4.onnx',
    block: { size: 64, scaleBytes: 4, zeroPointBits: 0 },
    safetensors: false,
  }),
} as const satisfies Record<string, DtypeInfo>);

/** A weight dtype name: `fp32`, `fp16`, `bf16`, `q8`, `q4`, `q4f16`, `int8`, `uint8` or `bnb4`. */
export type Dtype = keyof typeof DTYPES;

/** Every {@link Dtype} name, in table order. */
export const DTYPE_NAMES: readonly Dtype[] = Object.freeze(Object.keys(DTYPES) as Dtype[]);

/** Other spellings users type for a dtype (the tensor type names of the full-precision formats). */
const DTYPE_ALIASES: Readonly<Record<string, Dtype>> = Object.freeze({
  float32: 'fp32',
  float16: 'fp16',
  bfloat16: 'bf16',
  quantized: 'q8',
});

/** Whether `value` is a {@link Dtype} name. */
export function isDtype(value: unknown): value is Dtype {
  return typeof value === 'string' && Object.hasOwn(DTYPES, value);
}

/**
 * The {@link Dtype} a user's text names: a table name (`q4`) or one of the long spellings `float32`, `float16`,
 * `bfloat16`, `quantized`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming the allowed dtypes when `value` names none.
 */
export function parseDtype(value: string, what = 'dtype'): Dtype {
  const name = value.trim().toLowerCase();
  if (isDtype(name)) return name;
  const alias = DTYPE_ALIASES[name];
  if (alias !== undefined) return alias;
  throw new DantinoxError('INVALID_OPTION', messages.unknownName(what, value, DTYPE_NAMES));
}

/** The {@link Dtype} whose transformers.js file is `file` (e.g. `model_q4.onnx` → `q4`), if any. */
export function dtypeOfOnnxFile(file: string): Dtype | undefined {
  return DTYPE_NAMES.find((name) => (DTYPES[name] as DtypeInfo).onnxFile === file);
}

/** The {@link TensorType} whose ONNX `TensorProto.DataType` number is `onnx`, if dantinox knows it. */
export function tensorTypeOfOnnx(onnx: number): TensorType | undefined {
  return (Object.keys(TENSOR_TYPES) as TensorType[]).find((t) => TENSOR_TYPES[t].onnx === onnx);
}
