/**
 * The model contract the benchmarking tasks call: a built-in ONNX transformer and a user's Hugging Face export
 * both implement it, so every task runs on either.
 *
 * @packageDocumentation
 */
import type { Dtype } from '../dtype.js';
import type { Clock } from '../profiling/clock.js';
import type { TraceRecorder } from '../profiling/trace-recorder.js';
import type { ModelConfig } from './model-config.js';
import type { Tokenizer } from './tokenizer.js';

/** Shape of a token batch: `batch` sequences of `seq` tokens, row-major. */
export interface BatchShape {
  /** Number of sequences B. */
  readonly batch: number;
  /** Tokens per sequence T. */
  readonly seq: number;
}

/** Logits of a forward pass: `data` holds `batch × seq × vocab` float32 values, row-major. */
export interface Logits {
  /** Row-major `[batch, seq, vocab]` values. */
  readonly data: Float32Array;
  /** `[batch, seq, vocab]`. */
  readonly dims: readonly [number, number, number];
}

/**
 * The key/value cache of a generation in progress. Opaque to callers except for its length; it is owned by the
 * model that made it. A state passed to {@link Model.decodeStep} is consumed: use the returned state afterwards.
 */
export interface DecodeState {
  /** Sequences in the batch. */
  readonly batch: number;
  /** Tokens already in the cache (the context length c the next step attends over). */
  readonly length: number;
  /** Frees the cache's buffers; idempotent. */
  dispose(): void;
}

/** Result of {@link Model.prefill} and {@link Model.decodeStep}: the new logits and the cache after them. */
export interface StepResult {
  /** Logits of the tokens just processed: `[batch, seq, vocab]` for prefill, `[batch, 1, vocab]` for a step. */
  readonly logits: Logits;
  /** The cache including the tokens just processed. */
  readonly state: DecodeState;
}

/**
 * What a caller needs back from a call, so an engine can skip computing or copying what nobody reads: the built-in
 * ONNX Runtime graph's prefill and extend run the LM head on each sequence's last position only when `logits` is
 * `'last'` or `false` (see {@link logitPositions}); the browser target sends no logits across the page boundary when
 * `logits` is `false` and only the last position's with `'last'`; llama.cpp copies as few out of its buffers; the
 * others ignore it.
 */
export interface CallOptions {
  /**
   * Which logits the caller reads. `false`: none, and an engine may return them empty (`data.length === 0`,
   * `dims` still the shape they would have). `'last'`: only each sequence's last position, and an engine may
   * return just those (`dims` `[batch, 1, vocab]`): read `dims[1]` to know which came back.
   * @default true
   */
  readonly logits?: boolean | 'last';
}

/**
 * Positions per sequence whose logits a prefill or extend of `seq` new tokens needs to compute under `options`:
 * all `seq` when the caller reads them all, else 1 (the last position: `'last'`, and `false`, whose prefill still
 * ends on the next token's distribution as a generation's does). The analytical FLOPs of such a call count the LM
 * head over these positions only.
 */
export function logitPositions(options: CallOptions | undefined, seq: number): number {
  return options?.logits === undefined || options.logits === true ? seq : 1;
}

/**
 * Rows of different lengths in one decode state, for continuous batching: a request joins a running batch (its
 * prefilled state's rows are copied into a new state beside the running rows) and leaves it (its row is dropped)
 * between two decode steps. The engine's {@link Model.decodeStep} then takes such a state: each row attends over
 * its own cached positions and gets its own next position. Optional: an engine without it decodes rows of one
 * length only (`DecodeState.length`). For a state of rows of different lengths `length` is the longest row's.
 */
export interface RowBatching {
  /** Cached positions of each row of `state` (each ≤ `state.length`). */
  rowLengths(state: DecodeState): readonly number[];
  /**
   * One state holding the rows of `states` in order (the rows of `states[0]` first), whatever their lengths.
   * Consumes every state in `states` (a single state is returned as is).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for no state, or a state this model did not make or
   * that was consumed or disposed.
   */
  joinRows(states: readonly DecodeState[]): DecodeState;
  /**
   * A state of the rows `keep` of `state` (indices into its rows, ascending, at least one), the others freed.
   * Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad indices, or a state this model did not make or
   * that was consumed or disposed.
   */
  keepRows(state: DecodeState, keep: readonly number[]): DecodeState;
}

/** Which weight matrices a model stores in a dtype other than float32, and how. */
export interface QuantizationInfo {
  /** Dtype of the matrices inside the blocks (attention, MLP, experts, router). */
  readonly dtype: string;
  /** Dtype of the LM head. */
  readonly headDtype: string;
  /**
   * The non-float32 matrices: initializer name (a GGUF file's tensor name) → dtype, in graph (file) order. Dtypes are
   * dantinox's names (`fp16`, `q8`, `q4`…), or ggml's for a GGUF type dantinox has no name for (`Q4_K`).
   */
  readonly matrices: Readonly<Record<string, string>>;
  /** K values per 4-bit block, when some matrix is 4-bit. */
  readonly blockSize?: number;
  /** `MatMulNBits` accuracy level, when some matrix is 4-bit. */
  readonly accuracyLevel?: number;
}

/** What a model reports about itself for the report's identity and environment columns. */
export interface ModelInfo {
  /** Preset name, folder name or other short identity, e.g. `small` or `gpt2-hf`. */
  readonly name: string;
  /** Engine and version, e.g. `onnxruntime-node 1.30.0 (cpu)`. */
  readonly engine: string;
  /** Intra-op threads the engine uses. */
  readonly threads: number;
  /** How the weights are stored: a name of the dtype table, e.g. `fp32`, `q4`. */
  readonly dtype: Dtype;
  /** How creating or loading the model went, when the engine measured it. */
  readonly load?: ModelLoad;
  /** Bytes of the weight files the engine loaded (graph and external data, or GGUF file), when known. */
  readonly weightBytes?: number;
  /** Which matrices are quantized (absent when every weight is float32). */
  readonly quantization?: QuantizationInfo;
  /**
   * The dtype the engine holds the weights in while it runs, when it differs from `dtype`: the built-in `fp16`
   * graph stores float16 weights that ONNX Runtime casts to float32 when the session is created, so a decode step
   * reads `fp32` bytes. Bandwidth figures (MBU) use it.
   */
  readonly runtimeDtype?: Dtype;
  /**
   * Bytes per element of the KV cache the engine holds, when it is not the dtype's activation type (a llama.cpp
   * model with an F16 or BF16 cache: 2). Memory and bandwidth figures (the depth sweep's prediction, MBU) use it.
   */
  readonly kvBytesPerElement?: number;
  /** Where the engine runs: `node` (this process) or `browser` (a page driven by this process). @default 'node' */
  readonly target?: 'node' | 'browser';
  /** What the browser page reported about itself (browser target only). */
  readonly browser?: BrowserInfo;
}

/** The browser a model runs in and what its page could do, as the page measured it. */
export interface BrowserInfo {
  /** Browser name and version, e.g. `chromium 156.0.8078.114`. */
  readonly name: string;
  /** Whether the page was cross-origin isolated (WASM threads and 5 µs timers need it). */
  readonly crossOriginIsolated: boolean;
  /** `navigator.hardwareConcurrency`: logical CPUs the page sees. */
  readonly hardwareConcurrency: number;
  /** WASM threads onnxruntime-web actually used (1 when the page is not isolated, whatever was asked). */
  readonly threadsUsed: number;
  /** Threads asked for (`--threads`). */
  readonly threadsAsked: number;
  /** Smallest step of the page's `performance.now()`, in ms. */
  readonly timerResolutionMs: number;
  /** Execution provider of the page's session: `wasm` or `webgpu`. */
  readonly provider: string;
  /** The WebGPU adapter (vendor, architecture, fallback or not), for `webgpu`. */
  readonly adapter?: GpuAdapterInfo;
  /**
   * Nodes of the session that onnxruntime-web placed on another provider than `provider` (from its session log);
   * absent when the log said nothing about placement.
   */
  readonly offProvider?: OffProviderNodes;
}

/** Nodes of a session placed on another execution provider than the requested one: how many, and which ops. */
export interface OffProviderNodes {
  /** Nodes placed elsewhere (0: every node runs on the requested provider). */
  readonly count: number;
  /** Their op types with counts, most frequent first, e.g. `Shape×4, Gather×2` (empty when none are listed). */
  readonly opTypes: string;
  /** Nodes of the session, all providers together. */
  readonly total: number;
}

/** A WebGPU adapter as the page's `GPUAdapter.info` describes it. */
export interface GpuAdapterInfo {
  /** GPU vendor, e.g. `nvidia`; `google` for SwiftShader. */
  readonly vendor: string;
  /** GPU architecture, e.g. `ampere`; `swiftshader` for the software rasterizer. */
  readonly architecture: string;
  /** Whether it is a fallback adapter (a software rasterizer: not a GPU). */
  readonly isFallbackAdapter: boolean;
}

/** Cost of creating or loading a model: wall time and the process's peak resident memory meanwhile. */
export interface ModelLoad {
  /** Wall time of the creation, in ms. */
  readonly ms: number;
  /** Peak RSS of the process during the creation, in bytes (since process start where it cannot be reset). */
  readonly peakRssBytes: number;
}

/**
 * A transformer language model run by an inference engine.
 *
 * Token ids are `Int32Array`s, row-major `[batch, seq]`. Every method validates its input (ids in
 * `[0, vocabSize)`, `seq ≥ 1`, context ≤ `maxContext`) and throws a `DantinoxError` with code `INVALID_INPUT`
 * before touching the engine, so bad input never crashes the native runtime.
 */
export interface Model {
  /** The architecture of this model. */
  readonly config: ModelConfig;
  /** Identity and engine details. */
  readonly info: ModelInfo;
  /** The model's own tokenizer, when it has one (the built-in GPT-2-vocabulary models and HF folders do). */
  readonly tokenizer?: Tokenizer;
  /**
   * A clock that only the engine's calls advance, by the time each call took inside the engine, in ns: set by
   * engines whose calls cross a boundary (the browser target times inside the page), so that tasks time the
   * engine and not the message round trip. Absent: time with the process's own clock.
   */
  readonly clock?: Clock;
  /** Full forward pass over `tokens` (no cache): logits for every position. */
  forward(tokens: Int32Array, shape: BatchShape, options?: CallOptions): Promise<Logits>;
  /** Forward pass over a prompt that also returns the KV cache, ready for {@link Model.decodeStep}. */
  prefill(tokens: Int32Array, shape: BatchShape, options?: CallOptions): Promise<StepResult>;
  /**
   * One real KV-cache decode step: `tokens` holds one new id per sequence (`length === state.batch`); the step
   * attends over the `state.length` cached positions plus itself. Consumes `state`.
   */
  decodeStep(tokens: Int32Array, state: DecodeState, options?: CallOptions): Promise<StepResult>;
  /**
   * A prefill at depth: `seq` new tokens per sequence (`tokens.length === state.batch · seq`, row-major) on top of
   * the `state.length` cached positions, returning their logits and the cache of `state.length + seq` positions.
   * Consumes `state`. Optional: the context-depth sweep skips the prefill-at-depth cells of a model without it.
   */
  extend?(tokens: Int32Array, seq: number, state: DecodeState, options?: CallOptions): Promise<StepResult>;
  /**
   * Bytes of KV cache the engine holds for `state`, measured (its cache buffers' rows, or its context state).
   * Optional: the depth sweep records it beside the prediction where an engine can tell.
   */
  kvCacheHeldBytes?(state: DecodeState): number;
  /**
   * Records each of the engine's own runs (ONNX Runtime: `session.run`) inside the engine calls as a span of
   * `tracer` ({@link TraceRecorder.engineRun}), with the byte size of every output it returned, so that
   * `bench --trace` can tell dantinox's JavaScript from the engine's time. Optional.
   */
  traceEngineRuns?(tracer: TraceRecorder): void;
  /**
   * Rows of different lengths in one decode state (continuous batching). Optional: `dantinox serve` batches only
   * equal-length prompts, in lockstep, on an engine without it.
   */
  readonly rowBatching?: RowBatching;
  /** Resolves when all work queued on the engine has finished (the seed's `effects_barrier`). */
  barrier(): Promise<void>;
  /** Number of parameters (weights), counting tied matrices once. */
  numParameters(): number;
  /** Frees the engine's sessions and buffers; idempotent. */
  dispose(): Promise<void>;
}
