/**
 * `LlamaCppModel`: a GGUF file run by llama.cpp through `node-llama-cpp`, behind the {@link Model} contract.
 *
 * Each sequence of a batch is one llama.cpp context sequence; the sequences of a call are queued together, so
 * node-llama-cpp evaluates them in the same llama.cpp batch. The KV cache and attention are float32 (as the ONNX
 * Runtime models': flash attention, which rounds through float16 on the CPU, is off unless asked for) and the
 * thread count is exact.
 *
 * Continuous batching: only the sequences of one context share a llama.cpp batch, and KV cannot move between
 * contexts. Loaded with `rowsPerContext: n`, the model makes every context for `n` sequences and takes each call's
 * sequences from the fullest context that has enough free, so rows prefilled while a state is live land in its
 * context; {@link LlamaCppModel.rowBatching} then joins states by concatenating their sequences (each keeps its
 * own positions, so a decode step gives every row its next position) and drops rows by freeing their sequences.
 *
 * Logits: node-llama-cpp 3.21 hands a next-token distribution to JavaScript only as probabilities (a softmax in
 * float32 over the raw logits, sorted). The model returns their logarithms, the log-softmax of the engine's
 * logits — the same next-token distribution, so losses, perplexity, KL divergence and arg-max agree with the
 * raw logits. A probability that underflows float32 becomes {@link LOG_PROB_FLOOR}. Getting every position's
 * distribution out of the engine costs time (sorting and copying the vocabulary per position), so a call made with
 * `{ logits: 'last' }` (generation's prefill) copies only each sequence's last position, and one with
 * `{ logits: false }` (the timing tasks) copies none. With either, llama.cpp computes the logits of each sequence's
 * last position only (as the built-in ONNX Runtime graph does, and llama.cpp's own prefill) and, with `false`, picks
 * its greedy token in native code; the call returns empty logits — the cost of node-llama-cpp's own prefill and
 * greedy step.
 *
 * @packageDocumentation
 */

import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';
import { ggufQuantizationInfo } from '../../gguf/gguf-quantization.js';
import type { HfTokenizerFiles } from '../../hf/hf-tokenizer-json.js';
import type {
  BatchShape,
  CallOptions,
  DecodeState,
  Logits,
  Model,
  ModelInfo,
  RowBatching,
  StepResult,
} from '../../model.js';
import type { ModelConfig } from '../../model-config.js';
import type { BuiltinDtype } from '../../onnx/precision.js';
import {
  checkRowsToKeep,
  checkTokenBatch,
  claimDecodeState,
  liveDecodeState,
  statesToJoin,
} from '../../token-checks.js';
import type { Tokenizer } from '../../tokenizer.js';
import { modelTokenizer } from '../../tokenizers/model-tokenizer.js';
import { weightFileBytes } from '../../weight-file-bytes.js';
import { countParameters } from '../../weights.js';
import { EngineDecodeState } from '../engine-decode-state.js';
import { checkThreads } from '../threads.js';
import {
  loadNodeLlamaCpp,
  NODE_LLAMA_CPP_VERSION,
  type NodeLlama,
  type NodeLlamaCppModule,
} from './node-llama-cpp-loader.js';

/** The logit given to a token whose probability underflows float32 (below log of the smallest subnormal). */
export const LOG_PROB_FLOOR = -104;

type LlamaModelHandle = Awaited<ReturnType<NodeLlama['loadModel']>>;
type LlamaContextHandle = Awaited<ReturnType<LlamaModelHandle['createContext']>>;
type LlamaSequence = ReturnType<LlamaContextHandle['getSequence']>;

/** Options of {@link loadLlamaCppModel}. */
export interface LoadLlamaCppModelOptions {
  /** Threads llama.cpp uses for every evaluation. @default os.availableParallelism() */
  readonly threads?: number;
  /** Name reported in {@link ModelInfo.name}. @default 'gguf' */
  readonly name?: string;
  /** Weight dtype of the file, reported in {@link ModelInfo.dtype} (e.g. `q8`). @default 'fp32' */
  readonly dtype?: BuiltinDtype;
  /** Delete the GGUF file when the model is disposed (for files written just for this model). @default false */
  readonly deleteFileOnDispose?: boolean;
  /**
   * Use llama.cpp's flash-attention kernel. Its CPU version rounds attention through float16 (log-probabilities
   * then move by ≈ 3e-4 per block on a 512-wide model), so it is off by default: attention stays float32 like the
   * ONNX Runtime graphs'. @default false
   */
  readonly flashAttention?: boolean;
  /**
   * Sequences of every context: a call of `batch` rows takes `batch` free sequences of a context made for
   * `max(batch, rowsPerContext)` rows, the fullest one that has them. Given, the model implements
   * {@link LlamaCppModel.rowBatching} (continuous batching): rows prefilled while a state of at most
   * `rowsPerContext − batch` rows is live take free sequences of its context, so they can join it. `dantinox serve`
   * passes its `maxBatch`; a join of rows of two contexts (more rows live than `rowsPerContext`) is refused. Each
   * sequence holds up to `maxContext` positions, so a context holds `rowsPerContext` times the KV cache of one row. @default undefined (contexts made for each call's row count; no row batching)
   */
  readonly rowsPerContext?: number;
  /**
   * Element type of the KV cache: `f32` (the default: cached keys and values stay float32, as in the ONNX Runtime
   * graphs, so the two engines' logits agree), or llama.cpp's own default `f16`, or `bf16`. llama.cpp's CPU
   * attention over an F32 cache is slow: on a 124 M llama shape (2 threads, AMD EPYC Zen 5) decode steps at depth
   * 512 took 45–52 ms with F32 and 17–18 ms with F16. @default 'f32'
   */
  readonly kvCacheType?: LlamaKvCacheType;
  /** The model's own tokenizer (text tasks tokenize with it). @default the built-in tokenizer of the vocabulary size */
  readonly tokenizer?: HfTokenizerFiles;
}

/** One KV-cache element type of llama.cpp. */
export interface LlamaKvCacheTypeInfo {
  /** Its name in llama.cpp, as node-llama-cpp takes it. */
  readonly ggml: 'F32' | 'F16' | 'BF16';
  /** Bytes per element. */
  readonly bytes: number;
}

/** KV-cache element types {@link LoadLlamaCppModelOptions.kvCacheType} takes, by their short names. */
export const LLAMA_KV_CACHE_TYPES: Readonly<Record<'f32' | 'f16' | 'bf16', LlamaKvCacheTypeInfo>> =
  Object.freeze({
    /** float32, as ONNX Runtime's cache (dantinox's default). */
    f32: { ggml: 'F32', bytes: 4 },
    /** IEEE 754 half precision (llama.cpp's own default). */
    f16: { ggml: 'F16', bytes: 2 },
    /** bfloat16. */
    bf16: { ggml: 'BF16', bytes: 2 },
  });

/** A KV-cache element type of llama.cpp contexts: `f32`, `f16` or `bf16`. */
export type LlamaKvCacheType = keyof typeof LLAMA_KV_CACHE_TYPES;

/** The KV-cache element types of llama.cpp contexts by ggml type number: name and bytes per element. */
const GGML_KV_TYPES: Readonly<Record<number, { readonly name: string; readonly bytes: number }>> = {
  0: { name: 'F32', bytes: 4 },
  1: { name: 'F16', bytes: 2 },
  8: { name: 'Q8_0', bytes: 34 / 32 },
  30: { name: 'BF16', bytes: 2 },
};

/**
 * The KV cache of a llama.cpp generation: one context sequence per row. Each sequence holds its own positions
 * (`nextTokenIndex`), so rows of one context may differ in length; `length` is the longest row's.
 */
export class LlamaCppDecodeState extends EngineDecodeState<readonly LlamaSequence[]> {}

/** Log-probabilities `[vocab]` of one next-token distribution from node-llama-cpp's probability map. */
function logProbRow(
  probabilities: ReadonlyMap<number, number> | undefined,
  out: Float32Array,
  offset: number,
  vocab: number,
): void {
  out.fill(LOG_PROB_FLOOR, offset, offset + vocab);
  if (probabilities === undefined) return;
  for (const [token, p] of probabilities) {
    if (token < vocab && p > 0) out[offset + token] = Math.log(p);
  }
}

/**
 * A GGUF model run by llama.cpp (`node-llama-cpp` 3.21.1), implementing {@link Model}. Create one with
 * {@link loadLlamaCppModel} (an existing GGUF file) or `createLlamaCppModel` (a built-in model exported on the
 * fly).
 */
export class LlamaCppModel implements Model {
  /** The architecture (as exported to the GGUF file). */
  readonly config: ModelConfig;
  /** Identity, engine, threads and dtype. */
  readonly info: ModelInfo;
  /** GPT-2 BPE or byte tokenizer chosen from the vocabulary size, when one fits. */
  readonly tokenizer?: Tokenizer;
  /**
   * Rows of different lengths in one decode state, when the model was loaded with
   * {@link LoadLlamaCppModelOptions.rowsPerContext}: the rows of a state are sequences of one context, each at its
   * own position, so joining states concatenates their sequences (no KV is copied) and dropping rows frees their
   * sequences. States whose rows are in different contexts cannot be joined (`INVALID_INPUT`).
   */
  readonly rowBatching?: RowBatching;
  readonly #model: LlamaModelHandle;
  /** Contexts by their sequence count (`max(batch, rowsPerContext)`); more are made when all are taken. */
  readonly #contexts = new Map<number, LlamaContextHandle[]>();
  readonly #threads: number;
  readonly #path: string;
  readonly #deleteFile: boolean;
  readonly #flashAttention: boolean;
  readonly #kvCacheType: LlamaKvCacheTypeInfo;
  readonly #rowsPerContext: number;
  readonly #token = {};
  /** The last {@link LlamaCppModel.#acquire} call: the next one waits for it. */
  #acquiring: Promise<unknown> = Promise.resolve();
  /** Sequence disposals in flight: node-llama-cpp returns a sequence to its context asynchronously. */
  #releasing: Promise<unknown>[] = [];
  /** Frees sequences; the next {@link LlamaCppModel.#acquire} waits for them to be back in their context. */
  readonly #release = (sequences: readonly LlamaSequence[]): void => {
    this.#releasing.push(Promise.all(sequences.map((s) => s.dispose())));
  };
  #disposed = false;

  /** Use {@link loadLlamaCppModel}. */
  constructor(
    config: ModelConfig,
    model: LlamaModelHandle,
    info: ModelInfo,
    path: string,
    options: Pick<
      LoadLlamaCppModelOptions,
      'deleteFileOnDispose' | 'flashAttention' | 'rowsPerContext' | 'kvCacheType' | 'tokenizer'
    >,
  ) {
    this.config = config;
    this.#flashAttention = options.flashAttention === true;
    this.#kvCacheType = LLAMA_KV_CACHE_TYPES[options.kvCacheType ?? 'f32'];
    const rows = options.rowsPerContext;
    this.#rowsPerContext = rows ?? 1;
    if (rows !== undefined)
      this.rowBatching = {
        rowLengths: (state) => this.#own(state).cache.map((s) => s.nextTokenIndex),
        joinRows: (states) => this.#joinRows(states),
        keepRows: (state, keep) => this.#keepRows(state, keep),
      };
    this.#model = model;
    this.info = info;
    this.#threads = info.threads;
    this.#path = path;
    this.#deleteFile = options.deleteFileOnDispose === true;
    const tokenizer = modelTokenizer(config, options.tokenizer);
    if (tokenizer !== undefined) this.tokenizer = tokenizer;
  }

  /** The GGUF file this model runs. */
  get path(): string {
    return this.#path;
  }

  /**
   * `batch` free sequences, from a context made for `max(batch, rowsPerContext)` rows: the fullest context with
   * that many free, so that rows prefilled while a state is live take free sequences of its context. Calls take
   * their turn (one at a time), so that concurrent calls do not each make a context while the first is created.
   */
  #acquire(batch: number): Promise<LlamaSequence[]> {
    const turn = this.#acquiring.then(() => this.#take(batch));
    this.#acquiring = turn.catch(() => undefined);
    return turn;
  }

  async #take(batch: number): Promise<LlamaSequence[]> {
    await Promise.all(this.#releasing);
    this.#releasing = [];
    const rows = Math.max(batch, this.#rowsPerContext);
    const pool = this.#contexts.get(rows) ?? [];
    this.#contexts.set(rows, pool);
    let context: LlamaContextHandle | undefined;
    for (const c of pool)
      if (c.sequencesLeft >= batch && (context === undefined || c.sequencesLeft < context.sequencesLeft))
        context = c;
    if (context === undefined) {
      try {
        context = await this.#model.createContext({
          contextSize: this.config.maxContext,
          sequences: rows,
          batchSize: this.config.maxContext,
          threads: this.#threads,
          experimentalKvCacheKeyType: this.#kvCacheType.ggml,
          experimentalKvCacheValueType: this.#kvCacheType.ggml,
          flashAttention: this.#flashAttention,
        });
      } catch (cause) {
        throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed('llama.cpp', cause), { cause });
      }
      pool.push(context);
    }
    const ctx = context;
    return Array.from({ length: batch }, () => ctx.getSequence());
  }

  /** Evaluates `seq` tokens per sequence (rows of `tokens`) and returns the log-probabilities after each. */
  async #evaluate(
    sequences: readonly LlamaSequence[],
    tokens: Int32Array,
    seq: number,
    options: CallOptions,
  ): Promise<Logits> {
    const v = this.config.vocabSize;
    // The positions whose distribution is copied to JavaScript: every one, the last of each sequence, or none.
    const first = options.logits === false ? seq : options.logits === 'last' ? seq - 1 : 0;
    const rows = seq - first;
    const data = new Float32Array(sequences.length * rows * v);
    // Of the others, only the last position's logits are computed, and llama.cpp picks its greedy token natively.
    const copy = { generateNext: { probabilities: true } };
    const pick = { generateNext: { token: true } };
    const mark = (id: number, i: number) => (i >= first ? [id, copy] : i === seq - 1 ? [id, pick] : id);
    try {
      await Promise.all(
        sequences.map(async (s, r) => {
          const input = Array.from(tokens.subarray(r * seq, (r + 1) * seq), mark) as Parameters<
            LlamaSequence['controlledEvaluate']
          >[0];
          const out = await s.controlledEvaluate(input);
          for (let i = first; i < seq; i++) {
            logProbRow(
              out[i]?.next?.probabilities as ReadonlyMap<number, number> | undefined,
              data,
              (r * rows + i - first) * v,
              v,
            );
          }
        }),
      );
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed('llama.cpp', cause), { cause });
    }
    return { data, dims: [sequences.length, options.logits === false ? seq : rows, v] };
  }

  /**
   * Full forward pass: log-probabilities `[batch, seq, vocab]` for every position.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the engine fails.
   */
  async forward(tokens: Int32Array, shape: BatchShape, options: CallOptions = {}): Promise<Logits> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'forward');
    const sequences = await this.#acquire(shape.batch);
    try {
      return await this.#evaluate(sequences, tokens, shape.seq, options);
    } finally {
      this.#release(sequences);
    }
  }

  /**
   * Forward pass over a prompt that keeps its KV cache for {@link LlamaCppModel.decodeStep}.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the engine fails.
   */
  async prefill(tokens: Int32Array, shape: BatchShape, options: CallOptions = {}): Promise<StepResult> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'prefill');
    const sequences = await this.#acquire(shape.batch);
    try {
      const logits = await this.#evaluate(sequences, tokens, shape.seq, options);
      return {
        logits,
        state: new LlamaCppDecodeState(this.#token, shape.batch, shape.seq, sequences, this.#release),
      };
    } catch (cause) {
      this.#release(sequences);
      throw cause;
    }
  }

  /**
   * One KV-cache decode step: one token per sequence at context `state.length`. Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a foreign, consumed or disposed state, a token count
   * different from the batch, bad ids, or a context that would exceed `maxContext`.
   */
  async decodeStep(tokens: Int32Array, state: DecodeState, options: CallOptions = {}): Promise<StepResult> {
    this.#checkOpen();
    const taken = claimDecodeState(this.config, tokens, state, LlamaCppDecodeState, this.#token);
    try {
      const logits = await this.#evaluate(taken.cache, tokens, 1, options);
      return {
        logits,
        state: new LlamaCppDecodeState(
          this.#token,
          taken.batch,
          taken.length + 1,
          taken.cache,
          this.#release,
        ),
      };
    } catch (cause) {
      this.#release(taken.cache);
      throw cause;
    }
  }

  /**
   * A prefill at depth: `seq` new tokens per sequence evaluated on the sequences that already hold
   * `state.length` positions. Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a foreign, consumed or disposed state, a token count
   * other than `state.batch · seq`, bad ids, or a context that would exceed `maxContext`.
   */
  async extend(
    tokens: Int32Array,
    seq: number,
    state: DecodeState,
    options: CallOptions = {},
  ): Promise<StepResult> {
    this.#checkOpen();
    const taken = claimDecodeState(this.config, tokens, state, LlamaCppDecodeState, this.#token, seq);
    try {
      const logits = await this.#evaluate(taken.cache, tokens, seq, options);
      return {
        logits,
        state: new LlamaCppDecodeState(
          this.#token,
          taken.batch,
          taken.length + seq,
          taken.cache,
          this.#release,
        ),
      };
    } catch (cause) {
      this.#release(taken.cache);
      throw cause;
    }
  }

  /**
   * Bytes of llama.cpp's context state holding `state` (`LlamaContext.stateSize`, from `llama_state_get_size`):
   * the KV cells the context's sequences fill (every layer's key and value rows, in the cache's element types
   * `kvCacheKeyType` / `kvCacheValueType`, plus a few bytes of cell metadata each) and its output buffers. A
   * context made for a batch of B holds B sequences (`max(B, rowsPerContext)` with `rowsPerContext`): the figure is
   * theirs together, whatever state holds them.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a state this model did not make, or one consumed.
   */
  contextStateBytes(state: DecodeState): {
    /** `stateSize` of the context, in bytes. */
    readonly stateBytes: number;
    /** Element type of the cached keys (ggml's name, e.g. `F16`; the number for a type not listed). */
    readonly keyType: string;
    /** Element type of the cached values. */
    readonly valueType: string;
    /** Bytes per cached key element (undefined for a type not listed). */
    readonly keyBytesPerElement: number | undefined;
    /** Bytes per cached value element. */
    readonly valueBytesPerElement: number | undefined;
  } {
    this.#checkOpen();
    if (!(state instanceof LlamaCppDecodeState) || state.owner !== this.#token || state.disposed)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.badDecodeState('it was not made by this model, or it was consumed'),
      );
    const context = (state.cache[0] as LlamaSequence).context;
    const key = GGML_KV_TYPES[context.kvCacheKeyType];
    const value = GGML_KV_TYPES[context.kvCacheValueType];
    return {
      stateBytes: context.stateSize,
      keyType: key?.name ?? String(context.kvCacheKeyType),
      valueType: value?.name ?? String(context.kvCacheValueType),
      keyBytesPerElement: key?.bytes,
      valueBytesPerElement: value?.bytes,
    };
  }

  /**
   * The context state holding `state`, in bytes ({@link LlamaCppModel.contextStateBytes}): its KV cells with their
   * metadata.
   */
  kvCacheHeldBytes(state: DecodeState): number {
    return this.contextStateBytes(state).stateBytes;
  }

  /** Resolves at once: every evaluation has finished when its promise resolves. */
  async barrier(): Promise<void> {}

  /** Parameters of the architecture (tied matrices once). */
  numParameters(): number {
    return countParameters(this.config);
  }

  /** Frees the contexts and the model (and the GGUF file when it was written for this model); idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await Promise.all(this.#releasing);
    for (const pool of this.#contexts.values()) for (const c of pool) await c.dispose();
    this.#contexts.clear();
    await this.#model.dispose();
    if (this.#deleteFile) rmSync(this.#path, { force: true });
  }

  #checkOpen(): void {
    if (this.#disposed) throw new DantinoxError('INVALID_INPUT', messages.modelDisposed(this.info.name));
  }

  /** `state`, checked to be a live state of this open model. */
  #own(state: DecodeState): LlamaCppDecodeState {
    this.#checkOpen();
    return liveDecodeState(state, LlamaCppDecodeState, this.#token);
  }

  /** One state of the sequences of `states`, in order: they must all be sequences of one context. */
  #joinRows(states: readonly DecodeState[]): DecodeState {
    this.#checkOpen();
    const own = statesToJoin(states, LlamaCppDecodeState, this.#token);
    if (own.length === 1) return own[0] as LlamaCppDecodeState;
    const sequences = own.flatMap((st) => st.cache);
    const context = (sequences[0] as LlamaSequence).context;
    if (sequences.some((s) => s.context !== context))
      throw new DantinoxError('INVALID_INPUT', messages.badDecodeState(messages.rowsInOtherContexts()));
    for (const st of own) {
      st.consumed = true;
      st.dispose();
    }
    return new LlamaCppDecodeState(
      this.#token,
      sequences.length,
      Math.max(...own.map((st) => st.length)),
      sequences,
      this.#release,
    );
  }

  /** The sequences `keep` of `state`; the others are freed (returned to their context). */
  #keepRows(state: DecodeState, keep: readonly number[]): DecodeState {
    const own = this.#own(state);
    checkRowsToKeep(own.batch, keep);
    const kept = keep.map((r) => own.cache[r] as LlamaSequence);
    own.consumed = true;
    own.dispose();
    this.#release(own.cache.filter((s) => !kept.includes(s)));
    return new LlamaCppDecodeState(
      this.#token,
      kept.length,
      Math.max(...kept.map((s) => s.nextTokenIndex)),
      kept,
      this.#release,
    );
  }
}

/** Engine string of {@link ModelInfo.engine}: `node-llama-cpp 3.21.1 (llama.cpp, cpu)`. */
export const LLAMA_CPP_ENGINE = `node-llama-cpp ${NODE_LLAMA_CPP_VERSION} (llama.cpp, cpu)`;

/**
 * Loads the GGUF file at `path` (written by `exportGguf` for `config`) into llama.cpp on the CPU.
 *
 * @example
 * ```ts
 * exportGguf(onnxModel, 'small-q8.gguf', { dtype: 'q8' });
 * const model = await loadLlamaCppModel('small-q8.gguf', onnxModel.config, { threads: 2, dtype: 'q8' });
 * ```
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` without `node-llama-cpp`; `INVALID_OPTION` for a bad thread
 * count or `rowsPerContext`; `RUNTIME_ERROR` when llama.cpp refuses the file.
 */
export async function loadLlamaCppModel(
  path: string,
  config: ModelConfig,
  options: LoadLlamaCppModelOptions = {},
): Promise<LlamaCppModel> {
  const threads = checkThreads(options.threads, availableParallelism());
  const rows = options.rowsPerContext;
  if (rows !== undefined && (!Number.isSafeInteger(rows) || rows < 1))
    throw new DantinoxError('INVALID_OPTION', messages.invalidRowsPerContext(rows));
  const kv = options.kvCacheType;
  if (kv !== undefined && !Object.hasOwn(LLAMA_KV_CACHE_TYPES, kv))
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidKvCacheType(kv, Object.keys(LLAMA_KV_CACHE_TYPES)),
    );
  const { module, llama } = await loadNodeLlamaCpp();
  let model: LlamaModelHandle;
  try {
    model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
  } catch (cause) {
    throw new DantinoxError('RUNTIME_ERROR', messages.ggufRefused(path, cause), { cause });
  }
  const info: ModelInfo = {
    name: options.name ?? 'gguf',
    engine: LLAMA_CPP_ENGINE,
    threads,
    dtype: options.dtype ?? 'fp32',
    weightBytes: weightFileBytes(path),
    ...ggufFileQuantization(model, module),
    kvBytesPerElement: LLAMA_KV_CACHE_TYPES[options.kvCacheType ?? 'f32'].bytes,
  };
  return new LlamaCppModel(config, model, info, path, options);
}

/** `{ quantization }` of a loaded GGUF file, from the tensor infos node-llama-cpp read, or `{}` when all are F32. */
function ggufFileQuantization(
  model: LlamaModelHandle,
  module: NodeLlamaCppModule,
): Pick<ModelInfo, 'quantization'> {
  const tensors = (model.fileInfo.fullTensorInfo ?? []).map((t) => ({
    name: t.name,
    type: module.GgmlType[t.ggmlType] ?? `ggml type ${t.ggmlType}`,
    dims: t.dimensions.length,
  }));
  const quantization = ggufQuantizationInfo(tensors);
  return quantization === undefined ? {} : { quantization };
}
