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
  const config = configOfMetadata(path, file.metadata);
  return config === undefined ? { weights: file.weights } : { weights: file.weights, config };
}

/**
 * The model config stored in the metadata of the safetensors file `path` (written by {@link saveWeights}), or
 * `undefined` when it holds none.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the stored config is not JSON; `INVALID_MODEL_CONFIG` when it is
 * not a valid config.
 */
export function configOfMetadata(
  path: string,
  metadata: Readonly<Record<string, string>>,
): ModelConfig | undefined {
  const json = metadata[CONFIG_METADATA_KEY];
  if (json === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, `JSON in "${CONFIG_METADATA_KEY}"`, cause), {
      cause,
    });
  }
  return ModelConfig.parse(raw);
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
