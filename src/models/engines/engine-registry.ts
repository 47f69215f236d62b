/**
 * The engine registry: one adapter per engine (`ort`, `llama.cpp`, `transformers.js`) saying what it can create
 * and load, the dtypes it runs, whether it takes an execution provider or a separate head dtype — and why it
 * cannot run a selection. {@link createEngineModel} and {@link loadEngineModel} go through it; so does the
 * check of a selection before any model is built.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { type RegisterOptions, Registry } from '../../registry.js';
import type { HfTokenizerFiles } from '../hf/hf-tokenizer-json.js';
import type { Model } from '../model.js';
import type { ModelConfig } from '../model-config.js';
import { type CreateModelOptions, createModel } from '../onnx/onnx-model.js';
import { BUILTIN_DTYPES, type BuiltinDtype, resolvePrecision } from '../onnx/precision.js';
import { initWeights, type WeightMap } from '../weights.js';
import type { EngineName } from './engine-name.js';
import type { ExecutionProvider } from './ort/index.js';
import type { TargetName } from './target-name.js';

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
  /**
   * The model's own tokenizer (a trained model's `tokenizer.json`), used by its text tasks and written into the
   * GGUF or Hugging Face export the engine runs. @default the built-in tokenizer of the vocabulary size
   */
  readonly tokenizer?: HfTokenizerFiles;
  /** ONNX Runtime execution provider (`ort` only; the other engines run on the CPU). @default 'cpu' */
  readonly executionProvider?: ExecutionProvider;
  /**
   * Build even when the memory estimate exceeds the available memory (`ort`); on the browser target, accept a
   * fallback (software) WebGPU adapter. @default false
   */
  readonly force?: boolean;
  /**
   * Turn on ONNX Runtime's profiler, writing its Chrome trace to `${profileFilePrefix}_<date>.json` when the model
   * is disposed (engines with `operatorProfile` only; the others ignore it). @default undefined (no profiling)
   */
  readonly profileFilePrefix?: string;
  /** Where the model runs: this process, or onnxruntime-web in a headless Chromium (`ort` only). @default 'node' */
  readonly target?: TargetName;
  /** The Chromium executable of the browser target. @default found on `PATH`, else `/usr/bin/chromium` */
  readonly browserPath?: string;
  /**
   * Serve the browser target's page cross-origin isolated. `false` measures what a page without COOP/COEP gets
   * (one WASM thread, a 100 µs timer). @default true
   */
  readonly isolated?: boolean;
  /**
   * Sequences of every llama.cpp context (`llama.cpp` only; the others ignore it): given, the model implements
   * `rowBatching` for continuous batching of up to that many rows (`dantinox serve` passes `--max-batch`).
   * @default undefined (no row batching on llama.cpp)
   */
  readonly rowsPerContext?: number;
}

/**
 * Options of {@link loadEngineModel}: threads, name, execution provider, profiler, where it runs (`target`,
 * `browserPath`, `isolated`, `force` for the browser target) and the dtype file to load.
 */
export type EngineLoadOptions = Pick<
  EngineModelOptions,
  | 'threads'
  | 'name'
  | 'executionProvider'
  | 'profileFilePrefix'
  | 'target'
  | 'browserPath'
  | 'isolated'
  | 'force'
> & {
  /** The dtype file of the folder. @default 'fp32' */
  readonly dtype?: BuiltinDtype;
};

/** Where a model comes from: a built-in config, or a Hugging Face ONNX folder. */
export type EngineSource = ConfigSource | FolderSource;

/** A built-in config (a preset or a config file), built with seeded or given weights. */
export interface ConfigSource {
  /** The kind of source. */
  readonly kind: 'config';
}

/** A Hugging Face ONNX folder. */
export interface FolderSource {
  /** The kind of source. */
  readonly kind: 'folder';
  /** The folder, as given (messages name it so). */
  readonly path: string;
}

/** What a selection asks an engine to run, as {@link EngineRegistry.whyNot} checks it. */
export interface EngineRequest {
  /** A built-in config, or a Hugging Face ONNX folder. */
  readonly source: EngineSource;
  /** Weight dtype. @default 'fp32' */
  readonly dtype?: string;
  /** Dtype of the LM head. @default dtype */
  readonly headDtype?: string;
  /** Execution provider. @default 'cpu' */
  readonly executionProvider?: string;
  /** Where it runs. @default 'node' */
  readonly target?: TargetName;
}

/** One engine: what it runs, and how it creates and loads a {@link Model}. */
export interface EngineAdapter {
  /** Registry name (`--engine`). */
  readonly name: string;
  /** One line: what runs the model. */
  readonly description: string;
  /**
   * The package that runs it: the first word of the `engine` column of its models' reports (`onnxruntime-node
   * 1.30.0 (cpu)`), by which `bench --resume` tells a run of another engine. Absent: not told apart.
   */
  readonly runtime?: string;
  /** Weight dtypes it runs. */
  readonly dtypes: readonly BuiltinDtype[];
  /** Whether it loads Hugging Face ONNX folders (else built-in configs only). */
  readonly loadsFolders: boolean;
  /** Whether it takes an execution provider other than the CPU. */
  readonly executionProviders: boolean;
  /** Whether the LM head may have its own dtype. */
  readonly separateHeadDtype: boolean;
  /** Whether ONNX Runtime's operator profiler can time it (`--profile`). */
  readonly operatorProfile: boolean;
  /** Where it can run (`--target`). @default ['node'] */
  readonly targets?: readonly TargetName[];
  /** The built-in model `config` on this engine. */
  create(config: ModelConfig, options: EngineModelOptions): Promise<Model>;
  /** The Hugging Face ONNX folder on this engine (called only when `loadsFolders`). */
  load(folder: string, options: EngineLoadOptions): Promise<Model>;
}

/** The seeded (or given) fp32 weights of `config`, after the precision options are checked. */
function sourceOf(config: ModelConfig, options: EngineModelOptions) {
  // Checked before any weights are made: a bad dtype or block size fails at once.
  const precision = resolvePrecision(config, options);
  return {
    precision,
    source: { config, weights: options.weights ?? initWeights(config, options.seed ?? 0) },
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** The built-in engines, by name (a literal map: registering them has no import side effect). */
export const builtinEngines: Readonly<Record<EngineName, EngineAdapter>> = {
  ort: {
    name: 'ort',
    description: "dantinox's own ONNX graphs (or a Hugging Face ONNX folder) on onnxruntime-node",
    runtime: 'onnxruntime-node',
    dtypes: BUILTIN_DTYPES,
    loadsFolders: true,
    executionProviders: true,
    separateHeadDtype: true,
    operatorProfile: true,
    targets: ['node', 'browser'],
    create: async (config, options) => {
      if (options.target !== 'browser') return createModel(config, { seed: 0, ...options });
      const { createBrowserModel } = await import('./browser/browser-model.js');
      const { target: _browser, ...rest } = options;
      return createBrowserModel(config, rest);
    },
    load: async (folder, options) => {
      const { target, browserPath, isolated, force, ...rest } = options;
      if (target === 'browser') {
        const { loadBrowserHfModel } = await import('./browser/load-browser-hf-model.js');
        const { profileFilePrefix: _none, ...browser } = rest;
        return loadBrowserHfModel(folder, {
          ...browser,
          ...optional('browserPath', browserPath),
          ...optional('isolated', isolated),
          ...optional('force', force),
        });
      }
      const { loadHfModel } = await import('../hf/hf-model.js');
      return loadHfModel(folder, rest);
    },
  },
  'llama.cpp': {
    name: 'llama.cpp',
    description: 'a GGUF export of the same weights (F32/F16/Q8_0/Q4_0) run by node-llama-cpp',
    runtime: 'node-llama-cpp',
    dtypes: BUILTIN_DTYPES,
    loadsFolders: false,
    executionProviders: false,
    separateHeadDtype: false,
    operatorProfile: false,
    create: async (config, options) => {
      const { precision, source } = sourceOf(config, options);
      const { createLlamaCppModel } = await import('./llama-cpp/create-llama-cpp-model.js');
      return createLlamaCppModel(source, {
        dtype: precision.dtype,
        ...optional('tokenizer', options.tokenizer),
        ...optional('threads', options.threads),
        ...optional('name', options.name),
        ...optional('rowsPerContext', options.rowsPerContext),
      });
    },
    load: (folder) =>
      Promise.reject(new DantinoxError('UNSUPPORTED', messages.engineNeedsBuiltin('llama.cpp', folder))),
  },
  'transformers.js': {
    name: 'transformers.js',
    description:
      'a Hugging Face ONNX export of the same weights (or a folder) run by @huggingface/transformers',
    runtime: '@huggingface/transformers',
    dtypes: BUILTIN_DTYPES,
    loadsFolders: true,
    executionProviders: false,
    separateHeadDtype: true,
    operatorProfile: false,
    create: async (config, options) => {
      const { precision, source } = sourceOf(config, options);
      const { createTransformersJsModel } = await import('./transformers-js/create-transformers-js-model.js');
      return createTransformersJsModel(source, {
        precision,
        ...optional('tokenizer', options.tokenizer),
        ...optional('threads', options.threads),
        ...optional('name', options.name),
      });
    },
    load: async (folder, options) => {
      const { loadTransformersJsModel } = await import('./transformers-js/transformers-js-model.js');
      const { executionProvider: _cpu, ...rest } = options;
      return loadTransformersJsModel(folder, rest);
    },
  },
};

/** Engines by name: the built-ins, and any registered by a plugin. */
export class EngineRegistry extends Registry<EngineAdapter> {
  constructor() {
    super('engine');
  }

  /**
   * Registers `adapter` under its `name`.
   *
   * @throws {@link dantinox!DantinoxError} `DUPLICATE_PLUGIN` when the name is taken and `override` is not set.
   */
  register(adapter: EngineAdapter, options: RegisterOptions = {}): void {
    this.add(adapter.name, adapter, options);
  }

  /**
   * Why `engine` cannot run `request` (a sentence naming the flag to change), or `undefined` when it can.
   *
   * @throws {@link dantinox!DantinoxError} `UNKNOWN_PLUGIN` for an unknown engine.
   */
  whyNot(engine: string, request: EngineRequest): string | undefined {
    const adapter = this.get(engine);
    const target = request.target ?? 'node';
    if (!(adapter.targets ?? ['node']).includes(target)) return messages.targetNeedsOrt(engine, target);
    if (target === 'browser') {
      const provider = request.executionProvider;
      if (provider !== undefined && !['cpu', 'wasm', 'webgpu'].includes(provider))
        return messages.browserProvider(provider);
    }
    if (request.source.kind === 'folder' && !adapter.loadsFolders)
      return messages.engineNeedsBuiltin(engine, request.source.path);
    const provider = request.executionProvider;
    if (provider !== undefined && provider !== 'cpu' && !adapter.executionProviders)
      return messages.engineCpuOnly(engine, provider);
    const dtype = request.dtype ?? 'fp32';
    if (request.source.kind === 'config' && !adapter.separateHeadDtype) {
      const head = request.headDtype ?? dtype;
      if (head !== dtype) return messages.ggufOneDtype(dtype, head);
    }
    return undefined;
  }

  /**
   * Checks that `engine` can run `request`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` with {@link EngineRegistry.whyNot}'s reason; `UNKNOWN_PLUGIN`
   * for an unknown engine.
   */
  check(engine: string, request: EngineRequest): void {
    const reason = this.whyNot(engine, request);
    if (reason !== undefined) throw new DantinoxError('INVALID_OPTION', reason);
  }
}

/** Options of {@link createEngineRegistry}. */
export interface CreateEngineRegistryOptions {
  /** Start with the built-in engines of {@link builtinEngines}. @default true */
  readonly builtins?: boolean;
}

/** A new engine registry, with the built-in engines unless `builtins: false`. */
export function createEngineRegistry(options: CreateEngineRegistryOptions = {}): EngineRegistry {
  const registry = new EngineRegistry();
  if (options.builtins !== false)
    for (const adapter of Object.values(builtinEngines)) registry.register(adapter);
  return registry;
}

/** The built-in engines: the registry {@link createEngineModel}, {@link loadEngineModel} and selection checks use by default. */
export const defaultEngines: EngineRegistry = createEngineRegistry();

/**
 * The built-in model `config` on `engine`: `ort` builds the ONNX graph, `llama.cpp` runs a GGUF export of the
 * same weights, `transformers.js` a Hugging Face export of them.
 *
 * @example
 * ```ts
 * const model = await createEngineModel('llama.cpp', ModelConfig.preset('small'), { threads: 2, dtype: 'q8' });
 * ```
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when the engine cannot run the options (see
 * {@link EngineRegistry.whyNot}); the errors of the engine's model creation.
 */
export async function createEngineModel(
  engine: EngineName,
  config: ModelConfig,
  options: EngineModelOptions = {},
  registry: EngineRegistry = defaultEngines,
): Promise<Model> {
  registry.check(engine, {
    source: { kind: 'config' },
    ...optional('dtype', options.dtype),
    ...optional('headDtype', options.headDtype),
    ...optional('executionProvider', options.executionProvider),
    ...optional('target', options.target),
  });
  return registry.get(engine).create(config, options);
}

/**
 * The Hugging Face ONNX folder `folder` on `engine`: dantinox's loader on ONNX Runtime (`ort`) or
 * transformers.js. llama.cpp needs a GGUF file: export built-in models with `exportGguf`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for an engine that loads no folder (`llama.cpp`) or an execution
 * provider it does not take; the errors of the loaders otherwise.
 */
export async function loadEngineModel(
  engine: EngineName,
  folder: string,
  options: EngineLoadOptions = {},
  registry: EngineRegistry = defaultEngines,
): Promise<Model> {
  registry.check(engine, {
    source: { kind: 'folder', path: folder },
    ...optional('executionProvider', options.executionProvider),
    ...optional('target', options.target),
  });
  return registry.get(engine).load(folder, options);
}
