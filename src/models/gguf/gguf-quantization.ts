/**
 * Which matrices a GGUF file stores in a type other than F32, from its tensor infos: the {@link QuantizationInfo}
 * of a model llama.cpp runs, as the built-in ONNX models record theirs.
 *
 * @packageDocumentation
 */
import type { QuantizationInfo } from '../model.js';
import type { BuiltinDtype } from '../onnx/precision.js';
import { predominantDtype } from '../predominant-dtype.js';
import { GGML_TYPES } from './ggml-types.js';
import { GGUF_TYPE_OF } from './gguf-export.js';

/** A tensor of a GGUF file as its header describes it. */
export interface GgufTensorType {
  /** llama.cpp tensor name, e.g. `blk.0.attn_q.weight`. */
  readonly name: string;
  /** ggml type name, e.g. `Q8_0`, `Q4_K`, `F32`. */
  readonly type: string;
  /** Number of dimensions. */
  readonly dims: number;
}

/** The dantinox dtype of each ggml type a built-in dtype writes (`Q8_0` → `q8`); other types keep ggml's name. */
const DTYPE_OF_GGML: ReadonlyMap<string, BuiltinDtype> = new Map(
  Object.entries(GGUF_TYPE_OF).map(([dtype, ggml]) => [ggml, dtype as BuiltinDtype]),
);

/** The LM head's tensor, and the embedding that serves as the head when the file has none (tied weights). */
const HEAD = 'output.weight';
const TIED_HEAD = 'token_embd.weight';

/**
 * The {@link QuantizationInfo} of a GGUF file's tensors, or `undefined` when every matrix is F32. A matrix is a
 * tensor of two or more dimensions; its dtype is dantinox's name for the ggml types dantinox writes (`F16` →
 * `fp16`, `Q8_0` → `q8`, `Q4_0` → `q4`) and ggml's name otherwise (`Q4_K`, `IQ2_XS`). `dtype` is the most frequent
 * dtype of the blocks' matrices (`blk.*`), `headDtype` that of `output.weight` (or of `token_embd.weight` when the
 * head is tied to it); `blockSize` is 32 when some matrix is `Q4_0`.
 */
export function ggufQuantizationInfo(tensors: readonly GgufTensorType[]): QuantizationInfo | undefined {
  const dtypeOf = (type: string): string => DTYPE_OF_GGML.get(type) ?? type;
  const matrices = tensors.filter((t) => t.dims >= 2 && t.type !== GGUF_TYPE_OF.fp32);
  if (matrices.length === 0) return undefined;
  const head = tensors.find((t) => t.name === HEAD) ?? tensors.find((t) => t.name === TIED_HEAD);
  const q4 = matrices.some((t) => t.type === 'Q4_0');
  return {
    dtype: predominantDtype(matrices.filter((t) => t.name.startsWith('blk.')).map((t) => dtypeOf(t.type))),
    headDtype: head === undefined ? 'fp32' : dtypeOf(head.type),
    matrices: Object.fromEntries(matrices.map((t) => [t.name, dtypeOf(t.type)])),
    ...(q4 ? { blockSize: GGML_TYPES.Q4_0.blockSize } : {}),
  };
}
