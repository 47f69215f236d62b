/**
 * `loadHfModel`: a user's Hugging Face ONNX folder (the transformers.js layout) as a dantinox {@link Model}, so
 * every benchmark task runs on it. Reads `config.json` (→ {@link ModelConfig}, for FLOPs and MFU),
 * `tokenizer.json` (+ `tokenizer_config.json`) and `onnx/model.onnx` (+ its external data), never the network.
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { InferenceSession, Tensor, TypedTensor } from 'onnxruntime-node';
import { type Dtype, dtypeOfOnnxFile } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { readRss, resetPeakRss } from '../../profiling/process-memory.js';
import {
  createOrtSession,
  type ExecutionProvider,
  type OrtModule,
  positionIds,
  resolveThreads,
} from '../engines/ort/index.js';
import { float16ToFloat32 } from '../float16.js';
import type { BatchShape, DecodeState, Logits, Model, ModelInfo, StepResult } from '../model.js';
import type { ModelConfig } from '../model-config.js';
import type { BuiltinDtype } from '../onnx/precision.js';
import { checkTokenBatch, claimDecodeState } from '../token-checks.js';
import { weightFileBytes } from '../weight-file-bytes.js';
import { type HfConfig, type HfModelType, readHfConfig } from './hf-config.js';
import { type DecoderIo, decoderIo } from './hf-decoder-io.js';
import { hfDtypeFile } from './hf-dtype-files.js';
import { checkHfGraph } from './hf-graph-check.js';
import { type HfTokenizer, loadHfTokenizer } from './hf-tokenizer.js';
import { countOnnxParameters, type OnnxGraphInfo, readOnnxGraph } from './onnx-file-info.js';
import { onnxFileQuantization } from './onnx-quantization.js';

/** Options of {@link loadHfModel}. */
export interface LoadHfModelOptions {
  /** Intra-op threads of ONNX Runtime. @default os.availableParallelism() */
  readonly threads?: number;
  /** ONNX Runtime execution provider; one the installed binding does not carry is refused. @default 'cpu' */
  readonly executionProvider?: ExecutionProvider;
  /** Name reported in {@link ModelInfo.name}. @default the folder name */
  readonly name?: string;
  /** ONNX file inside the folder. @default the file of `dtype` */
  readonly onnxFile?: string;
  /**
   * Which variant to load, by its transformers.js file: `fp32` → `onnx/model.onnx`, `fp16` → `model_fp16.onnx`,
   * `q8` → `model_quantized.onnx`, `q4` → `model_q4.onnx`. A folder without that file is an error that lists the
   * dtypes it has. @default 'fp32'
   */
  readonly dtype?: BuiltinDtype;
  /**
   * Write an ONNX Runtime profile (Chrome trace) to `${profileFilePrefix}_<date>.json`; the file is written when
   * the model is disposed. @default undefined (no profiling)
   */
  readonly profileFilePrefix?: string;
}

/** The KV cache of a loaded model: the `present.*` tensors of the previous call, fed back as `past_key_values.*`. */
class HfDecodeState implements DecodeState {
  consumed = false;
  disposed = false;
  constructor(
    readonly owner: HfModel,
    readonly batch: number,
    readonly length: number,
    public past: Tensor[],
  ) {}

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const t of this.past) t.dispose();
    this.past = [];
  }
}

/** A Hugging Face ONNX decoder folder loaded into ONNX Runtime; implements {@link Model}. */
export class HfModel implements Model {
  /** Architecture mapped from `config.json`. */
  readonly config: ModelConfig;
  /** `model_type` of `config.json`. */
  readonly modelType: HfModelType;
  /** Folder name, engine `onnxruntime-node <version> (<provider>)`, threads, weight dtype (from the file name, else the KV-cache type). */
  readonly info: ModelInfo;
  /** The folder's `tokenizer.json`. */
  readonly tokenizer: HfTokenizer;
  /** The absolute folder path. */
  readonly folder: string;
  readonly #ort: OrtModule;
  readonly #session: InferenceSession;
  readonly #io: DecoderIo;
  readonly #parameters: number;
  #emptyPast = new Map<number, Tensor[]>();
  #ones = new BigInt64Array(0);
  #disposed = false;
  readonly #profiling: boolean;

  /** @internal Use {@link loadHfModel}. */
  constructor(parts: {
    folder: string;
    config: ModelConfig;
    modelType: HfModelType;
    tokenizer: HfTokenizer;
    ort: OrtModule;
    session: InferenceSession;
    io: DecoderIo;
    parameters: number;
    info: ModelInfo;
    profiling?: boolean;
  }) {
    this.#profiling = parts.profiling === true;
    this.folder = parts.folder;
    this.config = parts.config;
    this.modelType = parts.modelType;
    this.tokenizer = parts.tokenizer;
    this.#ort = parts.ort;
    this.#session = parts.session;
    this.#io = parts.io;
    this.#parameters = parts.parameters;
    this.info = parts.info;
  }

  /** Full forward pass over `tokens` with an empty cache: logits for every position. */
  async forward(tokens: Int32Array, shape: BatchShape): Promise<Logits> {
    checkTokenBatch(this.config, tokens, shape, 0, 'forward');
    const out = await this.#run(tokens, shape, 0, this.#empty(shape.batch), false);
    return out.logits;
  }

  /** Forward pass over a prompt that returns the `present.*` tensors as the decode state. */
  async prefill(tokens: Int32Array, shape: BatchShape): Promise<StepResult> {
    checkTokenBatch(this.config, tokens, shape, 0, 'prefill');
    const out = await this.#run(tokens, shape, 0, this.#empty(shape.batch), true);
    return { logits: out.logits, state: new HfDecodeState(this, shape.batch, shape.seq, out.present) };
  }

  /** One decode step: past = the previous present, attention mask of c + 1 ones, position id c. Consumes `state`. */
  async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
    const taken = claimDecodeState(this.config, tokens, state, HfDecodeState, this);
    const shape = { batch: taken.batch, seq: 1 };
    const out = await this.#run(tokens, shape, taken.length, taken.past, true);
    taken.dispose();
    return { logits: out.logits, state: new HfDecodeState(this, taken.batch, taken.length + 1, out.present) };
  }

  /** Resolves at once: `session.run()` has already finished all of ONNX Runtime's work when it resolves. */
  async barrier(): Promise<void> {}

  /**
   * Parameters declared by the ONNX file's initializers: weight-typed tensors of at least 2 elements, without
   * rotary tables, quantization scales and zero points, and counting a tied head's copy of the embedding once.
   */
  numParameters(): number {
    return this.#parameters;
  }

  /** Releases the ONNX Runtime session; idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#emptyPast.clear();
    if (this.#profiling) this.#session.endProfiling();
    await this.#session.release();
  }

  /** Empty `past_key_values.*` tensors `[batch, kvHeads, 0, headSize]`, cached per batch size. */
  #empty(batch: number): Tensor[] {
    let past = this.#emptyPast.get(batch);
    if (past === undefined) {
      const { kvHeads, headSize } = this.#io.past;
      const dims = [batch, kvHeads, 0, headSize];
      const type = this.#io.past.type;
      past = this.#io.pastNames.map(() =>
        type === 'float16'
          ? new this.#ort.Tensor('float16', new Uint16Array(0), dims)
          : new this.#ort.Tensor('float32', new Float32Array(0), dims),
      );
      this.#emptyPast.set(batch, past);
    }
    return past;
  }

  async #run(
    tokens: Int32Array,
    shape: BatchShape,
    pastLength: number,
    past: readonly Tensor[],
    wantPresent: boolean,
  ): Promise<{ logits: Logits; present: Tensor[] }> {
    if (this.#disposed) throw new DantinoxError('INVALID_INPUT', messages.hfModelDisposed(this.folder));
    const { batch, seq } = shape;
    const total = pastLength + seq;
    const io = this.#io;
    const T = this.#ort.Tensor;
    const feeds: Record<string, Tensor> = {};
    feeds[io.inputIds] =
      io.idsType === 'int32'
        ? new T('int32', tokens, [batch, seq])
        : new T(
            'int64',
            BigInt64Array.from(tokens, (v) => BigInt(v)),
            [batch, seq],
          );
    feeds[io.attentionMask] = new T('int64', this.#onesOf(batch * total), [batch, total]);
    if (io.useCacheBranch !== undefined) {
      feeds[io.useCacheBranch] = new T('bool', Uint8Array.of(pastLength > 0 ? 1 : 0), [1]);
    }
    if (io.positionIds !== undefined) {
      feeds[io.positionIds] = new T('int64', positionIds(batch, seq, pastLength), [batch, seq]);
    }
    io.pastNames.forEach((name, i) => {
      feeds[name] = past[i] as Tensor;
    });
    let results: InferenceSession.OnnxValueMapType;
    try {
      results = await this.#session.run(feeds, wantPresent ? io.fetchAll : io.fetchLogits);
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed(this.info.engine, cause), { cause });
    }
    const logitsTensor = results[io.logits] as Tensor;
    const present = wantPresent ? io.presentNames.map((n) => results[n] as Tensor) : [];
    return { logits: toLogits(logitsTensor, batch, seq), present };
  }

  /** A view of `n` int64 ones (the buffer grows as needed and is reused). */
  #onesOf(n: number): BigInt64Array {
    if (this.#ones.length < n) this.#ones = new BigInt64Array(Math.max(n, 2 * this.#ones.length)).fill(1n);
    return this.#ones.length === n ? this.#ones : this.#ones.subarray(0, n);
  }
}

function toLogits(t: Tensor, batch: number, seq: number): Logits {
  const vocab = Number(t.dims[t.dims.length - 1]);
  const data =
    t.type === 'float32' ? (t as TypedTensor<'float32'>).data : float16ToFloat32(t.data as Uint16Array);
  return { data, dims: [batch, seq, vocab] };
}

/** The weight dtype of a decoder: the transformers.js file name's (`model_q4.onnx` → `q4`), else the cache type's. */
export function weightDtype(onnxPath: string, io: DecoderIo): Dtype {
  const named = dtypeOfOnnxFile(basename(onnxPath));
  if (named !== undefined && named !== 'fp32') return named;
  return io.past.type === 'float16' ? 'fp16' : 'fp32';
}

function requireFile(folder: string, file: string, what: string): string {
  const path = join(folder, file);
  if (!existsSync(path)) throw new DantinoxError('IO', messages.hfMissingFile(folder, file, what));
  return path;
}

/** A Hugging Face ONNX folder read and checked before any runtime opens it. */
export interface HfFolder {
  /** The absolute folder. */
  readonly dir: string;
  /** Its `config.json`. */
  readonly configPath: string;
  /** The ONNX file of the asked dtype. */
  readonly onnxPath: string;
  /** The architecture of `config.json`. */
  readonly hf: HfConfig;
  /** Its `tokenizer.json`. */
  readonly tokenizer: HfTokenizer;
  /** Initializers, nodes and inputs of the ONNX file. */
  readonly graph: OnnxGraphInfo;
}

/**
 * Reads `folder` for {@link loadHfModel} (or another runtime, such as the browser target): `config.json`,
 * `tokenizer.json`, the ONNX file of `options.dtype` (or `options.onnxFile`) and the presence of its external data.
 *
 * @throws {@link dantinox!DantinoxError} as {@link loadHfModel} for a missing or malformed folder, file or tokenizer.
 */
export function readHfFolder(
  folder: string,
  options: Pick<LoadHfModelOptions, 'onnxFile' | 'dtype'> = {},
): HfFolder {
  const dir = resolve(folder);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new DantinoxError('IO', messages.hfMissingFile(dirname(dir), basename(dir), 'the model folder'));
  }
  const configPath = requireFile(dir, 'config.json', 'the architecture');
  requireFile(dir, 'tokenizer.json', 'the tokenizer');
  const onnxFile = options.onnxFile ?? hfDtypeFile(dir, options.dtype ?? 'fp32');
  const onnxPath = requireFile(dir, onnxFile, 'the ONNX decoder graph');
  const hf = readHfConfig(configPath);
  const tokenizer = loadHfTokenizer(dir);
  if (tokenizer.vocabSize > hf.config.vocabSize) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.hfTokenizerTooLarge(join(dir, 'tokenizer.json'), tokenizer.vocabSize, hf.config.vocabSize),
    );
  }
  let graph: OnnxGraphInfo;
  try {
    graph = readOnnxGraph(onnxPath);
  } catch (cause) {
    throw new DantinoxError(
      'IO',
      messages.hfBadOnnx(onnxPath, cause instanceof Error ? cause.message : String(cause)),
      {
        cause,
      },
    );
  }
  for (const location of new Set(graph.initializers.map((t) => t.externalLocation))) {
    if (location !== undefined && !existsSync(join(dirname(onnxPath), location))) {
      throw new DantinoxError(
        'IO',
        messages.hfMissingExternalData(onnxPath, join(dirname(onnxPath), location)),
      );
    }
  }
  return { dir, configPath, onnxPath, hf, tokenizer, graph };
}

/**
 * Loads a Hugging Face ONNX decoder folder (`config.json`, `tokenizer.json`, optional `tokenizer_config.json`,
 * `onnx/model.onnx` with optional external data) into ONNX Runtime on the CPU. The graph must follow the
 * decoder-with-past convention (`input_ids`, `attention_mask`, optional `position_ids`,
 * `past_key_values.{i}.key/.value` → `logits`, `present.{i}.key/.value`). Nothing is fetched from a hub.
 *
 * @example
 * ```ts
 * const model = await loadHfModel('models/gpt2', { threads: 2 });
 * const suite = BenchmarkSuite.default();
 * const report = await suite.run(Paradigm.for(model.config), model);
 * ```
 * @throws {@link dantinox!DantinoxError} `IO` for a missing folder or file (naming it and what it should hold);
 *   `UNSUPPORTED` for a `model_type` other than gpt2, llama, mistral, qwen2, phi3; `INVALID_MODEL_CONFIG` for a
 *   malformed config.json; `INVALID_INPUT` for a graph whose inputs/outputs do not follow the convention or a
 *   tokenizer that does not fit, or a config.json that disagrees with the graph's shapes (naming each field, its
 *   value and the graph's); `RUNTIME_ERROR` when ONNX Runtime cannot load the graph;
 *   `DEPENDENCY_MISSING` without onnxruntime-node.
 */
export async function loadHfModel(folder: string, options: LoadHfModelOptions = {}): Promise<HfModel> {
  resetPeakRss();
  const t0 = process.hrtime.bigint();
  const { dir, configPath, onnxPath, hf, tokenizer, graph } = readHfFolder(folder, options);
  const { config, modelType } = hf;
  const { initializers } = graph;
  const { ort, session, threads, engine } = await createOrtSession(onnxPath, {
    threads: resolveThreads(options.threads),
    executionProvider: options.executionProvider,
    profileFilePrefix: options.profileFilePrefix,
    source: JSON.stringify(onnxPath),
  });
  let io: DecoderIo;
  try {
    io = decoderIo(session, config, onnxPath);
    checkHfGraph(hf, graph, configPath, onnxPath);
  } catch (error) {
    await session.release();
    throw error;
  }
  return new HfModel({
    folder: dir,
    config,
    modelType,
    tokenizer,
    ort,
    session,
    io,
    parameters: countOnnxParameters(initializers, config),
    info: {
      name: options.name ?? basename(dir),
      engine,
      threads,
      dtype: weightDtype(onnxPath, io),
      load: { ms: Number(process.hrtime.bigint() - t0) / 1e6, peakRssBytes: readRss().peakRssBytes },
      weightBytes: weightFileBytes(onnxPath),
      ...onnxFileQuantization(onnxPath, config.vocabSize, graph),
    },
    profiling: options.profileFilePrefix !== undefined,
  });
}
