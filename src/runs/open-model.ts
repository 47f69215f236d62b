/**
 * `--config` / `--model` / `--paradigm`: builds the built-in model (seeded random weights, or a dantinox model
 * folder's trained ones) or loads a Hugging Face ONNX folder, and describes honestly what will be benchmarked.
 *
 * @packageDocumentation
 */
import { join, resolve } from 'node:path';
import type { OpProfiler, ProfilerUnavailable } from '../benchmarking/tasks/profile-task.js';
import { messages } from '../messages.js';
import { describeModel } from '../models/describe-model.js';
import {
  createEngineModel,
  defaultEngines,
  type EngineModelOptions,
  loadEngineModel,
} from '../models/engines/engine-registry.js';
import { profileModelCalls } from '../models/engines/ort/index.js';
import { hfDtypeFile } from '../models/hf/hf-dtype-files.js';
import { createModel, loadHfModel, type Model, type ModelConfig, Paradigm } from '../models/index.js';
import { MODEL_FOLDER_FILES, readModelFolder } from '../models/model-folder.js';
import {
  type CheckedSelection,
  checkedModelName,
  checkModelSelection,
  type ModelSelection,
  referenceModelName,
} from '../models/model-selection.js';
import { weightFileHash } from '../models/weight-file-bytes.js';

/** A model ready to benchmark, its paradigm and a one-line honest description. */
export interface OpenedModel {
  /** The model (dispose it when done). */
  readonly model: Model;
  /** Its paradigm. */
  readonly paradigm: Paradigm;
  /** What it is: name, where it came from, architecture, and whether its weights are trained. */
  readonly description: string;
  /** Whether the weights are a seeded random initialisation (built-in models) rather than trained ones. */
  readonly randomWeights: boolean;
  /** Which weights: `seed <n>` for a built-in model, `sha256:…` of the weight file for a folder. */
  readonly weights: string;
}

/** The engine options of a selection (threads and execution provider, when given). */
function engineOptions(selection: ModelSelection): Pick<ModelSelection, 'threads' | 'executionProvider'> {
  return {
    ...(selection.threads === undefined ? {} : { threads: selection.threads }),
    ...(selection.executionProvider === undefined ? {} : { executionProvider: selection.executionProvider }),
  };
}

/** Where a built-in model runs (`--target`, `--browser-path`, `--no-isolation`), when given. */
function targetOptions(
  selection: ModelSelection,
): Pick<ModelSelection, 'target' | 'browserPath' | 'isolated'> {
  return {
    ...(selection.target === undefined ? {} : { target: selection.target }),
    ...(selection.browserPath === undefined ? {} : { browserPath: selection.browserPath }),
    ...(selection.isolated === false ? { isolated: false } : {}),
  };
}

/**
 * Builds (built-in config with seeded random weights, or a dantinox model folder with its trained weights and own
 * tokenizer) or loads (Hugging Face folder) the model; with
 * `options.profileFilePrefix`, an engine with an operator profiler (ONNX Runtime) profiles every call; with
 * `options.rowsPerContext`, a llama.cpp model makes its contexts for that many rows and implements row batching.
 *
 * @throws the errors of {@link checkModelSelection}, `createModel` and `loadHfModel`.
 */
export async function openModel(
  selection: ModelSelection,
  cwd: string,
  options: { readonly profileFilePrefix?: string; readonly rowsPerContext?: number } = {},
): Promise<OpenedModel> {
  const checked = checkModelSelection(selection, cwd);
  const engine = {
    ...engineOptions(selection),
    ...(options.profileFilePrefix === undefined ? {} : { profileFilePrefix: options.profileFilePrefix }),
  };
  const rows = options.rowsPerContext === undefined ? {} : { rowsPerContext: options.rowsPerContext };
  if (checked.config === undefined) {
    const folder = resolve(cwd, selection.model as string);
    const model = await loadEngineModel(selection.engine ?? 'ort', folder, {
      ...engine,
      ...targetOptions(selection),
      ...(selection.force === true ? { force: true } : {}),
      dtype: checked.dtype ?? 'fp32',
    });
    return {
      model,
      paradigm: Paradigm.for(model.config),
      description: `${model.info.name} (Hugging Face ONNX folder ${selection.model}, its own weights): ${describeModel(model.config)}`,
      randomWeights: false,
      weights: weightFileHash(join(folder, hfDtypeFile(folder, checked.dtype ?? 'fp32'))),
    };
  }
  const name = checkedModelName(checked);
  const trained = await trainedWeights(checked);
  const model = await createEngineModel(selection.engine ?? 'ort', checked.config, {
    seed: selection.seed,
    name,
    ...engine,
    ...targetOptions(selection),
    ...(selection.force === true ? { force: true } : {}),
    ...(checked.precision ?? {}),
    ...rows,
    ...trained,
  });
  if (checked.weightsFolder !== undefined)
    return {
      model,
      paradigm: Paradigm.for(model.config),
      description: `${name} (${checked.isPreset ? 'built-in preset' : `dantinox model folder ${selection.model}`}, trained weights): ${describeModel(model.config)}`,
      randomWeights: false,
      weights: weightFileHash(join(checked.weightsFolder, MODEL_FOLDER_FILES.weights)),
    };
  const origin = checked.isPreset ? 'built-in preset' : `config ${checked.name}`;
  return {
    model,
    paradigm: Paradigm.for(model.config),
    description: `${name} (${origin}, untrained random weights with seed ${selection.seed}): ${describeModel(model.config)}`,
    randomWeights: true,
    weights: `seed ${selection.seed}`,
  };
}

/** The weights and own tokenizer of a checked dantinox model folder, as engine options (none for a config). */
async function trainedWeights(
  checked: CheckedSelection,
): Promise<Pick<EngineModelOptions, 'weights' | 'tokenizer'>> {
  if (checked.weightsFolder === undefined) return {};
  const folder = await readModelFolder(checked.weightsFolder);
  return {
    weights: folder.weights,
    ...(folder.tokenizer === undefined ? {} : { tokenizer: folder.tokenizer }),
  };
}

/**
 * Opens the kld task's reference for `selection`, in fp32 on `--reference-engine` (default `ort`): the
 * `--reference` folder's model; else, for `--model`, the fp32 file of the same folder; else the built-in model of
 * the same config and seed.
 *
 * @throws the errors of {@link checkModelSelection}, `createEngineModel` and `loadEngineModel`.
 */
export async function openReference(selection: ModelSelection, cwd: string): Promise<Model> {
  const checked = checkModelSelection(selection, cwd);
  const referenceEngine = selection.referenceEngine ?? 'ort';
  const engine = {
    ...(selection.threads === undefined ? {} : { threads: selection.threads }),
    // The execution provider only for an engine that takes one: the others run on the CPU.
    ...(defaultEngines.get(referenceEngine).executionProviders && selection.executionProvider !== undefined
      ? { executionProvider: selection.executionProvider }
      : {}),
  };
  const folder =
    checked.reference ?? (checked.config === undefined ? resolve(cwd, selection.model as string) : undefined);
  const name = referenceModelName(selection, checked, cwd);
  if (folder !== undefined)
    return loadEngineModel(referenceEngine, folder, { ...engine, dtype: 'fp32', name });
  return createEngineModel(referenceEngine, checked.config as ModelConfig, {
    seed: selection.seed,
    ...engine,
    name,
    ...(await trainedWeights(checked)),
  });
}

/**
 * The operator profiler of `selection` for `--profile`: ONNX Runtime's, on a second instance of the same model
 * (same config, seed, dtype, threads and execution provider, or the same folder and dtype) opened with profiling
 * on; for another engine, why there is none.
 */
export function opProfiler(selection: ModelSelection, cwd: string): OpProfiler | ProfilerUnavailable {
  const engine = selection.engine ?? 'ort';
  if (!defaultEngines.get(engine).operatorProfile)
    return { unavailable: messages.profileUnavailable(engine) };
  const open = async (profileFilePrefix: string): Promise<Model> => {
    const checked = checkModelSelection(selection, cwd);
    const options = { ...engineOptions(selection), profileFilePrefix };
    if (checked.config === undefined)
      return loadHfModel(resolve(cwd, selection.model as string), {
        ...options,
        dtype: checked.dtype ?? 'fp32',
      });
    return createModel(checked.config, {
      ...options,
      seed: selection.seed,
      name: `${checked.name} (profiled)`,
      ...(selection.force === true ? { force: true } : {}),
      ...(checked.precision ?? {}),
      ...(await trainedWeights(checked)),
    });
  };
  return (calls) => profileModelCalls(open, calls);
}
