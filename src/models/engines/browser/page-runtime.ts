/**
 * The code that runs inside the browser page: it opens an onnxruntime-web session on the model the loopback server
 * serves, keeps every KV cache in the page, times each call with the page's own clock (so no message round trip
 * is in a measured window) and returns logits only when asked. {@link installPageRuntime} is sent to the page as
 * source text (Playwright's `page.evaluate`), so it must not refer to anything outside its own body.
 *
 * @packageDocumentation
 */
import type { DecoderIoSource, IoMetadata } from '../../hf/hf-decoder-io.js';

/** What the page opens: runtime location, model files, threads and execution provider. */
export interface PageInit {
  /** Absolute URL of the folder holding onnxruntime-web's `.mjs`/`.wasm` files (ending in `/`). */
  readonly ortBase: string;
  /** URL of `model.onnx`. */
  readonly modelUrl: string;
  /** The graph's external-data files: the name the graph uses for each and its URL. */
  readonly externalData?: readonly { readonly path: string; readonly url: string }[] | undefined;
  /** WASM threads asked for (`ort.env.wasm.numThreads`; honoured only when the page is cross-origin isolated). */
  readonly threads: number;
  /** Execution provider: `wasm`, or `webgpu` (which needs an adapter). */
  readonly provider: 'wasm' | 'webgpu';
  /** Accept a fallback (software) WebGPU adapter instead of refusing it. */
  readonly allowFallbackAdapter: boolean;
  /** Layers of the model (one past/present key and value per layer). */
  readonly numBlocks: number;
  /** Key/value heads per layer. */
  readonly kvHeads: number;
  /** Floats per head. */
  readonly headSize: number;
  /** Largest context: a cache never grows beyond it. */
  readonly maxContext: number;
  /** Whether the graph has a `position_ids` input. */
  readonly hasPositionIds: boolean;
}

/** The I/O of a Hugging Face decoder graph, as the host derived it from the session's inputs (`decoderIo`). */
export interface PageHfIo {
  /** `input_ids`. */
  readonly inputIds: string;
  /** Element type of `input_ids`. */
  readonly idsType: 'int64' | 'int32';
  /** `attention_mask` (int64 ones over past + new positions). */
  readonly attentionMask: string;
  /** `position_ids`, when the graph has it. */
  readonly positionIds?: string | undefined;
  /** `use_cache_branch` (merged decoders), when the graph has it. */
  readonly useCacheBranch?: string | undefined;
  /** `past_key_values.{i}.key/value`, in feed order. */
  readonly pastNames: readonly string[];
  /** `present.{i}.key/value`, in the same order. */
  readonly presentNames: readonly string[];
  /** `logits`. */
  readonly logits: string;
  /** Element type of the cache tensors. */
  readonly pastType: 'float32' | 'float16';
  /** Key/value heads. */
  readonly kvHeads: number;
  /** Floats per head. */
  readonly headSize: number;
}

/** The WebGPU adapter the page got, as it describes itself. */
export interface PageAdapter {
  /** GPU vendor, e.g. `google` for SwiftShader, `nvidia`. */
  readonly vendor: string;
  /** GPU architecture, e.g. `swiftshader`, `ampere`. */
  readonly architecture: string;
  /** Whether it is a fallback adapter (software rasterizer, not a GPU). */
  readonly isFallbackAdapter: boolean;
}

/** What the page measured about itself after opening the session. */
export interface PageFacts {
  /** `crossOriginIsolated`: without it WASM threads and fine timers are off. */
  readonly crossOriginIsolated: boolean;
  /** `navigator.hardwareConcurrency`: logical CPUs the page sees. */
  readonly hardwareConcurrency: number;
  /** Smallest positive step of `performance.now()`, in ms (5 µs isolated, 100 µs otherwise in Chromium). */
  readonly timerResolutionMs: number;
  /**
   * WASM threads onnxruntime-web actually runs with, measured in the page: its thread plus the Web Workers
   * (Emscripten pthreads) started while the session was created (1 without isolation, whatever was asked).
   */
  readonly threads: number;
  /** The execution provider of the session. */
  readonly provider: string;
  /** The page's `navigator.userAgent`. */
  readonly userAgent: string;
  /** onnxruntime-web's version, as it reports it. */
  readonly ortVersion: string;
  /** Time to create the session inside the page, in ms. */
  readonly loadMs: number;
  /** The WebGPU adapter (`webgpu` only). */
  readonly adapter?: PageAdapter;
  /** The session's inputs and outputs, as onnxruntime-web reports them. */
  readonly io: DecoderIoSource;
}

/** One call of the graph, as the host asks it. */
export interface PageCall {
  /** Token ids, row-major `[batch, seq]`. */
  readonly ids: Int32Array;
  /** Sequences. */
  readonly batch: number;
  /** Tokens per sequence. */
  readonly seq: number;
  /** The attention mask the host built (`[rows, pastRows + seq]` floats). */
  readonly mask: PageBytes;
  /** Cached positions before the call (0: none, a masked placeholder row is fed). */
  readonly pastLength: number;
  /** First cached position the graph sees (sliding window). */
  readonly pastStart: number;
  /** Cached positions (or placeholder rows) the graph sees. */
  readonly pastRows: number;
  /** The page cache to read and append to; absent for a forward pass without cache. */
  readonly cacheId?: number | undefined;
  /**
   * The first position whose logits the built-in graph computes (its `logits_from` input: 0 for every position,
   * `seq − 1` for the last only); a Hugging Face graph computes every position's.
   */
  readonly logitsFrom: number;
  /** Which logits to send back: every position, each sequence's last one (`[batch, 1, vocab]`), or none. */
  readonly logits: PageLogits;
  /** Where the page POSTs the logits' bytes (a path of the page server), when it sends any. */
  readonly upload: string;
}

/**
 * Bytes the host sends the page: inline as base64 when small, else a path of the page server to fetch them from
 * (text through the driver moves a few MB/s; loopback HTTP moves binary hundreds of times faster).
 */
export type PageBytes = { readonly base64: string } | { readonly url: string };

/** Which logits a call sends back to the host. */
export type PageLogits = 'all' | 'last' | 'none';

/** What a call returns: its in-page duration and, when asked, the logits. */
export interface PageCallResult {
  /** Time of the call inside the page (feeds, run, cache append), in ms. */
  readonly ms: number;
  /** Bytes of the logits the page POSTed to {@link PageCall.upload} (0: none, nothing was sent). */
  readonly logitsBytes: number;
  /** Element type of those bytes (a Hugging Face fp16 export's logits are float16). */
  readonly logitsType: 'float32' | 'float16';
}

/**
 * The page's globals as the host's page functions see them. Those functions are sent as source text, so each names
 * `globalThis.dantinoxPage` itself (a module-level helper does not exist in the page).
 */
export type WithPageRuntime = { readonly dantinoxPage: PageRuntime };

/** The object {@link installPageRuntime} puts on the page's `globalThis.dantinoxPage`. */
export interface PageRuntime {
  /** Loads onnxruntime-web, opens the session and measures the page. */
  init(init: PageInit): Promise<PageFacts>;
  /** Sets the I/O of a Hugging Face decoder (layout `hf`), before the first call. */
  useHfIo(io: PageHfIo): void;
  /** Makes an empty cache for `batch` sequences and returns its id. */
  newCache(batch: number, rows: number): number;
  /** Runs one call. */
  run(call: PageCall): Promise<PageCallResult>;
  /** Frees a cache; idempotent. */
  freeCache(id: number): void;
  /** Releases the session. */
  release(): Promise<void>;
}

/**
 * Installs `globalThis.dantinoxPage` ({@link PageRuntime}) in the page. Runs in the browser: self-contained on
 * purpose (Playwright sends its source text), onnxruntime-web is loaded by a script tag of the page as
 * `globalThis.ort`.
 */
export function installPageRuntime(): void {
  // Types of the parts of onnxruntime-web and the DOM this uses (the page has them; this file's lib does not).
  type OrtTensor = { readonly data: unknown; readonly type: string; readonly dims: readonly number[] };
  type Ort = {
    env: {
      wasm: { wasmPaths: string; numThreads: number; simd?: boolean };
      versions: Record<string, string | undefined>;
    };
    Tensor: new (type: string, data: unknown, dims: readonly number[]) => OrtTensor;
    InferenceSession: {
      create(
        model: Uint8Array,
        options: Record<string, unknown>,
      ): Promise<{
        run(feeds: Record<string, OrtTensor>, fetches: string[]): Promise<Record<string, OrtTensor>>;
        release(): Promise<void>;
        inputNames: readonly string[];
        outputNames: readonly string[];
        inputMetadata: readonly IoMetadata[];
      }>;
    };
  };
  type GpuAdapter = { info?: Partial<PageAdapter>; isFallbackAdapter?: boolean };
  type PageGlobals = {
    ort: Ort;
    crossOriginIsolated: boolean;
    navigator: {
      hardwareConcurrency: number;
      userAgent: string;
      gpu?: { requestAdapter(): Promise<GpuAdapter | null> };
    };
    fetch(
      url: string,
      init?: { method: string; body: Blob },
    ): Promise<{ ok: boolean; status: number; arrayBuffer(): Promise<ArrayBuffer> }>;
    dantinoxPage?: PageRuntime;
    Worker?: new (url: unknown, options?: unknown) => object;
  };
  const g = globalThis as unknown as PageGlobals;
  type Cache = { batch: number; capacity: number; keys: Float32Array[]; values: Float32Array[] };
  let spec: PageInit | undefined;
  let session: Awaited<ReturnType<Ort['InferenceSession']['create']>> | undefined;
  const caches = new Map<number, Cache>();
  // Hugging Face layout: each cache is the previous call's `present.*` tensors (none yet: empty past).
  let hfIo: PageHfIo | undefined;
  const hfCaches = new Map<number, { batch: number; past: OrtTensor[] | undefined }>();
  let nextId = 1;

  const grow = (cache: Cache, rows: number): void => {
    const s = spec as PageInit;
    if (rows <= cache.capacity) return;
    let capacity = Math.max(16, cache.capacity);
    while (capacity < rows) capacity *= 2;
    capacity = Math.min(Math.max(capacity, rows), s.maxContext);
    const rowSize = cache.batch * s.kvHeads * s.headSize;
    const copy = (old: Float32Array | undefined): Float32Array => {
      const next = new Float32Array(capacity * rowSize);
      if (old !== undefined) next.set(old);
      return next;
    };
    cache.keys = Array.from({ length: s.numBlocks }, (_, i) => copy(cache.keys[i]));
    cache.values = Array.from({ length: s.numBlocks }, (_, i) => copy(cache.values[i]));
    cache.capacity = capacity;
  };

  // Small inputs come inline as base64 (the native `Uint8Array.fromBase64` where the browser has it, Chromium
  // ≥ 140), larger ones from the page server: typed arrays and text through the driver move only a few MB/s.
  const U8 = Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array };
  const fromBase64 = (text: string): Uint8Array => {
    if (U8.fromBase64 !== undefined) return U8.fromBase64(text);
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  };
  const floats = async (bytes: PageBytes): Promise<Float32Array> => {
    if ('base64' in bytes) {
      const raw = fromBase64(bytes.base64);
      return new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
    }
    const response = await g.fetch(bytes.url);
    if (!response.ok) throw new Error(`fetching ${bytes.url} gave HTTP ${response.status}`);
    return new Float32Array(await response.arrayBuffer());
  };

  const resolution = (): number => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 200; i++) {
      const a = performance.now();
      let b = performance.now();
      while (b === a) b = performance.now();
      best = Math.min(best, b - a);
    }
    return best;
  };

  type Timed = { ms: number; logits: OrtTensor };
  const positionIds = (batch: number, seq: number, past: number): BigInt64Array => {
    const positions = new BigInt64Array(batch * seq);
    for (let b = 0; b < batch; b++) for (let t = 0; t < seq; t++) positions[b * seq + t] = BigInt(past + t);
    return positions;
  };

  // dantinox's built-in graph: time-major caches appended to in place, the host's float mask.
  const runBuiltin = async (call: PageCall): Promise<Timed> => {
    const s = spec as PageInit;
    const { ort } = g;
    const cache = call.cacheId === undefined ? undefined : caches.get(call.cacheId);
    if (call.cacheId !== undefined && cache === undefined) throw new Error(`no cache ${call.cacheId}`);
    const mask = await floats(call.mask);
    const t0 = performance.now();
    const { batch, seq } = call;
    const feeds: Record<string, OrtTensor> = {
      input_ids: new ort.Tensor('int32', call.ids, [batch, seq]),
      logits_from: new ort.Tensor('int64', BigInt64Array.of(BigInt(call.logitsFrom)), [1]),
    };
    if (s.hasPositionIds)
      feeds['position_ids'] = new ort.Tensor('int64', positionIds(batch, seq, call.pastLength), [batch, seq]);
    const rowSize = batch * s.kvHeads * s.headSize;
    const pastDims = [call.pastRows, batch, s.kvHeads, s.headSize];
    const zeros = call.pastLength === 0 ? new Float32Array(rowSize) : undefined;
    for (let i = 0; i < s.numBlocks; i++) {
      const a = call.pastStart * rowSize;
      const b = (call.pastStart + call.pastRows) * rowSize;
      const keys = zeros ?? (cache as Cache).keys[i]?.subarray(a, b);
      const values = zeros ?? (cache as Cache).values[i]?.subarray(a, b);
      feeds[`past_key.${i}`] = new ort.Tensor('float32', keys, pastDims);
      feeds[`past_value.${i}`] = new ort.Tensor('float32', values, pastDims);
    }
    const keysPerRow = call.pastRows + seq;
    // The built-in graph's mask [maskBatch, group·T, P+T]: one mask broadcast over the batch.
    feeds['attention_mask'] = new ort.Tensor('float32', mask, [1, mask.length / keysPerRow, keysPerRow]);
    const fetches = ['logits'];
    if (cache !== undefined)
      for (let i = 0; i < s.numBlocks; i++) fetches.push(`present_key.${i}`, `present_value.${i}`);
    const out = await (session as NonNullable<typeof session>).run(feeds, fetches);
    if (cache !== undefined) {
      grow(cache, call.pastLength + seq);
      for (let i = 0; i < s.numBlocks; i++) {
        (cache.keys[i] as Float32Array).set(
          out[`present_key.${i}`]?.data as Float32Array,
          call.pastLength * rowSize,
        );
        (cache.values[i] as Float32Array).set(
          out[`present_value.${i}`]?.data as Float32Array,
          call.pastLength * rowSize,
        );
      }
    }
    return { ms: performance.now() - t0, logits: out['logits'] as OrtTensor };
  };

  // A Hugging Face decoder: the previous call's `present.*` tensors are the next call's past, as in Node.
  const runHf = async (call: PageCall, io: PageHfIo): Promise<Timed> => {
    const { ort } = g;
    const cache = call.cacheId === undefined ? undefined : hfCaches.get(call.cacheId);
    if (call.cacheId !== undefined && cache === undefined) throw new Error(`no cache ${call.cacheId}`);
    const t0 = performance.now();
    const { batch, seq, pastLength } = call;
    const total = pastLength + seq;
    const feeds: Record<string, OrtTensor> = {};
    feeds[io.inputIds] =
      io.idsType === 'int32'
        ? new ort.Tensor('int32', call.ids, [batch, seq])
        : new ort.Tensor(
            'int64',
            BigInt64Array.from(call.ids, (v) => BigInt(v)),
            [batch, seq],
          );
    feeds[io.attentionMask] = new ort.Tensor('int64', new BigInt64Array(batch * total).fill(1n), [
      batch,
      total,
    ]);
    if (io.useCacheBranch !== undefined)
      feeds[io.useCacheBranch] = new ort.Tensor('bool', Uint8Array.of(pastLength > 0 ? 1 : 0), [1]);
    if (io.positionIds !== undefined)
      feeds[io.positionIds] = new ort.Tensor('int64', positionIds(batch, seq, pastLength), [batch, seq]);
    const emptyDims = [batch, io.kvHeads, 0, io.headSize];
    io.pastNames.forEach((name, i) => {
      feeds[name] =
        cache?.past?.[i] ??
        (io.pastType === 'float16'
          ? new ort.Tensor('float16', new Uint16Array(0), emptyDims)
          : new ort.Tensor('float32', new Float32Array(0), emptyDims));
    });
    const fetches = cache === undefined ? [io.logits] : [io.logits, ...io.presentNames];
    const out = await (session as NonNullable<typeof session>).run(feeds, fetches);
    if (cache !== undefined) cache.past = io.presentNames.map((n) => out[n] as OrtTensor);
    return { ms: performance.now() - t0, logits: out[io.logits] as OrtTensor };
  };

  const runtime: PageRuntime = {
    async init(init) {
      spec = init;
      const { ort } = g;
      ort.env.wasm.wasmPaths = init.ortBase;
      ort.env.wasm.numThreads = init.threads;
      ort.env.wasm.simd = true;
      let adapter: PageAdapter | undefined;
      if (init.provider === 'webgpu') {
        const found = await g.navigator.gpu?.requestAdapter();
        if (found === undefined || found === null) throw new Error('NO_WEBGPU_ADAPTER');
        adapter = {
          vendor: found.info?.vendor ?? '',
          architecture: found.info?.architecture ?? '',
          isFallbackAdapter: found.info?.isFallbackAdapter ?? found.isFallbackAdapter ?? false,
        };
        if (adapter.isFallbackAdapter && !init.allowFallbackAdapter)
          throw new Error(`FALLBACK_ADAPTER ${adapter.vendor} ${adapter.architecture}`);
      }
      const response = await g.fetch(init.modelUrl);
      if (!response.ok) throw new Error(`fetching ${init.modelUrl} gave HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      // Threads measured, not inferred: onnxruntime-web's WASM threads are Web Workers (Emscripten pthreads) beside
      // this page's thread, so count the workers started while the session is created.
      let workers = 0;
      const NativeWorker = g.Worker;
      if (NativeWorker !== undefined)
        g.Worker = class extends NativeWorker {
          constructor(url: unknown, options?: unknown) {
            super(url, options);
            workers++;
          }
        };
      const t0 = performance.now();
      session = await ort.InferenceSession.create(bytes, {
        executionProviders: [init.provider],
        graphOptimizationLevel: 'all',
        executionMode: 'sequential',
        // Verbose session log: the session prints where each node was placed while it is created (the host reads
        // it from the console). Runs log at their own default, warnings.
        logSeverityLevel: 0,
        ...(init.externalData === undefined
          ? {}
          : { externalData: init.externalData.map((e) => ({ path: e.path, data: e.url })) }),
      });
      const loadMs = performance.now() - t0;
      if (NativeWorker !== undefined) g.Worker = NativeWorker;
      return {
        crossOriginIsolated: g.crossOriginIsolated === true,
        hardwareConcurrency: g.navigator.hardwareConcurrency,
        timerResolutionMs: resolution(),
        // This thread and the workers it started: 1 when the page cannot share memory between workers (not isolated),
        // whatever numThreads says, and fewer than asked whenever onnxruntime-web starts fewer.
        threads: 1 + workers,
        provider: init.provider,
        userAgent: g.navigator.userAgent,
        ortVersion: ort.env.versions['web'] ?? ort.env.versions['common'] ?? 'unknown',
        loadMs,
        ...(adapter === undefined ? {} : { adapter }),
        io: {
          inputNames: [...session.inputNames],
          outputNames: [...session.outputNames],
          inputMetadata: session.inputMetadata.map((m) => ({ ...m })),
        },
      };
    },

    useHfIo(io) {
      hfIo = io;
    },

    newCache(batch, rows) {
      if (hfIo !== undefined) {
        const id = nextId++;
        hfCaches.set(id, { batch, past: undefined });
        return id;
      }
      const cache: Cache = { batch, capacity: 0, keys: [], values: [] };
      grow(cache, rows);
      const id = nextId++;
      caches.set(id, cache);
      return id;
    },

    async run(call) {
      const out = hfIo === undefined ? await runBuiltin(call) : await runHf(call, hfIo);
      const { ms } = out;
      // After the timed window: pick the rows asked for and POST their bytes to the page server.
      const all = out.logits.data as Float32Array | Uint16Array;
      const logitsType = out.logits.type === 'float16' ? 'float16' : 'float32';
      if (call.logits === 'none') return { ms, logitsBytes: 0, logitsType };
      const { batch } = call;
      // Rows per sequence the graph returned: `seq`, or 1 when the built-in graph computed the last one only.
      const rows = out.logits.dims[1] ?? call.seq;
      let picked = all;
      if (call.logits === 'last' && rows > 1) {
        const vocab = all.length / (batch * rows);
        picked = all.slice(0, batch * vocab);
        for (let r = 0; r < batch; r++)
          picked.set(all.subarray((r * rows + rows - 1) * vocab, (r * rows + rows) * vocab), r * vocab);
      }
      const bytes = new Uint8Array(picked.buffer, picked.byteOffset, picked.byteLength);
      // A Blob body: Chromium uploads a typed-array body several times slower (10 s vs 1.8 s for 32 MB, measured).
      const sent = await g.fetch(call.upload, { method: 'POST', body: new Blob([bytes]) });
      if (!sent.ok) throw new Error(`sending the logits gave HTTP ${sent.status}`);
      return { ms, logitsBytes: bytes.byteLength, logitsType };
    },

    freeCache(id) {
      caches.delete(id);
      hfCaches.delete(id);
    },

    async release() {
      caches.clear();
      hfCaches.clear();
      await session?.release();
      session = undefined;
    },
  };
  g.dantinoxPage = runtime;
}
