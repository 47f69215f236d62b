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
import {
  type LoadTransformersJsModelOptions,
  loadTransformersJsModel,
  type TransformersJsModel,
} from './transformers-js-model.js';

/**
 * Exports `source` with `exportHfModel` to a temporary folder (deleted when the model is disposed) and loads it
 * with {@link loadTransformersJsModel}.
 *
 * @throws the errors of `exportHfModel` and {@link loadTransformersJsModel}.
 */
export async function createTransformersJsModel(
  source: GgufSource,
  options: Omit<LoadTransformersJsModelOptions, 'deleteFolderOnDispose'> = {},
): Promise<TransformersJsModel> {
  const folder = mkdtempSync(join(tmpdir(), 'dantinox-tjs-'));
  exportHfModel(source.config, source.weights, folder);
  return loadTransformersJsModel(folder, { name: 'custom', ...options, deleteFolderOnDispose: true });
}
