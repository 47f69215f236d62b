/**
 * `--config` / `--model` / `--paradigm`: builds the built-in model or loads a Hugging Face ONNX folder, and
 * describes honestly what will be benchmarked.
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { loadHfModel } from '../models/hf/hf-model.js';
import { createModel, type Model, ModelConfig, Paradigm, type ParadigmKind } from '../models/index.js';
import { describeModel } from './describe-model.js';
import { resolveModelConfig } from './resolve-model-config.js';

/** What to benchmark, as given on the command line. */
export interface ModelSelection {
  /** `--config`: preset name or config file. */
  readonly config?: string;
  /** `--model`: a Hugging Face ONNX folder. */
  readonly model?: string;
  /** `--paradigm`: overrides the config's paradigm (built-in models only). */
  readonly paradigm?: ParadigmKind;
  /** Intra-op threads; engine default when undefined. */
  readonly threads?: number;
  /** Seed of the random weights of a built-in model. */
  readonly seed: number;
}

/** A model ready to benchmark, its paradigm and a one-line honest description. */
export interface OpenedModel {
  /** The model (dispose it when done). */
  readonly model: Model;
  /** Its paradigm. */
  readonly paradigm: Paradigm;
  /** What it is: name, where it came from, architecture, and whether its weights are trained. */
  readonly description: string;
}

/** The preset `dantinox bench` runs when neither `--config` nor `--model` is given. */
export const DEFAULT_PRESET = 'small';

/**
 * Checks the selection without building anything (fast, so usage errors come before any model is built) and
 * returns the validated built-in config, when there is one.
 *
 * @throws {@link DantinoxError} `INVALID_OPTION` for `--config` with `--model` or `--paradigm` with `--model`,
 * `IO` for a missing model folder, and the errors of {@link resolveModelConfig}.
 */
export function checkModelSelection(
  selection: ModelSelection,
  cwd: string,
): { config?: ModelConfig; name: string; isPreset: boolean } {
  if (selection.model !== undefined) {
    if (selection.config !== undefined) throw new DantinoxError('INVALID_OPTION', messages.configAndModel());
    if (selection.paradigm !== undefined && selection.paradigm !== 'ar') {
      throw new DantinoxError('INVALID_OPTION', messages.paradigmOnLoadedModel(selection.paradigm));
    }
    const folder = isAbsolute(selection.model) ? selection.model : resolve(cwd, selection.model);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      throw new DantinoxError('IO', messages.modelFolderMissing(selection.model));
    }
    return { name: basename(folder), isPreset: false };
  }
  const resolved = resolveModelConfig(selection.config ?? DEFAULT_PRESET, cwd);
  const config =
    selection.paradigm === undefined || selection.paradigm === resolved.config.paradigm
      ? resolved.config
      : withParadigm(resolved.config, selection.paradigm);
  return { config, name: resolved.name, isPreset: resolved.isPreset };
}

/** `config` with another paradigm (and the mask/causality that follow from it). */
function withParadigm(config: ModelConfig, paradigm: ParadigmKind): ModelConfig {
  const { causal: _causal, ...rest } = config;
  return ModelConfig.parse({ ...rest, paradigm });
}

/**
 * Builds (built-in config, seeded random weights) or loads (Hugging Face folder) the model.
 *
 * @throws the errors of {@link checkModelSelection}, `createModel` and `loadHfModel`.
 */
export async function openModel(selection: ModelSelection, cwd: string): Promise<OpenedModel> {
  const checked = checkModelSelection(selection, cwd);
  const threads = selection.threads === undefined ? {} : { threads: selection.threads };
  if (checked.config === undefined) {
    const folder = resolve(cwd, selection.model as string);
    const model = await loadHfModel(folder, threads);
    return {
      model,
      paradigm: Paradigm.for(model.config),
      description: `${model.info.name} (Hugging Face ONNX folder ${selection.model}, its own weights): ${describeModel(model.config)}`,
    };
  }
  const name = checked.isPreset ? checked.name : basename(checked.name).replace(/\.(ya?ml|json)$/i, '');
  const model = await createModel(checked.config, { seed: selection.seed, name, ...threads });
  const origin = checked.isPreset ? 'built-in preset' : `config ${checked.name}`;
  return {
    model,
    paradigm: Paradigm.for(model.config),
    description: `${name} (${origin}, untrained random weights with seed ${selection.seed}): ${describeModel(model.config)}`,
  };
}
