/**
 * `--config` / `--model` / `--paradigm`: what `dantinox bench` will benchmark, validated without building
 * anything (this module loads no runtime, so usage errors are reported at once).
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { EngineName } from '../models/engines/engine-name.js';
import type { ExecutionProvider } from '../models/engines/ort/index.js';
import { ModelConfig, type ParadigmKind } from '../models/model-config.js';
import { resolveModelConfig } from './resolve-model-config.js';

/** What to benchmark, as given on the command line. */
export interface ModelSelection {
  /** `--config`: preset name or config file. */
  readonly config?: string;
  /** `--model`: a Hugging Face ONNX folder. */
  readonly model?: string;
  /** `--paradigm`: overrides the config's paradigm (built-in models only). */
  readonly paradigm?: ParadigmKind;
  /** Engine that runs the model. @default 'ort' */
  readonly engine?: EngineName;
  /** Intra-op threads; engine default when undefined. */
  readonly threads?: number;
  /** `--ep`: ONNX Runtime execution provider, checked against the binding before any weights are built. */
  readonly executionProvider?: ExecutionProvider;
  /** Seed of the random weights of a built-in model. */
  readonly seed: number;
}

/** A checked selection: the built-in config to build (absent for a Hugging Face folder) and its name. */
export interface CheckedSelection {
  /** The validated config of a built-in model; `undefined` for `--model`. */
  readonly config?: ModelConfig;
  /** Preset name, config path or folder name. */
  readonly name: string;
  /** Whether `name` is a built-in preset. */
  readonly isPreset: boolean;
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
export function checkModelSelection(selection: ModelSelection, cwd: string): CheckedSelection {
  if (selection.model !== undefined) {
    if (selection.config !== undefined) throw new DantinoxError('INVALID_OPTION', messages.configAndModel());
    if (selection.engine === 'llama.cpp') {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.engineNeedsBuiltin(selection.engine, selection.model),
      );
    }
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
