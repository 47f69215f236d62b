/**
 * `--config` / `--model` / `--paradigm`: what `dantinox bench` will benchmark, validated without building
 * anything (this module loads no runtime, so usage errors are reported at once).
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { findBrowser } from './engines/browser/find-browser.js';
import type { EngineName } from './engines/engine-name.js';
import { defaultEngines } from './engines/engine-registry.js';
import type { ExecutionProvider } from './engines/ort/index.js';
import type { TargetName } from './engines/target-name.js';
import { hfDtypeFile } from './hf/hf-dtype-files.js';
import { ModelConfig, type ParadigmKind } from './model-config.js';
import { modelFolderConfig } from './model-folder.js';
import {
  BUILTIN_DTYPES,
  type BuiltinDtype,
  hfOnnxFile,
  resolvePrecision,
  type WeightPrecision,
} from './onnx/precision.js';
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
  /** `--target`: where the model runs. @default 'node' */
  readonly target?: TargetName;
  /** `--browser-path`: the Chromium executable of the browser target. @default found on `PATH` */
  readonly browserPath?: string;
  /** `--no-isolation`: serve the browser target's page without COOP/COEP. @default true */
  readonly isolated?: boolean;
  /** Intra-op threads; engine default when undefined. */
  readonly threads?: number;
  /** `--ep`: ONNX Runtime execution provider, checked against the binding before any weights are built. */
  readonly executionProvider?: ExecutionProvider;
  /** Seed of the random weights of a built-in model. */
  readonly seed: number;
  /** Build even when the memory estimate exceeds the available memory (`--force`). */
  readonly force?: boolean;
  /** `--dtype`: the weight dtype (built-in: quantized from the fp32 weights; `--model`: that file). @default fp32 */
  readonly dtype?: string;
  /** `--head-dtype`: dtype of a built-in model's LM head. @default `dtype` */
  readonly headDtype?: string;
  /** `--block-size`: K values per 4-bit block of a built-in `q4` model. @default 32 */
  readonly blockSize?: number;
  /** `--reference`: the folder of the kld task's reference model. */
  readonly reference?: string;
  /** `--reference-engine`: the engine that runs the kld task's (fp32) reference. @default 'ort' */
  readonly referenceEngine?: EngineName;
}

/** A checked selection: the built-in config to build (absent for a Hugging Face folder) and its name. */
export interface CheckedSelection {
  /** The validated config of a built-in model; `undefined` for `--model`. */
  readonly config?: ModelConfig;
  /** Preset name, config path or folder name. */
  readonly name: string;
  /** Whether `name` is a built-in preset. */
  readonly isPreset: boolean;
  /** The checked weight precision of a built-in model (`undefined` for `--model`). */
  readonly precision?: WeightPrecision;
  /** The dtype file to load from a `--model` folder (`undefined` for a built-in model). */
  readonly dtype?: BuiltinDtype;
  /** The absolute `--reference` folder, when given. */
  readonly reference?: string;
  /**
   * The dantinox model folder (absolute) whose weights and tokenizer the built-in `config` runs: a trained
   * preset's shipped folder, or `--model` of such a folder (a trained model; see `model-folder.ts`).
   */
  readonly weightsFolder?: string;
}

/** The preset `dantinox bench` runs when neither `--config` nor `--model` is given: the trained one. */
export const DEFAULT_PRESET = 'brown';

/**
 * Checks the selection without building anything (fast, so usage errors come before any model is built) and
 * returns the validated built-in config, when there is one.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for `--config` with `--model` or `--paradigm` with `--model`,
 * an unknown or unrunnable dtype or block size; `IO` for a missing model or reference folder, or a folder
 * without the asked dtype's file (listing the dtypes it has); and the errors of {@link resolveModelConfig}.
 */
export function checkModelSelection(selection: ModelSelection, cwd: string): CheckedSelection {
  if (selection.model !== undefined && selection.config !== undefined)
    throw new DantinoxError('INVALID_OPTION', messages.configAndModel());
  const modelFolder = selection.model === undefined ? undefined : folderOf(selection.model, cwd, '--model');
  // A dantinox model folder is a built-in config with its own weights: every engine runs it like a preset.
  const trained = modelFolder === undefined ? undefined : modelFolderConfig(modelFolder);
  const referenceFolder = selection.reference ?? (trained === undefined ? selection.model : undefined);
  if (selection.referenceEngine !== undefined && referenceFolder !== undefined)
    defaultEngines.check(selection.referenceEngine, { source: { kind: 'folder', path: referenceFolder } });
  const reference =
    selection.reference === undefined ? {} : { reference: checkedReference(selection.reference, cwd) };
  const engine = selection.engine ?? 'ort';
  const request = {
    ...(selection.dtype === undefined ? {} : { dtype: selection.dtype }),
    ...(selection.headDtype === undefined ? {} : { headDtype: selection.headDtype }),
    ...(selection.executionProvider === undefined ? {} : { executionProvider: selection.executionProvider }),
    ...(selection.target === undefined ? {} : { target: selection.target }),
  };
  if (modelFolder !== undefined && trained === undefined) {
    defaultEngines.check(engine, { source: { kind: 'folder', path: selection.model as string }, ...request });
    if (selection.paradigm !== undefined && selection.paradigm !== 'ar') {
      throw new DantinoxError('INVALID_OPTION', messages.paradigmOnLoadedModel(selection.paradigm));
    }
    const dtype = checkFolderDtype(modelFolder, selection.dtype ?? 'fp32');
    return { name: basename(modelFolder), isPreset: false, dtype, ...reference };
  }
  defaultEngines.check(engine, { source: { kind: 'config' }, ...request });
  // The browser is looked for now: a missing one is a usage error, not a failed variant after a model was built.
  if (selection.target === 'browser') findBrowser(selection.browserPath);
  const resolved =
    trained === undefined || modelFolder === undefined
      ? resolveModelConfig(selection.config ?? DEFAULT_PRESET, cwd)
      : { config: trained, name: basename(modelFolder), isPreset: false, weightsFolder: modelFolder };
  // Trained weights are trained for their paradigm: another would run them on a task they never learned.
  if (
    resolved.weightsFolder !== undefined &&
    selection.paradigm !== undefined &&
    selection.paradigm !== resolved.config.paradigm
  )
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.paradigmOnTrainedModel(selection.paradigm, resolved.config.paradigm),
    );
  const config =
    selection.paradigm === undefined || selection.paradigm === resolved.config.paradigm
      ? resolved.config
      : withParadigm(resolved.config, selection.paradigm);
  const { dtype, headDtype, blockSize } = selection;
  const precision = resolvePrecision(config, {
    ...(dtype === undefined ? {} : { dtype }),
    ...(headDtype === undefined ? {} : { headDtype }),
    ...(blockSize === undefined ? {} : { blockSize }),
  });
  return {
    config,
    name: resolved.name,
    isPreset: resolved.isPreset,
    precision,
    ...reference,
    ...(resolved.weightsFolder === undefined ? {} : { weightsFolder: resolved.weightsFolder }),
  };
}

/**
 * The name a checked model runs under (its `ModelInfo.name`, the `model` column of its report): a preset's name, a
 * config file's name without its directory and YAML/JSON extension, or a `--model` folder's name.
 */
export function checkedModelName(checked: CheckedSelection): string {
  if (checked.config === undefined || checked.isPreset) return checked.name;
  return basename(checked.name).replace(/\.(ya?ml|json)$/i, '');
}

/**
 * The name the kld task's reference runs under (its `ModelInfo.name`): the `--reference` folder's name; else, for
 * `--model`, that folder's name; else the built-in model's — each followed by ` (reference)`.
 */
export function referenceModelName(
  selection: ModelSelection,
  checked: CheckedSelection,
  cwd: string,
): string {
  const folder =
    checked.reference ?? (checked.config === undefined ? resolve(cwd, selection.model as string) : undefined);
  return `${folder === undefined ? checked.name : basename(folder)} (reference)`;
}

/** The absolute path of an existing folder given with `flag`. @throws `IO` when it is missing or a file. */
function folderOf(path: string, cwd: string, flag: '--model' | '--reference'): string {
  const folder = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new DantinoxError('IO', messages.modelFolderMissing(path, flag));
  }
  return folder;
}

/**
 * The absolute `--reference` folder, which the kld task loads in fp32.
 * @throws `IO` when it is missing, or lacks `config.json` or the fp32 graph (`onnx/model.onnx`).
 */
function checkedReference(path: string, cwd: string): string {
  const folder = folderOf(path, cwd, '--reference');
  const missing = ['config.json', join('onnx', hfOnnxFile('fp32'))].filter(
    (f) => !existsSync(join(folder, f)),
  );
  if (missing.length > 0) throw new DantinoxError('IO', messages.referenceFolderIncomplete(path, missing));
  return folder;
}

/** The dtype to load from a folder: a known one whose file the folder has. */
function checkFolderDtype(folder: string, dtype: string): BuiltinDtype {
  if (!(BUILTIN_DTYPES as readonly string[]).includes(dtype)) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.dtypeNotAvailable(dtype, 'Hugging Face ONNX folders', BUILTIN_DTYPES),
    );
  }
  hfDtypeFile(folder, dtype as BuiltinDtype);
  return dtype as BuiltinDtype;
}

/** `config` with another paradigm (and the mask/causality that follow from it). */
function withParadigm(config: ModelConfig, paradigm: ParadigmKind): ModelConfig {
  const { causal: _causal, ...rest } = config;
  return ModelConfig.parse({ ...rest, paradigm });
}
