/**
 * The dantinox model folder: a built-in architecture with its own weights — what `dantinox train` writes and what
 * `--model <dir>` opens on every engine and dtype (each engine builds or exports the model from these float32
 * weights, as it does for a preset). It holds `model.safetensors` (the weights under their canonical names, the
 * config in the file's `dantinox.config` metadata: the format of `saveWeights`) and, for a model trained with its
 * own tokenizer, that tokenizer's `tokenizer.json` and `tokenizer_config.json`; without them the model uses the
 * built-in tokenizer of its vocabulary size.
 *
 * A folder is a dantinox model folder when its `model.safetensors` carries a dantinox config; a Hugging Face
 * ONNX folder (`onnx/model.onnx`, `config.json`) is recognised as such first.
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DantinoxError } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import { loadHfTokenizerFiles } from './hf/hf-tokenizer.js';
import { HF_TOKENIZER_FILES, type HfTokenizerFiles, saveHfTokenizerFiles } from './hf/hf-tokenizer-json.js';
import type { ModelConfig } from './model-config.js';
import { configOfMetadata, loadWeights, saveWeights } from './onnx/weights-io.js';
import { readSafetensorsMetadata } from './safetensors.js';
import { checkWeights, type WeightMap } from './weights.js';

/** File names of a dantinox model folder. */
export const MODEL_FOLDER_FILES = Object.freeze({
  /** Weights and config. */
  weights: 'model.safetensors',
  /** The model's own tokenizer (optional). */
  tokenizer: HF_TOKENIZER_FILES[0],
  /** Its configuration (written with it). */
  tokenizerConfig: HF_TOKENIZER_FILES[1],
});

/** A model of a dantinox model folder. */
export interface ModelFolder {
  /** The architecture. */
  readonly config: ModelConfig;
  /** Its float32 weights, by canonical name. */
  readonly weights: WeightMap;
  /** Its own tokenizer; absent: the built-in tokenizer of its vocabulary size. */
  readonly tokenizer?: HfTokenizerFiles;
}

/**
 * The config of the dantinox model folder `dir`, read from its weights file's header alone, or `undefined` when
 * `dir` is not a dantinox model folder (no `model.safetensors`, or one without a dantinox config, or a Hugging
 * Face ONNX folder).
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a `model.safetensors` whose header cannot be read;
 * `INVALID_MODEL_CONFIG` for a stored config that is not valid.
 */
export function modelFolderConfig(dir: string): ModelConfig | undefined {
  const file = join(dir, MODEL_FOLDER_FILES.weights);
  if (!existsSync(file) || !statSync(file).isFile() || existsSync(join(dir, 'onnx'))) return undefined;
  return configOfMetadata(file, readSafetensorsMetadata(file));
}

/**
 * Writes `model` into the folder `dir` (created if needed; its files are replaced) and returns the file names
 * written.
 *
 * @throws {@link dantinox!ValidationError} `INVALID_INPUT` when the weights do not match the config; `IO` when a file
 * cannot be written.
 */
export async function writeModelFolder(dir: string, model: ModelFolder): Promise<string[]> {
  checkWeights(model.config, model.weights);
  makeDirectory(dir);
  await saveWeights(model, join(dir, MODEL_FOLDER_FILES.weights));
  if (model.tokenizer === undefined) return [MODEL_FOLDER_FILES.weights];
  saveHfTokenizerFiles(model.tokenizer, dir);
  return [MODEL_FOLDER_FILES.weights, ...HF_TOKENIZER_FILES];
}

/**
 * Reads the dantinox model folder `dir`: config, weights (checked against it) and its own tokenizer, if any.
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a missing or malformed file or a weights file without a config;
 * {@link dantinox!ValidationError} `INVALID_INPUT` when the weights do not match the config.
 */
export async function readModelFolder(dir: string): Promise<ModelFolder> {
  const file = join(dir, MODEL_FOLDER_FILES.weights);
  const { weights, config } = await loadWeights(file);
  if (config === undefined) throw new DantinoxError('IO', messages.weightsWithoutConfig(file));
  checkWeights(config, weights);
  const tokenizer = existsSync(join(dir, MODEL_FOLDER_FILES.tokenizer))
    ? loadHfTokenizerFiles(join(dir, MODEL_FOLDER_FILES.tokenizer))
    : undefined;
  return { config, weights, ...(tokenizer === undefined ? {} : { tokenizer }) };
}
