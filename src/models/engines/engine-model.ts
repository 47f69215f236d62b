/**
 * One entry point per source for every engine: {@link createEngineModel} (a built-in config with seeded or
 * given weights) and {@link loadEngineModel} (a Hugging Face ONNX folder). The non-ORT engines load lazily.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { loadHfModel } from '../hf/hf-model.js';
import type { Model } from '../model.js';
import type { ModelConfig } from '../model-config.js';
import { type CreateModelOptions, createModel } from '../onnx/onnx-model.js';
import { type BuiltinDtype, resolvePrecision } from '../onnx/precision.js';
import { initWeights, type WeightMap } from '../weights.js';
import type { EngineName } from './engine-name.js';
import type { ExecutionProvider } from './ort/index.js';

/**
 * Options of {@link createEngineModel} and {@link loadEngineModel}. The precision options (`dtype`, `headDtype`,
 * `blockSize`, `accuracyLevel`) are `createModel`'s: every engine quantizes the same fp32 weights (llama.cpp into
 * GGUF F32/F16/Q8_0/Q4_0, which has one dtype for every matrix).
 */
export interface EngineModelOptions
  extends Pick<CreateModelOptions, 'dtype' | 'headDtype' | 'blockSize' | 'accuracyLevel'> {
  /** Threads of the engine (intra-op threads for ONNX Runtime). @default os.availableParallelism() */
  readonly threads?: number;
  /** Name reported in `info.name`. */
  readonly name?: string;
  /** Seed of the random weights (built-in configs without `weights`). @default 0 */
  readonly seed?: number;
  /** Weights instead of a seeded initialisation. */
  readonly weights?: WeightMap;
  /** ONNX Runtime execution provider (`ort` only; the other engines run on the CPU). @default 'cpu' */
  readonly executionProvider?: ExecutionProvider;
  /** Build even when the memory estimate exceeds the available memory (`ort`). @default false */
  readonly force?: boolean;
}

/** Refuses an execution provider other than the CPU for an engine that has no other. */
function checkCpuOnly(engine: EngineName, executionProvider: ExecutionProvider | undefined): void {
  if (executionProvider !== undefined && executionProvider !== 'cpu') {
    throw new DantinoxError('INVALID_OPTION', messages.engineCpuOnly(engine, executionProvider));
  }
}

/**
 * The built-in model `config` on `engine`: `ort` builds the ONNX graph, `llama.cpp` runs a GGUF export of the
 * same weights, `transformers.js` a Hugging Face export of them.
 *
 * @example
 * ```ts
 * const model = await createEngineModel('llama.cpp', ModelConfig.preset('small'), { threads: 2, dtype: 'q8' });
 * ```
 * @throws the errors of `createModel`, `createLlamaCppModel` or `createTransformersJsModel`.
 */
export async function createEngineModel(
  engine: EngineName,
  config: ModelConfig,
  options: EngineModelOptions = {},
): Promise<Model> {
  const threads = options.threads === undefined ? {} : { threads: options.threads };
  const name = options.name === undefined ? {} : { name: options.name };
  if (engine === 'ort') return createModel(config, { seed: 0, ...options });
  checkCpuOnly(engine, options.executionProvider);
  // Checked before any weights are made: a bad dtype or block size fails at once.
  const precision = resolvePrecision(config, options);
  const source = { config, weights: options.weights ?? initWeights(config, options.seed ?? 0) };
  if (engine === 'llama.cpp') {
    if (precision.headDtype !== precision.dtype)
      throw new DantinoxError('INVALID_OPTION', messages.ggufOneDtype(precision.dtype, precision.headDtype));
    const { createLlamaCppModel } = await import('./llama-cpp/create-llama-cpp-model.js');
    return createLlamaCppModel(source, { dtype: precision.dtype, ...threads, ...name });
  }
  const { createTransformersJsModel } = await import('./transformers-js/create-transformers-js-model.js');
  return createTransformersJsModel(source, { precision, ...threads, ...name });
}

/**
 * The Hugging Face ONNX folder `folder` on `engine`: dantinox's loader on ONNX Runtime (`ort`) or
 * transformers.js. llama.cpp needs a GGUF file: export built-in models with `exportGguf`.
 *
 * @throws {@link DantinoxError} `UNSUPPORTED` for `llama.cpp`; the errors of the loaders otherwise.
 */
export async function loadEngineModel(
  engine: EngineName,
  folder: string,
  options: Pick<EngineModelOptions, 'threads' | 'name' | 'executionProvider'> & {
    readonly dtype?: BuiltinDtype;
  } = {},
): Promise<Model> {
  if (engine === 'llama.cpp')
    throw new DantinoxError('UNSUPPORTED', messages.engineNeedsBuiltin(engine, folder));
  if (engine === 'ort') return loadHfModel(folder, options);
  checkCpuOnly(engine, options.executionProvider);
  const { loadTransformersJsModel } = await import('./transformers-js/transformers-js-model.js');
  const { executionProvider: _cpu, ...rest } = options;
  return loadTransformersJsModel(folder, rest);
}
