/**
 * Saving and loading the weights of the built-in transformer as safetensors, with the model config stored in
 * the file's metadata (`dantinox.config`), so a saved model reloads with identical logits.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { ModelConfig } from '../model-config.js';
import { loadSafetensors, saveSafetensors } from '../safetensors.js';
import type { WeightMap } from '../weights.js';
import { type CreateModelOptions, createModel, type OnnxModel } from './onnx-model.js';

/** Metadata key holding the config JSON. */
export const CONFIG_METADATA_KEY = 'dantinox.config';

/**
 * Writes `model`'s weights (float32, canonical names) and config to the safetensors file `path`.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the file cannot be written.
 */
export async function saveWeights(model: Pick<OnnxModel, 'config' | 'weights'>, path: string): Promise<void> {
  await saveSafetensors(path, model.weights, { [CONFIG_METADATA_KEY]: JSON.stringify(model.config) });
}

/**
 * Reads the weights and (when present) the config of a safetensors file written by {@link saveWeights} or any
 * tool using the canonical weight names.
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a missing or malformed file.
 */
export async function loadWeights(path: string): Promise<{
  /** The tensors, by canonical name. */
  weights: WeightMap;
  /** The model config stored in the file's metadata, when there is one. */
  config?: ModelConfig;
}> {
  const file = await loadSafetensors(path);
  const json = file.metadata[CONFIG_METADATA_KEY];
  if (json === undefined) return { weights: file.weights };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, `JSON in "${CONFIG_METADATA_KEY}"`, cause), {
      cause,
    });
  }
  return { weights: file.weights, config: ModelConfig.parse(raw) };
}

/**
 * Creates an {@link OnnxModel} from a safetensors file: its config comes from the file's metadata, or from
 * `options.config` when given.
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a bad file or a file without config when none is passed; see
 * {@link createModel} for the rest.
 */
export async function loadModel(
  path: string,
  options: Omit<CreateModelOptions, 'weights' | 'seed'> & { readonly config?: ModelConfig } = {},
): Promise<OnnxModel> {
  const { weights, config: saved } = await loadWeights(path);
  const config = options.config ?? saved;
  if (config === undefined) throw new DantinoxError('IO', messages.weightsWithoutConfig(path));
  const { config: _config, ...rest } = options;
  return createModel(config, { ...rest, weights });
}
