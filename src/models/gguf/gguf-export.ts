/**
 * `exportGguf`: writes a built-in model (or a Hugging Face folder written by `exportHfModel`) as a GGUF v3 file
 * that llama.cpp loads, with its tokenizer and its matrices in F32, F16, Q8_0 or Q4_0.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { exportTokenizerFiles, type HfExportTokenizer } from '../hf/hf-export.js';
import { readHfWeights } from '../hf/hf-weights.js';
import type { ModelConfig } from '../model-config.js';
import { BUILTIN_DTYPES, type BuiltinDtype } from '../onnx/precision.js';
import { checkWeights, type WeightMap } from '../weights.js';
import { encodeGgml, type GgmlTypeName } from './ggml-types.js';
import {
  architectureMetadata,
  type GgufArchitecture,
  ggufArchitectureOf,
  ggufBlocker,
  ggufTensors,
} from './gguf-architecture.js';
import { ggufTokenizerMetadata } from './gguf-tokenizer.js';
import { type GgufTensor, type GgufValue, writeGguf } from './gguf-writer.js';

/** The ggml type each built-in dtype writes its matrices in: `fp32` → F32, `fp16` → F16, `q8` → Q8_0, `q4` → Q4_0. */
export const GGUF_TYPE_OF: Readonly<Record<BuiltinDtype, GgmlTypeName>> = Object.freeze({
  fp32: 'F32',
  fp16: 'F16',
  q8: 'Q8_0',
  q4: 'Q4_0',
});

/** llama.cpp's `general.file_type` (`LLAMA_FTYPE_*`) of each dtype. */
const FILE_TYPE: Readonly<Record<BuiltinDtype, number>> = { fp32: 0, fp16: 1, q4: 2, q8: 7 };

/** What {@link exportGguf} converts: a config with its weights, e.g. an `OnnxModel`. */
export interface GgufSource {
  /** The architecture. */
  readonly config: ModelConfig;
  /** Its weights (canonical names, see `weightSpecs`). */
  readonly weights: WeightMap;
}

/** Options of {@link exportGguf}. */
export interface GgufExportOptions {
  /**
   * Element type of every matrix (embeddings, projections, LM head); norm weights and biases stay F32, as in
   * llama.cpp's own files. Block types (`q8`, `q4`) need rows (the input dimension) that are multiples of 32.
   * @default 'fp32'
   */
  readonly dtype?: BuiltinDtype;
  /** Tokenizer to embed, as for `exportHfModel`. @default 'auto' */
  readonly tokenizer?: HfExportTokenizer;
  /** `general.name`. @default 'dantinox' */
  readonly name?: string;
}

/** What {@link exportGguf} wrote. */
export interface GgufExportResult {
  /** The file written. */
  readonly path: string;
  /** llama.cpp architecture of the file. */
  readonly architecture: GgufArchitecture;
  /** ggml type of the matrices. */
  readonly type: GgmlTypeName;
  /** Number of tensors. */
  readonly tensors: number;
  /** Bytes written. */
  readonly bytes: number;
}

/**
 * Writes `source` — a built-in model (`config` + `weights`), or the path of a Hugging Face folder written by
 * `exportHfModel` (its fp32 weights and its own tokenizer, see `readHfWeights`) — as a GGUF v3 file at `path` that
 * llama.cpp (e.g. through `node-llama-cpp`) loads and runs with the same logits as the ONNX model, up to float rounding (and quantization for `q8`/`q4`). Rotary +
 * RMSNorm + SwiGLU configs become the `llama` architecture (dense or mixture of experts), learned positions +
 * LayerNorm + GELU the `gpt2` architecture (llama.cpp's `gpt2` uses the tanh approximation of GELU: its
 * logits differ slightly from the exact-erf ONNX graph). Quantization is "pure": every matrix in the requested
 * type.
 *
 * @example
 * ```ts
 * const model = await createModel(ModelConfig.preset('small'));
 * exportGguf(model, 'small-q8.gguf', { dtype: 'q8' });
 * ```
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` for what llama.cpp cannot represent (diffusion, sliding windows,
 * sinusoidal or no positions, row lengths that are not multiples of 32 for block types, non-byte-level
 * tokenizers); `INVALID_OPTION` for an unknown dtype or a tokenizer that does not fit; `INVALID_INPUT` when the
 * weights do not match the config; `IO` when the file cannot be written.
 */
export function exportGguf(
  source: GgufSource | string,
  path: string,
  options: GgufExportOptions = {},
): GgufExportResult {
  const dtype = options.dtype ?? 'fp32';
  if (!(BUILTIN_DTYPES as readonly string[]).includes(dtype)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.unknownName('GGUF dtype', String(dtype), BUILTIN_DTYPES),
    );
  }
  if (typeof source === 'string') {
    // A folder: its weights, and its own tokenizer unless one is given.
    const folder = readHfWeights(source);
    return exportGguf(folder, path, { tokenizer: folder.tokenizer, ...options });
  }
  const { config, weights } = source;
  const blocker = ggufBlocker(config);
  if (blocker !== undefined) throw new DantinoxError('UNSUPPORTED', messages.ggufUnsupported(blocker));
  checkWeights(config, weights);
  const tokenizer = exportTokenizerFiles(options.tokenizer ?? 'auto', config.vocabSize);
  const architecture = ggufArchitectureOf(config);
  const type = GGUF_TYPE_OF[dtype];
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', { type: 'string', value: architecture }],
    ['general.name', { type: 'string', value: options.name ?? 'dantinox' }],
    ['general.file_type', { type: 'u32', value: FILE_TYPE[dtype] }],
    ...architectureMetadata(config),
    ...ggufTokenizerMetadata(tokenizer.tokenizerJson, config.vocabSize),
  ]);
  const tensors: GgufTensor[] = ggufTensors(config, weights).map((t) => {
    const tensorType = t.ne.length >= 2 ? type : 'F32';
    return { name: t.name, ne: t.ne, type: tensorType, data: encodeGgml(tensorType, t.data) };
  });
  const bytes = writeGguf(path, metadata, tensors);
  return { path, architecture, type, tensors: tensors.length, bytes };
}
