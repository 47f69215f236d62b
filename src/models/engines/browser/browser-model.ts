/**
 * `BrowserModel`: the built-in transformer run by onnxruntime-web in a headless Chromium page. The same graph bytes
 * as the Node engine are served from loopback to a cross-origin isolated page; each call is one message to the page,
 * which keeps the KV caches, times the call with its own clock and returns the logits only when the caller reads
 * them. The in-page durations drive {@link BrowserModel.clock}, so the tasks time the engine, not the round trip.
 *
 * @packageDocumentation
 */
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { DantinoxError, errorText } from '../../../errors.js';
import { messages } from '../../../messages.js';
import type {
  BatchShape,
  CallOptions,
  DecodeState,
  Logits,
  Model,
  ModelInfo,
  StepResult,
} from '../../model.js';
import type { ModelConfig } from '../../model-config.js';
import { buildAttentionMask, maskLayout } from '../../onnx/attention-mask.js';
import { writeModelFiles } from '../../onnx/model-files.js';
import { type BuiltinDtype, resolvePrecision } from '../../onnx/precision.js';
import { checkTokenBatch, claimDecodeState } from '../../token-checks.js';
import type { Tokenizer } from '../../tokenizer.js';
import { builtinTokenizer } from '../../tokenizers/builtin-tokenizer.js';
import { weightFileBytes } from '../../weight-file-bytes.js';
import { countParameters, type WeightMap } from '../../weights.js';
import { EngineDecodeState } from '../engine-decode-state.js';
import { checkThreads } from '../threads.js';
import { findBrowser } from './find-browser.js';
import { loadPlaywright, ortWebDist } from './load-playwright.js';
import { offProviderNodes, PLACEMENT_LOG_TAG } from './node-placement.js';
import { PageClock } from './page-clock.js';
import {
  installPageRuntime,
  type PageBytes,
  type PageCall,
  type PageCallResult,
  type PageFacts,
  type PageInit,
  type PageLogits,
  type PageRuntime,
} from './page-runtime.js';
import { type PageServer, startPageServer } from './page-server.js';

/** Execution providers of the browser target. */
export type BrowserProvider = 'wasm' | 'webgpu';

/** Options of {@link createBrowserModel}. */
export interface CreateBrowserModelOptions {
  /** Seed of the random weights (ignored when `weights` is given). @default 0 */
  readonly seed?: number;
  /** Weights instead of a seeded initialisation. */
  readonly weights?: WeightMap;
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

/**
 * The page's globals, as the page functions below see them. Those functions are sent as source text, so each
 * names `globalThis.dantinoxPage` itself (a module-level helper does not exist in the page).
 */
type WithRuntime = { readonly dantinoxPage: PageRuntime };

/** Which logits the page sends back for `options` (see {@link CallOptions.logits}). */
function pageLogits(options: CallOptions): PageLogits {
  if (options.logits === false) return 'none';
  return options.logits === 'last' ? 'last' : 'all';
}

/** Masks up to this many bytes go to the page inline (base64); larger ones through the page server. */
const INLINE_BYTES = 64 * 1024;

/** Decode state of {@link BrowserModel}: the id of a cache kept in the page. */
class BrowserDecodeState extends EngineDecodeState<number> {}

/**
 * The browser execution provider for `name`: `cpu` and `wasm` are `wasm`, `webgpu` is `webgpu`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for any other.
 */
export function browserProvider(name: string | undefined): BrowserProvider {
  if (name === undefined || name === 'cpu' || name === 'wasm') return 'wasm';
  if (name === 'webgpu') return 'webgpu';
  throw new DantinoxError('INVALID_OPTION', messages.browserProvider(name));
}

/** A transformer run by onnxruntime-web in a Chromium page, implementing {@link Model}. */
export class BrowserModel implements Model {
  /** The architecture. */
  readonly config: ModelConfig;
  /** Identity, engine, threads actually used, dtype and the page's facts. */
  readonly info: ModelInfo;
  /** GPT-2 BPE or byte tokenizer chosen from the vocabulary size, when one fits. */
  readonly tokenizer?: Tokenizer;
  /** Advanced by the in-page duration of every call, in ns: the clock tasks time this model with. */
  readonly clock = new PageClock();
  readonly #browser: Browser;
  readonly #page: Page;
  readonly #server: PageServer;
  readonly #token = {};
  #disposed = false;
  #nextUpload = 1;

  /** Use {@link createBrowserModel}. */
  constructor(config: ModelConfig, info: ModelInfo, browser: Browser, page: Page, server: PageServer) {
    this.config = config;
    this.info = info;
    this.#browser = browser;
    this.#page = page;
    this.#server = server;
    const tokenizer = builtinTokenizer(config);
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
    return this.#call(tokens, shape.batch, shape.seq, undefined, pageLogits(options));
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
      (a) => (globalThis as unknown as WithRuntime).dantinoxPage.newCache(a.batch, a.rows),
      {
        batch: shape.batch,
        rows: shape.seq + 1,
      },
    );
    const state = new BrowserDecodeState(this.#token, shape.batch, shape.seq, id, (c) => this.#free(c));
    try {
      const logits = await this.#call(tokens, shape.batch, shape.seq, { id, length: 0 }, pageLogits(options));
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
    const logits = await this.#call(tokens, taken.batch, 1, cache, pageLogits(options));
    return {
      logits,
      state: new BrowserDecodeState(this.#token, taken.batch, taken.length + 1, taken.cache, (c) =>
        this.#free(c),
      ),
    };
  }

  /** Resolves at once: each call's page work has finished when its message returns. */
  async barrier(): Promise<void> {}

  /** Number of parameters (tied matrices counted once). */
  numParameters(): number {
    return countParameters(this.config);
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
      .evaluate((c) => (globalThis as unknown as WithRuntime).dantinoxPage.freeCache(c), id)
      .catch(() => undefined);
  }

  async #call(
    tokens: Int32Array,
    batch: number,
    seq: number,
    cache: { id: number; length: number } | undefined,
    logits: PageLogits,
  ): Promise<Logits> {
    const layout = maskLayout(this.config, seq, cache?.length ?? 0);
    const mask = buildAttentionMask(this.config, layout);
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
      logits,
      upload,
    };
    let result: PageCallResult;
    try {
      result = await this.#page.evaluate(
        (c) => (globalThis as unknown as WithRuntime).dantinoxPage.run(c),
        call,
      );
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.pageFailed('running the model', cause), { cause });
    }
    this.clock.advance(result.ms);
    const data = new Float32Array(result.logitsBytes / Float32Array.BYTES_PER_ELEMENT);
    if (result.logitsBytes > 0) {
      const body = this.#server.take(upload.slice('/exchange/'.length));
      if (body?.byteLength !== result.logitsBytes)
        throw new DantinoxError(
          'RUNTIME_ERROR',
          messages.pageFailed(
            'running the model',
            `the logits did not arrive (${result.logitsBytes} bytes sent)`,
          ),
        );
      new Uint8Array(data.buffer).set(body);
    }
    return { data, dims: [batch, logits === 'last' ? 1 : seq, this.config.vocabSize] };
  }
}

/** Turns a failure of the page's `init` into the error a user can act on. */
function initError(cause: unknown): DantinoxError {
  const text = errorText(cause);
  if (text.includes('NO_WEBGPU_ADAPTER'))
    return new DantinoxError('UNSUPPORTED', messages.noWebgpuAdapter(), { cause });
  const fallback = /FALLBACK_ADAPTER (\S*) (\S*)/.exec(text);
  if (fallback !== null)
    return new DantinoxError('UNSUPPORTED', messages.fallbackAdapter(fallback[1] ?? '', fallback[2] ?? ''), {
      cause,
    });
  return new DantinoxError('RUNTIME_ERROR', messages.pageFailed('opening the model', cause), { cause });
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
  const executablePath = findBrowser(options.browserPath);
  const { chromium } = await loadPlaywright();
  const ortDist = ortWebDist();
  const source = options.weights === undefined ? { seed: options.seed ?? 0 } : { weights: options.weights };
  const files = writeModelFiles(config, source, precision);
  const dataPath = `${files.modelPath}_data`;
  let server: PageServer | undefined;
  let browser: Browser | undefined;
  try {
    const weightBytes = weightFileBytes(files.modelPath);
    server = await startPageServer({
      ortDist,
      ortScript: provider === 'webgpu' ? 'ort.webgpu.min.js' : 'ort.wasm.min.js',
      modelFiles: [files.modelPath, dataPath],
      isolated: options.isolated !== false,
    });
    try {
      browser = await chromium.launch({
        executablePath,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-background-networking',
          '--disable-component-update',
          ...(provider === 'webgpu' ? ['--enable-unsafe-webgpu'] : ['--disable-gpu']),
        ],
      });
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.browserLaunchFailed(executablePath, cause), {
        cause,
      });
    }
    const page = await browser.newPage();
    // The session's placement lines, printed to the page's console while it is created.
    const placement: string[] = [];
    const onConsole = (message: ConsoleMessage): void => {
      const text = message.text();
      if (text.includes(PLACEMENT_LOG_TAG)) placement.push(text);
    };
    page.on('console', onConsole);
    await page.goto(`${server.origin}/`);
    const init: PageInit = {
      ortBase: `${server.origin}/ort/`,
      modelUrl: `${server.origin}/model/model.onnx`,
      externalData: { path: 'model.onnx_data', url: `${server.origin}/model/model.onnx_data` },
      threads,
      provider,
      allowFallbackAdapter: options.force === true,
      numBlocks: config.numBlocks,
      kvHeads: config.kvHeads,
      headSize: config.headSize,
      maxContext: config.maxContext,
      hasPositionIds: files.hasPositionIds,
    };
    let facts: PageFacts;
    try {
      await page.evaluate(installPageRuntime);
      facts = await page.evaluate((i) => (globalThis as unknown as WithRuntime).dantinoxPage.init(i), init);
    } catch (cause) {
      throw initError(cause);
    } finally {
      page.off('console', onConsole);
    }
    const offProvider = offProviderNodes(placement, provider);
    const info: ModelInfo = {
      name: options.name ?? 'custom',
      engine: `onnxruntime-web ${facts.ortVersion} (${provider})`,
      threads: facts.threads,
      dtype: precision.dtype,
      ...(precision.dtype === 'fp16' ? { runtimeDtype: 'fp32' as const } : {}),
      weightBytes,
      ...(files.quantization === undefined ? {} : { quantization: files.quantization }),
      target: 'browser',
      browser: {
        name: `${browser.browserType().name()} ${browser.version()}`,
        crossOriginIsolated: facts.crossOriginIsolated,
        hardwareConcurrency: facts.hardwareConcurrency,
        threadsUsed: facts.threads,
        threadsAsked: threads,
        timerResolutionMs: facts.timerResolutionMs,
        provider: facts.provider,
        ...(facts.adapter === undefined ? {} : { adapter: facts.adapter }),
        ...(offProvider === undefined ? {} : { offProvider }),
      },
    };
    return new BrowserModel(config, info, browser, page, server);
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await server?.close();
    throw error;
  } finally {
    files.remove();
  }
}
