/**
 * `createLlamaCppModel`: a built-in model (config + weights) exported to a temporary GGUF file and loaded into
 * llama.cpp, so the same weights run on ONNX Runtime and on llama.cpp.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportGguf, type GgufSource } from '../../gguf/gguf-export.js';
import type { HfTokenizerFiles } from '../../hf/hf-tokenizer-json.js';
import type { BuiltinDtype } from '../../onnx/precision.js';
import {
  type LlamaCppModel,
  type LlamaKvCacheType,
  type LoadLlamaCppModelOptions,
  loadLlamaCppModel,
} from './llama-cpp-model.js';

/** Options of {@link createLlamaCppModel}. */
export interface CreateLlamaCppModelOptions {
  /** Weight dtype of the GGUF file. @default 'fp32' */
  readonly dtype?: BuiltinDtype;
  /** Threads llama.cpp uses. @default os.availableParallelism() */
  readonly threads?: number;
  /** Name reported in `info.name`. @default 'custom' */
  readonly name?: string;
  /** Folder of the temporary GGUF file (deleted when the model is disposed). @default os.tmpdir() */
  readonly dir?: string;
  /**
   * Sequences of every llama.cpp context, for continuous batching: see
   * {@link LoadLlamaCppModelOptions.rowsPerContext}. @default undefined (no row batching)
   */
  readonly rowsPerContext?: number;
  /** Element type of the KV cache: see {@link LoadLlamaCppModelOptions.kvCacheType}. @default 'f32' */
  readonly kvCacheType?: LlamaKvCacheType;
  /** The model's own tokenizer, written into the GGUF file. @default the built-in tokenizer of the vocabulary size */
  readonly tokenizer?: HfTokenizerFiles;
}

/**
 * Exports `source` with {@link exportGguf} to a temporary file and loads it with {@link loadLlamaCppModel}.
 *
 * @example
 * ```ts
 * const onnx = await createModel(ModelConfig.preset('small'), { threads: 2 });
 * const llama = await createLlamaCppModel(onnx, { dtype: 'q4', threads: 2, name: 'small' });
 * ```
 * @throws the errors of {@link exportGguf} and {@link loadLlamaCppModel}.
 */
export async function createLlamaCppModel(
  source: GgufSource,
  options: CreateLlamaCppModelOptions = {},
): Promise<LlamaCppModel> {
  const dtype = options.dtype ?? 'fp32';
  const path = join(options.dir ?? tmpdir(), `dantinox-${randomUUID()}-${dtype}.gguf`);
  exportGguf(source, path, {
    dtype,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
  });
  const loading = loadLlamaCppModel(path, source.config, {
    dtype,
    deleteFileOnDispose: true,
    name: options.name ?? 'custom',
    ...(options.threads === undefined ? {} : { threads: options.threads }),
    ...(options.rowsPerContext === undefined ? {} : { rowsPerContext: options.rowsPerContext }),
    ...(options.kvCacheType === undefined ? {} : { kvCacheType: options.kvCacheType }),
    ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
  });
  // A refused option or file leaves no temporary file behind.
  return loading.catch((error: unknown) => {
    rmSync(path, { force: true });
    throw error;
  });
}
