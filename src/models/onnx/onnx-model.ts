/**
 * `OnnxModel`: the built-in transformer, a graph generated from a {@link ModelConfig} and run by ONNX Runtime
 * (`onnxruntime-node`, the CPU execution provider unless told otherwise). Create one with {@link createModel}.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { checkConfigNumbers } from '../../profiling/option-checks.js';
import { readRss, resetPeakRss } from '../../profiling/process-memory.js';
import type { EngineCallShape, TraceRecorder } from '../../profiling/trace-recorder.js';
import {
  checkExecutionProvider,
  createOrtSession,
  DEFAULT_EXECUTION_PROVIDER,
  type ExecutionProvider,
  loadOrt,
  type OrtModule,
  positionIds,
  resolveThreads,
} from '../engines/ort/index.js';
import type { HfTokenizerFiles } from '../hf/hf-tokenizer-json.js';
import { checkFitsInMemory, modelBuildBytes } from '../memory-check.js';
import {
  type BatchShape,
  type CallOptions,
  type DecodeState,
  type Logits,
  logitPositions,
  type Model,
  type ModelInfo,
  type RowBatching,
  type StepResult,
} from '../model.js';
import { ModelConfig } from '../model-config.js';
import {
  checkRowsToKeep,
  checkTokenBatch,
  claimDecodeState,
  liveDecodeState,
  statesToJoin,
} from '../token-checks.js';
import type { Tokenizer } from '../tokenizer.js';
import { modelTokenizer } from '../tokenizers/model-tokenizer.js';
import { weightFileBytes } from '../weight-file-bytes.js';
import { countParameters, initWeights, type WeightMap } from '../weights.js';
import { cacheNames } from './attention.js';
import { buildAttentionMask, buildRowMasks, maskLayout } from './attention-mask.js';
import { countGraphFlops, type GraphNodeCost } from './graph-flops.js';
import { gatherRows, KvCache, OnnxDecodeState } from './kv-cache.js';
import { collectGarbage, writeModelFiles } from './model-files.js';
import { type AccuracyLevel, type BuiltinDtype, resolvePrecision } from './precision.js';

/** Options of {@link createModel}. */
export interface CreateModelOptions {
  /** Seed of the random weight initialisation (ignored when `weights` is given). @default 0 */
  readonly seed?: number;
  /** Intra-op threads of the ONNX Runtime session. @default os.availableParallelism() */
  readonly threads?: number;
  /** ONNX Runtime execution provider; one the installed binding does not carry is refused. @default 'cpu' */
  readonly executionProvider?: ExecutionProvider;
  /** Weights to run instead of a random initialisation (e.g. from {@link loadWeights}); checked against the config. */
  readonly weights?: WeightMap;
  /** The model's own tokenizer (a trained model's). @default the built-in tokenizer of the vocabulary size */
  readonly tokenizer?: HfTokenizerFiles;
  /** Name reported in {@link ModelInfo.name}. @default the preset name, or `custom` for a config object */
  readonly name?: string;
  /** Build even when the memory estimate exceeds the available memory. @default false */
  readonly force?: boolean;
  /**
   * Write an ONNX Runtime profile (Chrome trace) to `${profileFilePrefix}_<date>.json`; the file is written when
   * the model is disposed. @default undefined (no profiling)
   */
  readonly profileFilePrefix?: string;
  /**
   * Weight dtype of the matrices (attention, MLP, experts, router; the LM head too unless `headDtype` says
   * otherwise): `fp32`, `fp16`, `q8` (int8 per-channel, dynamic int8 activations) or `q4` (4-bit blocks). Every
   * dtype is quantized from the same float32 weights (seeded or given), so the dtypes of one config and seed are
   * the same model. Embeddings, norms and position tables stay float32. @default 'fp32'
   */
  readonly dtype?: BuiltinDtype;
  /** Dtype of the LM head. @default `dtype` */
  readonly headDtype?: BuiltinDtype;
  /** K values per 4-bit block (`q4`): a power of two ≥ 16 dividing every quantized matrix's K. @default 32 */
  readonly blockSize?: number;
  /** `MatMulNBits` `accuracy_level` of `q4` products (4: int8 compute). @default 4 */
  readonly accuracyLevel?: AccuracyLevel;
}

/** Where a model's weights come from: the caller's map, or a seed that regenerates them. */
type WeightSource =
  | { readonly kind: 'given'; readonly weights: WeightMap }
  | { readonly kind: 'seeded'; readonly seed: number };

/** Names of the graph inputs and outputs (see `transformer-graph.ts`). */
const IO = {
  inputIds: 'input_ids',
  positionIds: 'position_ids',
  attentionMask: 'attention_mask',
  logitsFrom: 'logits_from',
  logits: 'logits',
} as const;

/**
 * A transformer run by ONNX Runtime, implementing {@link Model}.
 *
 * One session holds one graph for every call: `forward` and `prefill` run the sequence with a masked
 * placeholder cache; `decodeStep` runs one token per sequence against the real cache, which the session reads
 * in place (no copy of the cache per step; see `attention.ts`). `prefill` and `extend` run the LM head on the
 * positions the caller reads ({@link logitPositions}): each sequence's last one unless every logit is asked
 * for. `barrier()` resolves at once: each awaited `session.run` has already finished its work when it resolves. It implements {@link RowBatching}: rows of
 * different lengths share the cache right-aligned, each row masking the columns it does not use (see
 * `kv-cache.ts`), with its own positions.
 */
export class OnnxModel implements Model {
  /** The architecture. */
  readonly config: ModelConfig;
  /** Identity, engine, threads and dtype. */
  readonly info: ModelInfo;
  /** Its own tokenizer, else the GPT-2 BPE or byte tokenizer chosen from the vocabulary size, when one fits. */
  readonly tokenizer?: Tokenizer;
  readonly #ort: OrtModule;
  readonly #session: InferenceSession;
  /** The caller's weights, or the seed that regenerates them (seeded weights are not kept: ORT holds its copy). */
  readonly #weights: WeightSource;
  readonly #hasPositionIds: boolean;
  readonly #profiling: boolean;
  /** The graph's bytes without its weights (kept while profiling, for {@link OnnxModel.graphCosts}). */
  readonly #graph: Uint8Array | undefined;
  readonly #costs = new Map<string, readonly GraphNodeCost[]>();
  readonly #token = {};
  #disposed = false;
  /** Records each `session.run` when set ({@link OnnxModel.traceEngineRuns}). */
  #tracer: TraceRecorder | undefined;

  /**
   * Rows of different lengths in one decode state: joining and dropping rows copies the kept rows' cache into a
   * new batch layout (every layer's keys and values of their cached positions).
   */
  readonly rowBatching: RowBatching = {
    rowLengths: (state) => liveDecodeState(state, OnnxDecodeState, this.#token).rowLengths(),
    joinRows: (states) => this.#joinRows(states),
    keepRows: (state, keep) => this.#keepRows(state, keep),
  };

  /** Use {@link createModel}. */
  constructor(
    config: ModelConfig,
    ort: OrtModule,
    session: InferenceSession,
    weights: WeightSource,
    hasPositionIds: boolean,
    info: ModelInfo,
    profiling = false,
    graph?: Uint8Array,
    tokenizer?: HfTokenizerFiles,
  ) {
    this.config = config;
    this.#ort = ort;
    this.#session = session;
    this.#weights = weights;
    this.#hasPositionIds = hasPositionIds;
    this.info = info;
    this.#profiling = profiling;
    this.#graph = graph;
    const own = modelTokenizer(config, tokenizer);
    if (own !== undefined) this.tokenizer = own;
  }

  /**
   * The weights this model runs. For a seeded model they are regenerated on each access (deterministic in the
   * seed): only ONNX Runtime keeps a copy in memory while the model lives. Weights passed to
   * {@link createModel} are returned as given (do not mutate them: the session holds its own copy).
   */
  get weights(): WeightMap {
    const w = this.#weights;
    return w.kind === 'seeded' ? initWeights(this.config, w.seed) : w.weights;
  }

  /**
   * Full forward pass: logits `[batch, seq, vocab]` for every position.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the engine fails.
   */
  async forward(tokens: Int32Array, shape: BatchShape): Promise<Logits> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'forward');
    const out = await this.#run(tokens, shape.batch, shape.seq, undefined, false, shape.seq);
    return out.logits;
  }

  /**
   * Forward pass over a prompt that also returns its KV cache for {@link OnnxModel.decodeStep}. Logits
   * `[batch, seq, vocab]`; with `options.logits` `'last'` only the last position's, `[batch, 1, vocab]` (the LM
   * head runs on that position only), and with `false` none (empty `data`, the head still run on the last one).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the engine fails.
   */
  async prefill(tokens: Int32Array, shape: BatchShape, options?: CallOptions): Promise<StepResult> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'prefill');
    const cache = new KvCache(this.config, shape.batch, shape.seq + 1);
    const rows = logitPositions(options, shape.seq);
    const out = await this.#run(tokens, shape.batch, shape.seq, { cache, length: 0 }, true, rows);
    return {
      logits: readLogits(out.logits, shape.seq, options),
      state: new OnnxDecodeState(this.#token, shape.batch, shape.seq, cache),
    };
  }

  /**
   * One KV-cache decode step at context `state.length`: one token per sequence attends over the cached
   * positions (the last `contextWindow` of them with a sliding window) plus itself. Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a foreign, consumed or disposed state, a token count
   * different from the batch, bad ids, or a context that would exceed `maxContext`.
   */
  async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
    this.#checkOpen();
    const taken = claimDecodeState(this.config, tokens, state, OnnxDecodeState, this.#token);
    const { cache, length, starts } = taken;
    const out = await this.#run(tokens, taken.batch, 1, { cache, length, starts }, true, 1);
    return {
      logits: out.logits,
      state: new OnnxDecodeState(this.#token, taken.batch, length + 1, cache, starts),
    };
  }

  /**
   * A prefill at depth: `seq` new tokens per sequence on top of the `state.length` cached positions, in one
   * session call that reads the cache in place; logits as {@link OnnxModel.prefill}'s. Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a foreign, consumed or disposed state, a token count
   * other than `state.batch · seq`, bad ids, or a context that would exceed `maxContext`.
   */
  async extend(
    tokens: Int32Array,
    seq: number,
    state: DecodeState,
    options?: CallOptions,
  ): Promise<StepResult> {
    this.#checkOpen();
    const taken = claimDecodeState(this.config, tokens, state, OnnxDecodeState, this.#token, seq);
    const { cache, length, starts } = taken;
    const rows = logitPositions(options, seq);
    const out = await this.#run(tokens, taken.batch, seq, { cache, length, starts }, true, rows);
    return {
      logits: readLogits(out.logits, seq, options),
      state: new OnnxDecodeState(this.#token, taken.batch, length + seq, cache, starts),
    };
  }

  /**
   * KV-cache bytes of a decode state of this model, measured from its buffers: `heldBytes`, the key and value
   * rows of its `state.length` positions (what the session reads: float32, every layer, every position — with a
   * sliding window too; with rows of different lengths, the longest row's positions for every row, holes
   * included), and `allocatedBytes`, the buffers' capacity (grown by doubling, so up to 2× held).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a state this model did not make.
   */
  kvCacheBytes(state: DecodeState): {
    /** Bytes of the key and value rows of the cached positions, every layer. */
    readonly heldBytes: number;
    /** Bytes of the key and value buffers allocated, every layer (capacity rows). */
    readonly allocatedBytes: number;
  } {
    if (!(state instanceof OnnxDecodeState) || state.owner !== this.#token)
      throw new DantinoxError('INVALID_INPUT', messages.badDecodeState('it was not made by this model'));
    const { cache } = state;
    let heldBytes = 0;
    // The tensors the next call feeds the session: each layer's key and value views of the cached positions.
    for (let layer = 0; layer < this.config.numBlocks; layer++) {
      const view = cache.view(layer, 0, state.length);
      heldBytes += view.keys.byteLength + view.values.byteLength;
    }
    return { heldBytes, allocatedBytes: cache.allocatedBytes };
  }

  /** The key and value rows of `state`'s cached positions, every layer, in bytes ({@link OnnxModel.kvCacheBytes}). */
  kvCacheHeldBytes(state: DecodeState): number {
    return this.kvCacheBytes(state).heldBytes;
  }

  /**
   * FLOPs and bytes of every node of the graph in one call of shape `shape` (`countGraphFlops` of the graph this
   * model runs, memoised per shape), or `undefined` when the model was created without `profileFilePrefix` (the
   * graph is kept only for profiling). Node names are those ONNX Runtime's profiler reports.
   */
  graphCosts(shape: EngineCallShape): readonly GraphNodeCost[] | undefined {
    if (this.#graph === undefined) return undefined;
    const logitPositions = shape.logitPositions ?? shape.seq;
    const key = `${shape.batch},${shape.seq},${shape.pastLength},${logitPositions}`;
    let nodes = this.#costs.get(key);
    if (nodes === undefined) {
      nodes = countGraphFlops(this.#graph, {
        batchSize: shape.batch,
        seqLen: shape.seq,
        pastLength: shape.pastLength,
        logitPositions,
      }).nodes;
      this.#costs.set(key, nodes);
    }
    return nodes;
  }

  /**
   * Records each `session.run` from now on as a span of `tracer` inside the engine call that made it, with its
   * `feeds` and `fetches` counts and `output_bytes` (the byte size of every output, in fetch order).
   */
  traceEngineRuns(tracer: TraceRecorder): void {
    this.#tracer = tracer;
  }

  /** Resolves at once: every awaited call has already finished its engine work (`session.run` is synchronous). */
  async barrier(): Promise<void> {}

  /** Number of parameters (tied matrices counted once). */
  numParameters(): number {
    return countParameters(this.config);
  }

  /** Releases the session (and writes the profile if profiling was on); idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#profiling) this.#session.endProfiling();
    await this.#session.release();
  }

  #joinRows(states: readonly DecodeState[]): DecodeState {
    this.#checkOpen();
    const own = statesToJoin(states, OnnxDecodeState, this.#token);
    if (own.length === 1) return own[0] as OnnxDecodeState;
    const rows = own.flatMap((st) =>
      st.rowLengths().map((positions, row) => ({ cache: st.cache, length: st.length, row, positions })),
    );
    return this.#gather(own, rows);
  }

  #keepRows(state: DecodeState, keep: readonly number[]): DecodeState {
    this.#checkOpen();
    const own = liveDecodeState(state, OnnxDecodeState, this.#token);
    checkRowsToKeep(own.batch, keep);
    const lengths = own.rowLengths();
    const rows = keep.map((row) => ({
      cache: own.cache,
      length: own.length,
      row,
      positions: lengths[row] as number,
    }));
    return this.#gather([own], rows);
  }

  /** A new state of `rows` (copied from `sources`' caches), the sources consumed and their caches freed. */
  #gather(sources: readonly OnnxDecodeState[], rows: Parameters<typeof gatherRows>[1]): OnnxDecodeState {
    const { cache, length, starts } = gatherRows(this.config, rows);
    for (const source of sources) {
      source.dispose();
      source.consumed = true;
    }
    return new OnnxDecodeState(this.#token, rows.length, length, cache, starts);
  }

  #checkOpen(): void {
    if (this.#disposed) throw new DantinoxError('INVALID_INPUT', messages.modelDisposed(this.info.name));
  }

  async #run(
    tokens: Int32Array,
    batch: number,
    seq: number,
    past: { cache: KvCache; length: number; starts?: readonly number[] | undefined } | undefined,
    fetchCache: boolean,
    logitRows: number,
  ): Promise<{ logits: Logits }> {
    const { Tensor } = this.#ort;
    const { config } = this;
    const { kvHeads, headSize: hs, numBlocks } = config;
    const pastLength = past?.length ?? 0;
    const feeds: Record<string, Tensor> = {
      [IO.inputIds]: new Tensor('int32', tokens, [batch, seq]),
      [IO.logitsFrom]: new Tensor('int64', BigInt64Array.of(BigInt(seq - logitRows)), [1]),
    };
    if (this.#hasPositionIds) {
      feeds[IO.positionIds] = new Tensor('int64', rowPositionIds(batch, seq, pastLength, past?.starts), [
        batch,
        seq,
      ]);
    }
    // The cache has room for the new rows before any view of it is taken (growing reallocates its buffers).
    if (fetchCache && past !== undefined) past.cache.ensure(pastLength + seq);
    // The past rows the graph sees: the visible cache window, or one masked placeholder row.
    const layout = maskLayout(config, seq, past === undefined ? 0 : pastLength);
    const zeros = pastLength === 0 ? new Float32Array(batch * kvHeads * hs) : undefined;
    for (let i = 0; i < numBlocks; i++) {
      const names = cacheNames(i);
      const dims = [layout.pastRows, batch, kvHeads, hs];
      const view =
        past !== undefined && zeros === undefined
          ? past.cache.view(i, layout.pastStart, layout.pastStart + layout.pastRows)
          : { keys: zeros as Float32Array, values: zeros as Float32Array };
      feeds[names.pastKey] = new Tensor('float32', view.keys, dims);
      feeds[names.pastValue] = new Tensor('float32', view.values, dims);
    }
    // One mask broadcast over the batch, or one per row when rows differ in length.
    const starts = past?.starts;
    const mask =
      starts === undefined ? buildAttentionMask(config, layout) : buildRowMasks(config, layout, starts);
    const maskBatch = starts === undefined ? 1 : batch;
    const keys = layout.pastRows + seq;
    feeds[IO.attentionMask] = new Tensor('float32', mask, [
      maskBatch,
      mask.length / (maskBatch * keys),
      keys,
    ]);
    // The new rows' keys and values are written by ONNX Runtime straight into the cache (preallocated outputs over
    // its rows [pastLength, pastLength + seq)), not copied there from the returned tensors afterwards.
    const fetches: Record<string, Tensor | null> = { [IO.logits]: null };
    if (fetchCache && past !== undefined) {
      const dims = [seq, batch, kvHeads, hs];
      for (let i = 0; i < numBlocks; i++) {
        const names = cacheNames(i);
        const rows = past.cache.view(i, pastLength, pastLength + seq);
        fetches[names.presentKey] = new Tensor('float32', rows.keys, dims);
        fetches[names.presentValue] = new Tensor('float32', rows.values, dims);
      }
    }
    let results: InferenceSession.ReturnType;
    try {
      const run = (): Promise<InferenceSession.ReturnType> => this.#session.run(feeds, fetches);
      results =
        this.#tracer === undefined
          ? await run()
          : await this.#tracer.engineRun('session.run', run, (out) => ({
              feeds: Object.keys(feeds).length,
              fetches: Object.keys(fetches).length,
              output_bytes: Object.keys(fetches).map(
                (name) => (out[name]?.data as ArrayBufferView | undefined)?.byteLength ?? 0,
              ),
            }));
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed(this.info.engine, cause), { cause });
    }
    const data = results[IO.logits]?.data as Float32Array;
    return { logits: { data, dims: [batch, logitRows, config.vocabSize] } };
  }
}

/** The logits a prefill or extend returns: none for `logits: false` (empty data, the call's full shape). */
function readLogits(logits: Logits, seq: number, options: CallOptions | undefined): Logits {
  if (options?.logits !== false) return logits;
  const [batch, , vocab] = logits.dims;
  return { data: new Float32Array(0), dims: [batch, seq, vocab] };
}

/**
 * Creates the built-in transformer for `configOrPreset` (a {@link ModelConfig}, a preset name or a config
 * file path), with seeded random weights or `options.weights`, on an ONNX Runtime session (CPU by default).
 *
 * @example
 * ```ts
 * const model = await createModel('tiny', { seed: 0, threads: 2 });
 * const logits = await model.forward(Int32Array.from([1, 2, 3]), { batch: 1, seq: 3 });
 * await model.dispose();
 * ```
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` without `onnxruntime-node`; `INVALID_OPTION` for a bad
 * thread count, preset or execution provider; {@link dantinox!ValidationError} `INVALID_INPUT` when `weights` do not match the config;
 * `RUNTIME_ERROR` when ONNX Runtime rejects the graph.
 */
export async function createModel(
  configOrPreset: ModelConfig | string,
  options: CreateModelOptions = {},
): Promise<OnnxModel> {
  const config =
    typeof configOrPreset === 'string' ? ModelConfig.resolve(configOrPreset) : checkedConfig(configOrPreset);
  // Checked before the weights are built: a bad thread count or provider should not cost a model's worth of work.
  const threads = resolveThreads(options.threads);
  const executionProvider = options.executionProvider ?? DEFAULT_EXECUTION_PROVIDER;
  resetPeakRss();
  const t0 = process.hrtime.bigint();
  checkExecutionProvider(await loadOrt(), executionProvider);
  checkFitsInMemory(
    messages.modelBuild(config.dim, config.numBlocks, config.vocabSize),
    modelBuildBytes(config),
    {
      ...(options.force === undefined ? {} : { force: options.force }),
    },
  );
  const precision = resolvePrecision(config, options);
  const source = options.weights === undefined ? { seed: options.seed ?? 0 } : { weights: options.weights };
  // The weights reach ONNX Runtime through files, never as a second in-memory copy (see model-files.ts).
  const files = writeModelFiles(config, source, precision);
  collectGarbage();
  const weightBytes = weightFileBytes(files.modelPath);
  // The graph without its weights (they are in the external data file): kept to cost the profiled nodes.
  const graph = options.profileFilePrefix === undefined ? undefined : readFileSync(files.modelPath);
  let opened: Awaited<ReturnType<typeof createOrtSession>>;
  try {
    opened = await createOrtSession(files.modelPath, {
      threads,
      executionProvider,
      profileFilePrefix: options.profileFilePrefix,
      source: `the built-in graph of ${JSON.stringify(options.name ?? describeSource(configOrPreset))}`,
    });
  } finally {
    files.remove();
  }
  const name = options.name ?? describeSource(configOrPreset);
  return new OnnxModel(
    config,
    opened.ort,
    opened.session,
    'weights' in source ? { kind: 'given', weights: source.weights } : { kind: 'seeded', seed: source.seed },
    files.hasPositionIds,
    {
      name,
      engine: opened.engine,
      threads,
      dtype: precision.dtype,
      // float16 weights are cast to float32 when the session is created (a folded Cast): fp32 at run time.
      ...(precision.dtype === 'fp16' ? { runtimeDtype: 'fp32' as const } : {}),
      load: { ms: Number(process.hrtime.bigint() - t0) / 1e6, peakRssBytes: readRss().peakRssBytes },
      weightBytes,
      ...(files.quantization === undefined ? {} : { quantization: files.quantization }),
    },
    options.profileFilePrefix !== undefined,
    graph,
    options.tokenizer,
  );
}

/**
 * Position ids `[batch, seq]` of `seq` new tokens after `pastLength` cached columns: row b's first new token is at
 * position `pastLength − starts[b]` (its cached positions), or `pastLength` for every row without `starts`.
 */
function rowPositionIds(
  batch: number,
  seq: number,
  pastLength: number,
  starts: readonly number[] | undefined,
): BigInt64Array {
  if (starts === undefined) return positionIds(batch, seq, pastLength);
  const out = new BigInt64Array(batch * seq);
  for (let b = 0; b < batch; b++) {
    for (let t = 0; t < seq; t++) out[b * seq + t] = BigInt(pastLength - (starts[b] as number) + t);
  }
  return out;
}

/** The default model name: the preset name or config path given, `custom` for a config object. */
function describeSource(configOrPreset: ModelConfig | string): string {
  return typeof configOrPreset === 'string' ? configOrPreset : 'custom';
}

/** A config passed as an object: used as is when it came from `ModelConfig.parse`, else parsed (and checked). */
function checkedConfig(config: unknown): ModelConfig {
  if (!Object.isFrozen(config)) return ModelConfig.parse(config);
  checkConfigNumbers(config);
  return config as ModelConfig;
}
