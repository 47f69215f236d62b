/**
 * `createTransformersJsModel`: a built-in model (config + weights) exported to a temporary Hugging Face folder
 * and loaded by transformers.js, so the same weights run on ONNX Runtime directly and through transformers.js.
 *
 * @packageDocumentation
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GgufSource } from '../../gguf/gguf-export.js';
import { exportHfModel } from '../../hf/hf-export.js';
import type { HfTokenizerFiles } from '../../hf/hf-tokenizer-json.js';
import { FP32_PRECISION, type WeightPrecision } from '../../onnx/precision.js';
import {
  type LoadTransformersJsModelOptions,
  loadTransformersJsModel,
  type TransformersJsModel,
} from './transformers-js-model.js';

/** Options of {@link createTransformersJsModel}. */
export interface CreateTransformersJsModelOptions
  extends Omit<LoadTransformersJsModelOptions, 'deleteFolderOnDispose' | 'dtype'> {
  /** How the exported matrices are stored (the file transformers.js loads is that dtype's). @default fp32 */
  readonly precision?: WeightPrecision;
  /** The model's own tokenizer, written into the export. @default the built-in tokenizer of the vocabulary size */
  readonly tokenizer?: HfTokenizerFiles;
}

/**
 * Exports `source` with `exportHfModel` (in `precision`, quantized by dantinox) to a temporary folder (deleted
 * when the model is disposed) and loads that dtype's file with {@link loadTransformersJsModel}.
 *
 * @throws the errors of `exportHfModel` and {@link loadTransformersJsModel}.
 */
export async function createTransformersJsModel(
  source: GgufSource,
  options: CreateTransformersJsModelOptions = {},
): Promise<TransformersJsModel> {
  const { precision = FP32_PRECISION, tokenizer, ...load } = options;
  const folder = mkdtempSync(join(tmpdir(), 'dantinox-tjs-'));
  exportHfModel(source.config, source.weights, folder, {
    dtypes: [precision.dtype],
    headDtype: precision.headDtype,
    blockSize: precision.blockSize,
    ...(tokenizer === undefined ? {} : { tokenizer }),
  });
  return loadTransformersJsModel(folder, {
    name: 'custom',
    ...load,
    dtype: precision.dtype,
    deleteFolderOnDispose: true,
  });
}
