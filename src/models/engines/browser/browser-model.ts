/**
 * `BrowserModel`: the built-in transformer run by onnxruntime-web in a headless Chromium page. The same graph bytes
 * as the Node engine are served from loopback to a cross-origin isolated page; each call is one message to the page,
 * which keeps the KV caches, times the call with its own clock and returns the logits only when the caller reads
 * them. The in-page durations drive {@link BrowserModel.clock}, so the tasks time the engine, not the round trip.
 *
 * @packageDocumentation
 */
import type { Browser, Page } from 'playwright-core';
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';
import { float16ToFloat32 } from '../../float16.js';
import type { HfTokenizerFiles } from '../../hf/hf-tokenizer-json.js';
import {
  type BatchShape,
  type CallOptions,
  type DecodeState,
  type Logits,
  logitPositions,
  type Model,
  type ModelInfo,
  type StepResult,
} from '../../model.js';
import type { ModelConfig } from '../../model-config.js';
import { buildAttentionMask, maskLayout } from '../../onnx/attention-mask.js';
import { writeModelFiles } from '../../onnx/model-files.js';
import { type BuiltinDtype, resolvePrecision } from '../../onnx/precision.js';
import { checkTokenBatch, claimDecodeState } from '../../token-checks.js';
import type { Tokenizer } from '../../tokenizer.js';
import { builtinTokenizer } from '../../tokenizers/builtin-tokenizer.js';
import { modelTokenizer } from '../../tokenizers/model-tokenizer.js';
import { weightFileBytes } from '../../weight-file-bytes.js';
import { countParameters, type WeightMap } from '../../weights.js';
import { EngineDecodeState } from '../engine-decode-state.js';
import { checkThreads } from '../threads.js';
import { browserProvider } from './browser-provider.js';
import { findBrowser } from './find-browser.js';
import { openBrowserPage, pageInit } from './open-browser-page.js';
import { PageClock } from './page-clock.js';
import type { PageBytes, PageCall, PageCallResult, PageLogits, WithPageRuntime } from './page-runtime.js';
import type { PageServer } from './page-server.js';

export { type BrowserProvider, browserProvider } from './browser-provider.js';

/** Options of {@link createBrowserModel}. */
export interface CreateBrowserModelOptions {
  /** Seed of the random weights (ignored when `weights` is given). @default 0 */
  readonly seed?: number;
  /** Weights instead of a seeded initialisation. */
  readonly weights?: WeightMap;
  /** The model's own tokenizer (a trained model's). @default the built-in tokenizer of the vocabulary size */
  readonly tokenizer?: HfTokenizerFiles;
  /** WASM threads asked of onnxruntime-web (honoured only in an isolated page). @default os.availableParallelism() */
  readonly threads?: number;
  /** Name reported in `info.name`. @default 'custom' */
  readonly name?: string;
  /** `wasm` (`cpu` is taken as `wasm`) or `webgpu`. @default 'wasm' */
  readonly executionProvider?: string;
  /** The Chromium executable. @default the first Chromium or Chrome on `PATH`, else `/usr/bin/chromium` */
  readonly browserPath?: string;
  /** Serve the page cross-origin isolated (COOP + COEP). Off only to measure a page without it. @default true */
  readonly isolated?: boolean;
  /** Accept a fallback (software) WebGPU adapter. @default false */
  readonly force?: boolean;
  /** Weight dtype, as for `createModel`. @default 'fp32' */
  readonly dtype?: BuiltinDtype;
  /** LM head dtype. @default `dtype` */
  readonly headDtype?: BuiltinDtype;
  /** 4-bit block size. @default 32 */
  readonly blockSize?: number;
  /** `MatMulNBits` accuracy level. @default 4 */
  readonly accuracyLevel?: 0 | 1 | 2 | 3 | 4;
}

/** Which logits the page sends back for `options` (see {@link CallOptions.logits}). */
function pageLogits(options: CallOptions): PageLogits {
  if (options.logits === false) return 'none';
  return options.logits === 'last' ? 'last' : 'all';
}

/** Masks up to this many bytes go to the page inline (base64); larger ones through the page server. */
const INLINE_BYTES = 64 * 1024;

/** Decode state of {@link BrowserModel}: the id of a cache kept in the page. */
class BrowserDecodeState extends EngineDecodeState<number> {}

/** A transformer run by onnxruntime-web in a Chromium page, implementing {@link Model}. */
export class BrowserModel implements Model {
  /** The architecture. */
  readonly config: ModelConfig;
  /** Identity, engine, threads actually used, dtype and the page's facts. */
  readonly info: ModelInfo;
  /** The folder's tokenizer, or the GPT-2 BPE or byte tokenizer chosen from the vocabulary size, when one fits. */
  readonly tokenizer?: Tokenizer;
  /** Advanced by the in-page duration of every call, in ns: the clock tasks time this model with. */
  readonly clock = new PageClock();
  readonly #browser: Browser;
  readonly #page: Page;
  readonly #server: PageServer;
  readonly #parameters: number;
  /** Whether the graph is a Hugging Face decoder (the page builds its mask and keeps its `present.*` tensors). */
  readonly #hf: boolean;
  readonly #token = {};
  #disposed = false;
  #nextUpload = 1;

  /** @internal Use {@link createBrowserModel} or {@link loadBrowserHfModel}. */
  constructor(parts: {
    readonly config: ModelConfig;
    readonly info: ModelInfo;
    /** The page with the session open, its browser and its loopback server. */
    readonly page: { readonly browser: Browser; readonly page: Page; readonly server: PageServer };
    /** The tokenizer (default: the built-in one that fits the vocabulary). */
    readonly tokenizer?: Tokenizer | undefined;
    /** Parameters (default: counted from the config). */
    readonly parameters?: number;
    /** A Hugging Face decoder graph rather than the built-in one. */
    readonly hf?: boolean;
  }) {
    this.config = parts.config;
    this.info = parts.info;
    this.#browser = parts.page.browser;
    this.#page = parts.page.page;
    this.#server = parts.page.server;
    this.#parameters = parts.parameters ?? countParameters(parts.config);
    this.#hf = parts.hf === true;
    const tokenizer = parts.tokenizer ?? builtinTokenizer(parts.config);
    if (tokenizer !== undefined) this.tokenizer = tokenizer;
  }

  /**
   * Full forward pass: logits `[batch, seq, vocab]` (`[batch, 1, vocab]` with `options.logits` `'last'`, empty
   * when `false`).
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the page fails.
   */
  async forward(tokens: Int32Array, shape: BatchShape, options: CallOptions = {}): Promise<Logits> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'forward');
    return this.#call(tokens, shape.batch, shape.seq, undefined, pageLogits(options), shape.seq);
  }

  /**
   * Forward pass over a prompt whose KV cache stays in the page, for {@link BrowserModel.decodeStep}.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for bad ids or shapes; `RUNTIME_ERROR` if the page fails.
   */
  async prefill(tokens: Int32Array, shape: BatchShape, options: CallOptions = {}): Promise<StepResult> {
    this.#checkOpen();
    checkTokenBatch(this.config, tokens, shape, 0, 'prefill');
    const id = await this.#page.evaluate(
      (a) => (globalThis as unknown as WithPageRuntime).dantinoxPage.newCache(a.batch, a.rows),
      {
        batch: shape.batch,
        rows: shape.seq + 1,
      },
    );
    const state = new BrowserDecodeState(this.#token, shape.batch, shape.seq, id, (c) => this.#free(c));
    try {
      const rows = logitPositions(options, shape.seq);
      const logits = await this.#call(
        tokens,
        shape.batch,
        shape.seq,
        { id, length: 0 },
        pageLogits(options),
        rows,
      );
      return { logits, state };
    } catch (error) {
      state.dispose();
      throw error;
    }
  }

  /**
   * One KV-cache decode step at context `state.length`, against the cache kept in the page. Consumes `state`.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for a foreign, consumed or disposed state or bad ids.
   */
  async decodeStep(tokens: Int32Array, state: DecodeState, options: CallOptions = {}): Promise<StepResult> {
    this.#checkOpen();
    const taken = claimDecodeState(this.config, tokens, state, BrowserDecodeState, this.#token);
    const cache = { id: taken.cache, length: taken.length };
    const logits = await this.#call(tokens, taken.batch, 1, cache, pageLogits(options), 1);
    return {
      logits,
      state: new BrowserDecodeState(this.#token, taken.batch, taken.length + 1, taken.cache, (c) =>
        this.#free(c),
      ),
    };
  }

  /** Resolves at once: each call's page work has finished when its message returns. */
  async barrier(): Promise<void> {}

  /** Number of parameters (tied matrices counted once; a folder's as its initializers declare them). */
  numParameters(): number {
    return this.#parameters;
  }

  /** Closes the browser and the loopback server; idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#browser.close().catch(() => undefined);
    await this.#server.close();
  }

  #checkOpen(): void {
    if (this.#disposed) throw new DantinoxError('INVALID_INPUT', messages.modelDisposed(this.info.name));
  }

  #free(id: number): void {
    if (this.#disposed) return;
    this.#page
      .evaluate((c) => (globalThis as unknown as WithPageRuntime).dantinoxPage.freeCache(c), id)
      .catch(() => undefined);
  }

  async #call(
    tokens: Int32Array,
    batch: number,
    seq: number,
    cache: { id: number; length: number } | undefined,
    logits: PageLogits,
    logitRows: number,
  ): Promise<Logits> {
    const layout = maskLayout(this.config, seq, cache?.length ?? 0);
    // A Hugging Face graph takes int64 ones, which the page makes; the built-in graph takes the host's float mask.
    const mask = this.#hf ? new Float32Array(0) : buildAttentionMask(this.config, layout);
    const maskBytes = new Uint8Array(mask.buffer, mask.byteOffset, mask.byteLength);
    const upload = `/exchange/l${this.#nextUpload++}`;
    const call: PageCall = {
      ids: tokens.slice(),
      batch,
      seq,
      mask: (maskBytes.byteLength <= INLINE_BYTES
        ? { base64: Buffer.from(maskBytes).toString('base64') }
        : { url: this.#server.offer(maskBytes) }) satisfies PageBytes,
      pastLength: layout.pastLength,
      pastStart: layout.pastStart,
      pastRows: layout.pastRows,
      cacheId: cache?.id,
      logitsFrom: seq - logitRows,
      logits,
      upload,
    };
    let result: PageCallResult;
    try {
      result = await this.#page.evaluate(
        (c) => (globalThis as unknown as WithPageRuntime).dantinoxPage.run(c),
        call,
      );
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.pageFailed('running the model', cause), { cause });
    }
    this.clock.advance(result.ms);
    const dims = [batch, logits === 'last' ? 1 : seq, this.config.vocabSize] as const;
    if (result.logitsBytes === 0) return { data: new Float32Array(0), dims };
    const body = this.#server.take(upload.slice('/exchange/'.length));
    if (body?.byteLength !== result.logitsBytes)
      throw new DantinoxError(
        'RUNTIME_ERROR',
        messages.pageFailed(
          'running the model',
          `the logits did not arrive (${result.logitsBytes} bytes sent)`,
        ),
      );
    const raw = new Uint8Array(result.logitsBytes);
    raw.set(body);
    const data =
      result.logitsType === 'float16'
        ? float16ToFloat32(new Uint16Array(raw.buffer))
        : new Float32Array(raw.buffer);
    return { data, dims };
  }
}

/**
 * Builds the built-in transformer `config` (seeded or given weights, in the asked dtype: the same bytes the Node
 * engine loads), starts the loopback server, launches Chromium headless and opens the model in the page with
 * onnxruntime-web.
 *
 * @example
 * ```ts
 * const model = await createBrowserModel(ModelConfig.preset('tiny'), { threads: 2 });
 * console.log(model.info.browser); // crossOriginIsolated, threadsUsed, timerResolutionMs…
 * await model.dispose();
 * ```
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for bad threads, dtype or provider; `DEPENDENCY_MISSING`
 *   without Chromium (naming `--browser-path`), playwright-core or onnxruntime-web; `UNSUPPORTED` for WebGPU without
 *   an adapter or on a fallback adapter (unless `force`); `RUNTIME_ERROR` when the browser or the page fails.
 */
export async function createBrowserModel(
  config: ModelConfig,
  options: CreateBrowserModelOptions = {},
): Promise<BrowserModel> {
  // Everything that can be refused is checked before a weight is built or a browser started.
  const threads = checkThreads(options.threads);
  const provider = browserProvider(options.executionProvider);
  const precision = resolvePrecision(config, options);
  findBrowser(options.browserPath);
  const source = options.weights === undefined ? { seed: options.seed ?? 0 } : { weights: options.weights };
  const files = writeModelFiles(config, source, precision);
  try {
    const weightBytes = weightFileBytes(files.modelPath);
    const opened = await openBrowserPage({
      modelFiles: [files.modelPath, `${files.modelPath}_data`],
      modelName: 'model.onnx',
      externalDataNames: ['model.onnx_data'],
      browserPath: options.browserPath,
      isolated: options.isolated,
      init: pageInit(config, {
        threads,
        provider,
        force: options.force === true,
        hasPositionIds: files.hasPositionIds,
      }),
    });
    const info: ModelInfo = {
      name: options.name ?? 'custom',
      engine: `onnxruntime-web ${opened.facts.ortVersion} (${provider})`,
      threads: opened.facts.threads,
      dtype: precision.dtype,
      ...(precision.dtype === 'fp16' ? { runtimeDtype: 'fp32' as const } : {}),
      weightBytes,
      ...(files.quantization === undefined ? {} : { quantization: files.quantization }),
      target: 'browser',
      browser: opened.browserInfo,
    };
    return new BrowserModel({
      config,
      info,
      page: opened,
      tokenizer: modelTokenizer(config, options.tokenizer),
    });
  } finally {
    files.remove();
  }
}
