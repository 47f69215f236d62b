/**
 * `exportModel`: what `dantinox export` does — a built-in model (seeded random weights, or the weights and config
 * of a safetensors file) written as a GGUF file for llama.cpp or a Hugging Face ONNX folder for transformers.js,
 * or such a folder converted to GGUF — with the output claimed first, so a file or model is never silently replaced.
 *
 * @packageDocumentation
 */
import { isAbsolute, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { GgufExportResult, HfExportResult, HfTokenizerFiles, WeightMap } from '../models/index.js';
import { DEFAULT_PRESET } from '../models/model-selection.js';
import type { BuiltinDtype } from '../models/onnx/precision.js';
import { resolveModelConfig } from '../models/resolve-model-config.js';
import { claimModelFolder, claimOutFile } from './output-dir.js';

/** What to export, and where. */
export interface ExportModelInput {
  /** Preset name or YAML/JSON config of a built-in model. @default the default preset (without `weights`) */
  readonly config?: string;
  /** A safetensors file with the weights (and the config, when `config` is not given). */
  readonly weights?: string;
  /** A Hugging Face folder written by a `hf` export, converted to GGUF (alone: no `config`, `weights`, `hf`). */
  readonly model?: string;
  /**
   * A Hugging Face `tokenizer.json` the export carries (its `tokenizer_config.json` beside it is read too), e.g. the
   * BPE a model was trained with. @default a trained preset's own tokenizer, else the built-in one of the
   * vocabulary size (bytes for 256 ids, GPT-2's BPE from 50,257; none for other sizes: then this is required)
   */
  readonly tokenizer?: string;
  /** Seed of the random weights (without `weights`). @default 0 */
  readonly seed?: number;
  /** `gguf` (a llama.cpp file) or `hf` (a Hugging Face ONNX folder). @default 'gguf' */
  readonly format?: 'gguf' | 'hf';
  /** Matrix dtype: GGUF F32, F16, Q8_0, Q4_0; for `hf`, `model.onnx` plus that dtype's file. @default 'fp32' */
  readonly dtype?: BuiltinDtype;
  /** The GGUF file, or the folder for `hf` (relative to `cwd`). */
  readonly out: string;
  /** Base of relative paths. @default process.cwd() */
  readonly cwd?: string;
  /** Replace an existing file, or the model files of an existing folder. @default false */
  readonly force?: boolean;
}

/** What {@link exportModel} wrote: a union on `format`. */
export type ModelExport =
  | {
      /** A GGUF file. */
      readonly format: 'gguf';
      /** What it holds. */
      readonly result: GgufExportResult;
    }
  | {
      /** A Hugging Face ONNX folder. */
      readonly format: 'hf';
      /** What it holds. */
      readonly result: HfExportResult;
    };

/**
 * Exports a model as `input` says.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for `model` with `config`, `weights`, `tokenizer` or `hf`, or an `out`
 * that exists (without `force`); the errors of the config, weights and exporters.
 */
export async function exportModel(input: ExportModelInput): Promise<ModelExport> {
  const cwd = input.cwd ?? process.cwd();
  const at = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  const force = input.force === true;
  const format = input.format ?? 'gguf';
  const dtype = input.dtype ?? 'fp32';
  const models = await import('../models/index.js');
  if (input.model !== undefined) {
    if (
      input.config !== undefined ||
      input.weights !== undefined ||
      input.tokenizer !== undefined ||
      format !== 'gguf'
    )
      throw new DantinoxError('INVALID_OPTION', messages.exportModelAlone());
    return {
      format: 'gguf',
      result: models.exportGguf(at(input.model), claimOutFile(input.out, cwd, force), { dtype }),
    };
  }
  const resolved = resolveModelConfig(input.config ?? DEFAULT_PRESET, cwd);
  let config = resolved.config;
  let weights: WeightMap;
  let tokenizer: HfTokenizerFiles | undefined =
    input.tokenizer === undefined ? undefined : models.loadHfTokenizerFiles(at(input.tokenizer));
  if (input.weights === undefined && resolved.weightsFolder !== undefined) {
    // A trained preset: its weights, and its own tokenizer unless one is given.
    const folder = await models.readModelFolder(resolved.weightsFolder);
    weights = folder.weights;
    tokenizer ??= folder.tokenizer;
  } else if (input.weights === undefined) weights = models.initWeights(config, input.seed ?? 0);
  else {
    const loaded = await models.loadWeights(at(input.weights));
    if (input.config === undefined && loaded.config !== undefined) config = loaded.config;
    weights = loaded.weights;
  }
  if (format === 'hf') {
    const folder = claimModelFolder(input.out, cwd, force);
    const result = models.exportHfModel(config, weights, folder.path, {
      dtypes: dtype === 'fp32' ? ['fp32'] : ['fp32', dtype],
      ...(tokenizer === undefined ? {} : { tokenizer }),
      beforeWrite: folder.clear,
    });
    return { format: 'hf', result };
  }
  return {
    format: 'gguf',
    result: models.exportGguf({ config, weights }, claimOutFile(input.out, cwd, force), {
      dtype,
      ...(tokenizer === undefined ? {} : { tokenizer }),
    }),
  };
}
