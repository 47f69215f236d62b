/**
 * `TransformersJsModel`: a Hugging Face ONNX folder run by transformers.js (`@huggingface/transformers`, an
 * optional peer dependency loaded lazily), behind the {@link Model} contract: its `AutoModelForCausalLM` forward
 * with `past_key_values`, so prefill and decode steps go through transformers.js's own input preparation and
 * cache handling on top of its ONNX Runtime session.
 *
 * @packageDocumentation
 */
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { DantinoxError } from '../../../errors.js';
import { lazyImport } from '../../../lazy-import.js';
import { messages } from '../../../messages.js';
import { float16ToFloat32 } from '../../float16.js';
import { readHfConfig } from '../../hf/hf-config.js';
import { hfDtypeFile } from '../../hf/hf-dtype-files.js';
import { loadHfTokenizer } from '../../hf/hf-tokenizer.js';
import { onnxFileQuantization } from '../../hf/onnx-quantization.js';
import type { BatchShape, DecodeState, Logits, Model, ModelInfo, StepResult } from '../../model.js';
import type { ModelConfig } from '../../model-config.js';
import type { BuiltinDtype } from '../../onnx/precision.js';
import { checkTokenBatch, claimDecodeState } from '../../token-checks.js';
import type { Tokenizer } from '../../tokenizer.js';
import { weightFileBytes } from '../../weight-file-bytes.js';
import { countParameters } from '../../weights.js';
import { EngineDecodeState } from '../engine-decode-state.js';
import { checkThreads } from '../threads.js';

/** The `@huggingface/transformers` version dantinox is tested with. */
export const TRANSFORMERS_JS_VERSION = '4.3.2';

type TjsModule = typeof import('@huggingface/transformers');
type TjsTensor = InstanceType<TjsModule['Tensor']>;
type TjsCausalLm = Awaited<ReturnType<TjsModule['AutoModelForCausalLM']['from_pretrained']>>;

/** Options of {@link loadTransformersJsModel}. */
export interface LoadTransformersJsModelOptions {
  /** ONNX Runtime intra-op threads of transformers.js's session. @default os.availableParallelism() */
  readonly threads?: number;
  /** Which ONNX file transformers.js loads (`onnx/model.onnx`, `model_fp16.onnx`, …). @default 'fp32' */
  readonly dtype?: BuiltinDtype;
  /** Name reported in {@link ModelInfo.name}. @default the folder name */
  readonly name?: string;
  /** Delete the folder when the model is disposed (for temporary exports). @default false */
  readonly deleteFolderOnDispose?: boolean;
}

const loadTransformersJs = lazyImport(
  `@huggingface/transformers@${TRANSFORMERS_JS_VERSION}`,
  'The transformers.js engine',
  () => import('@huggingface/transformers'),
);

/** transformers.js's cache after a call: `past_key_values.{i}.key/value` tensors by input name. */
export class TransformersJsDecodeState extends EngineDecodeState<Readonly<Record<string, TjsTensor>>> {}

/** Releases cache tensors. */
const releaseTensors = (past: Readonly<Record<string, TjsTensor>>): void => {
  for (const t of Object.values(past)) t.dispose();
};

/** A Hugging Face ONNX folder run by transformers.js, implementing {@link Model}. Use {@link loadTransformersJsModel}. */
export class TransformersJsModel implements Model {
  /** The architecture, from `config.json`. */
  readonly config: ModelConfig;
  /** Identity, engine, threads and dtype. */
  readonly info: ModelInfo;
  /** The folder's `tokenizer.json`. */
  readonly tokenizer: Tokenizer;
  readonly #tjs: TjsModule;
  readonly #model: TjsCausalLm;
  readonly #token = {};
  readonly #deleteOnDispose: string | undefined;
  #disposed = false;

  /** Use {@link loadTransformersJsModel}. */
  constructor(
    config: ModelConfig,
    tokenizer: Tokenizer,
    tjs: TjsModule,
    model: TjsCausalLm,
    info: ModelInfo,
    deleteOnDispose?: string,
  ) {
    this.#deleteOnDispose = deleteOnDispose;
    this.config = config;
    this.tokenizer = tokenizer;
    this.#tjs = tjs;
    this.#model = model;
    this.info = info;
  }

  #int64(values: ArrayLike<number>, dims: number[]): TjsTensor {
    return new this.#tjs.Tensor(
      'int64',
      BigInt64Array.from(Array.from(values), (v) => BigInt(v)),
      dims,
    );
  }

  /** Runs `seq` new tokens per row after `past` (`pastLength` positions); returns logits and the new cache. */
  async #run(
    tokens: Int32Array,
    batch: number,
    seq: number,
    pastLength: number,
    past: Readonly<Record<string, TjsTensor>> | undefined,
  ): Promise<{ logits: Logits; present: Record<string, TjsTensor> }> {
    const positions = Array.from({ length: batch * seq }, (_, i) => pastLength + (i % seq));
    const inputs: Record<string, unknown> = {
      input_ids: this.#int64(tokens, [batch, seq]),
      attention_mask: this.#int64(new Array(batch * (pastLength + seq)).fill(1), [batch, pastLength + seq]),
      position_ids: this.#int64(positions, [batch, seq]),
    };
    if (past !== undefined) inputs['past_key_values'] = { ...past };
    let out: Record<string, TjsTensor>;
    try {
      out = (await this.#model.forward(inputs)) as Record<string, TjsTensor>;
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed('transformers.js', cause), { cause });
    }
    const raw = out['logits'] as TjsTensor;
    const data =
      raw.type === 'float16'
        ? float16ToFloat32(raw.data as Uint16Array)
        : Float32Array.from(raw.data as Float32Array);
    const present: Record<string, TjsTensor> = {};
    for (const [name, t] of Object.entries(out)) {
      if (name.startsWith('present')) present[name.replace('present', 'past_key_values')] = t;
    }
    raw.dispose();
    return { logits: { data, dims: [batch, seq, this.config.vocabSize] }, present };
  }

  /**
   * Full forward pass: logits `[batch, seq, vocab]`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the engine fails.
   */
  async forward(tokens: Int32Array, shape: BatchShape): Promise<Logits> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'forward');
    const { logits, present } = await this.#run(tokens, shape.batch, shape.seq, 0, undefined);
    for (const t of Object.values(present)) t.dispose();
    return logits;
  }

  /**
   * Forward pass over a prompt that keeps transformers.js's cache for {@link TransformersJsModel.decodeStep}.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the engine fails.
   */
  async prefill(tokens: Int32Array, shape: BatchShape): Promise<StepResult> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'prefill');
    const { logits, present } = await this.#run(tokens, shape.batch, shape.seq, 0, undefined);
    return {
      logits,
      state: new TransformersJsDecodeState(this.#token, shape.batch, shape.seq, present, releaseTensors),
    };
  }

  /**
   * One KV-cache decode step at context `state.length`. Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a foreign, consumed or disposed state, a token count
   * different from the batch, bad ids, or a context that would exceed `maxContext`.
   */
  async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
    this.#checkOpen();
    const taken = claimDecodeState(this.config, tokens, state, TransformersJsDecodeState, this.#token);
    try {
      const { logits, present } = await this.#run(tokens, taken.batch, 1, taken.length, taken.cache);
      return {
        logits,
        state: new TransformersJsDecodeState(
          this.#token,
          taken.batch,
          taken.length + 1,
          present,
          releaseTensors,
        ),
      };
    } finally {
      for (const t of Object.values(taken.cache)) t.dispose();
    }
  }

  /**
   * A prefill at depth: `seq` new tokens per sequence after the `state.length` cached positions. Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a foreign, consumed or disposed state, a token count
   * other than `state.batch · seq`, bad ids, or a context that would exceed `maxContext`.
   */
  async extend(tokens: Int32Array, seq: number, state: DecodeState): Promise<StepResult> {
    this.#checkOpen();
    const taken = claimDecodeState(this.config, tokens, state, TransformersJsDecodeState, this.#token, seq);
    try {
      const { logits, present } = await this.#run(tokens, taken.batch, seq, taken.length, taken.cache);
      return {
        logits,
        state: new TransformersJsDecodeState(
          this.#token,
          taken.batch,
          taken.length + seq,
          present,
          releaseTensors,
        ),
      };
    } finally {
      for (const t of Object.values(taken.cache)) t.dispose();
    }
  }

  /** Resolves at once: every forward has finished when its promise resolves. */
  async barrier(): Promise<void> {}

  /** Parameters of the architecture (tied matrices once). */
  numParameters(): number {
    return countParameters(this.config);
  }

  /** Releases transformers.js's sessions; idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#model.dispose();
    if (this.#deleteOnDispose !== undefined) rmSync(this.#deleteOnDispose, { recursive: true, force: true });
  }

  #checkOpen(): void {
    if (this.#disposed) throw new DantinoxError('INVALID_INPUT', messages.modelDisposed(this.info.name));
  }
}

/** Engine string of {@link ModelInfo.engine}. */
export const TRANSFORMERS_JS_ENGINE = `@huggingface/transformers ${TRANSFORMERS_JS_VERSION} (onnxruntime-node, cpu)`;

/**
 * Loads a Hugging Face ONNX folder (`config.json`, `tokenizer.json`, `onnx/model*.onnx`, e.g. written by
 * `exportHfModel`) with transformers.js, offline, on the CPU.
 *
 * @example
 * ```ts
 * exportHfModel(config, weights, 'models/tiny-hf');
 * const model = await loadTransformersJsModel('models/tiny-hf', { threads: 2 });
 * ```
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` without `@huggingface/transformers`; `IO` for a missing
 * `config.json` or a folder without the ONNX file of `dtype`; `INVALID_OPTION` for a bad thread count; `RUNTIME_ERROR` when transformers.js cannot load it.
 */
export async function loadTransformersJsModel(
  folder: string,
  options: LoadTransformersJsModelOptions = {},
): Promise<TransformersJsModel> {
  const dir = resolve(folder);
  const threads = checkThreads(options.threads, availableParallelism());
  const { config } = readHfConfig(resolve(dir, 'config.json'));
  const tokenizer = loadHfTokenizer(dir);
  const tjs = await loadTransformersJs();
  tjs.env.allowRemoteModels = false;
  tjs.env.allowLocalModels = true;
  tjs.env.localModelPath = `${dirname(dir)}/`;
  const dtype = options.dtype ?? 'fp32';
  // The file transformers.js opens for `dtype` (its suffix table is ours, HF_EXPORT_FILES): its bytes, with external data.
  const onnxFile = join(dir, hfDtypeFile(dir, dtype));
  const weightBytes = weightFileBytes(onnxFile);
  let model: TjsCausalLm;
  try {
    model = await tjs.AutoModelForCausalLM.from_pretrained(basename(dir), {
      device: 'cpu',
      dtype,
      session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
    });
  } catch (cause) {
    throw new DantinoxError('RUNTIME_ERROR', messages.engineLoadFailed('transformers.js', dir, cause), {
      cause,
    });
  }
  const info: ModelInfo = {
    name: options.name ?? basename(dir),
    engine: TRANSFORMERS_JS_ENGINE,
    threads,
    dtype,
    weightBytes,
    ...onnxFileQuantization(onnxFile, config.vocabSize),
  };
  const owned = options.deleteFolderOnDispose === true ? dir : undefined;
  return new TransformersJsModel(config, tokenizer, tjs, model, info, owned);
}
