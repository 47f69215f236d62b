/**
 * The browser page's threads are measured inside the page, not inferred from what was asked: the page runtime
 * (run here in Node over a fake onnxruntime-web and a fake `Worker`) counts the Web Workers the session starts. A
 * runtime that starts fewer workers than `numThreads` asks is reported with the threads it started.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  installPageRuntime,
  type PageInit,
  type WithPageRuntime,
} from '../../../../src/models/engines/browser/page-runtime.js';

const INIT: PageInit = {
  ortBase: 'http://127.0.0.1/ort/',
  modelUrl: 'http://127.0.0.1/model.onnx',
  threads: 4,
  provider: 'wasm',
  allowFallbackAdapter: false,
  numBlocks: 1,
  kvHeads: 1,
  headSize: 4,
  maxContext: 16,
  hasPositionIds: false,
};

/** A fake onnxruntime-web whose session creation starts `workers` Web Workers, whatever `numThreads` says. */
function fakeOrt(workers: number) {
  const env = { wasm: { wasmPaths: '', numThreads: 0 }, versions: { web: '1.30.0' } };
  return {
    env,
    Tensor: class {},
    InferenceSession: {
      async create() {
        const W = (globalThis as unknown as { Worker: new (url: string) => object }).Worker;
        for (let i = 0; i < workers; i++) new W(`ort-wasm-simd-threaded.mjs#${i}`);
        return {
          inputNames: [],
          outputNames: [],
          inputMetadata: [],
          run: async () => ({}),
          release: async () => {},
        };
      },
    },
  };
}

async function pageThreads(
  workers: number,
  isolated: boolean,
): Promise<{ threads: number; started: number; restored: boolean }> {
  let started = 0;
  const Stub = class {
    constructor() {
      started++;
    }
  };
  vi.stubGlobal('Worker', Stub);
  vi.stubGlobal('ort', fakeOrt(workers));
  vi.stubGlobal('crossOriginIsolated', isolated);
  vi.stubGlobal('navigator', { hardwareConcurrency: 8, userAgent: 'fake' });
  vi.stubGlobal('fetch', async () => ({
    ok: true,
    status: 200,
    arrayBuffer: async () => new ArrayBuffer(8),
  }));
  installPageRuntime();
  const facts = await (globalThis as unknown as WithPageRuntime).dantinoxPage.init(INIT);
  const restored = (globalThis as unknown as { Worker: unknown }).Worker === Stub;
  return { threads: facts.threads, started, restored };
}

afterEach(() => {
  vi.unstubAllGlobals();
  delete (globalThis as { dantinoxPage?: unknown }).dantinoxPage;
});

describe('threads measured in the page', () => {
  it('is the page thread plus the workers the session started, not numThreads', async () => {
    // 4 asked, isolated: a runtime that starts only 1 worker runs 2 threads (inferring would say 4).
    expect(await pageThreads(1, true)).toEqual({ threads: 2, started: 1, restored: true });
    expect(await pageThreads(3, true)).toEqual({ threads: 4, started: 3, restored: true });
  });

  it('is 1 when no worker started (a page without isolation), and the Worker constructor is restored', async () => {
    expect(await pageThreads(0, false)).toEqual({ threads: 1, started: 0, restored: true });
  });
});
