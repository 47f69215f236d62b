/**
 * The browser target on the `tiny` preset in a real headless Chromium: the same logits as the Node ONNX Runtime
 * engine within 1e-4 (forward, prefill and KV-cache decode steps), the page's facts recorded (isolation, threads
 * actually used, timer resolution, provider), the in-page clock advanced by each call, no logits sent back when
 * the caller does not read them and only the last position's when that is all it reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchmarkSuite } from '../../../../src/benchmarking/suite.js';
import { ThroughputTask } from '../../../../src/benchmarking/tasks/throughput-task.js';
import {
  type BrowserModel,
  createBrowserModel,
} from '../../../../src/models/engines/browser/browser-model.js';
import { createModel, ModelConfig, type OnnxModel } from '../../../../src/models/index.js';
import { ARParadigm } from '../../../../src/models/paradigms/ar-paradigm.js';

const config = ModelConfig.preset('tiny');
let browser: BrowserModel;
let node: OnnxModel;

beforeAll(async () => {
  node = await createModel(config, { seed: 3, threads: 2 });
  browser = await createBrowserModel(config, { seed: 3, threads: 2, name: 'tiny' });
}, 120_000);
afterAll(async () => {
  await browser?.dispose();
  await node?.dispose();
});

/** Largest absolute difference of two arrays of the same length. */
function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  return worst;
}

const ids = (n: number, offset = 0): Int32Array =>
  Int32Array.from({ length: n }, (_, i) => (i * 37 + offset) % config.vocabSize);

describe('BrowserModel (tiny, real Chromium)', () => {
  it('records what the page could do: isolated, the threads asked, a 5 µs-class timer, wasm', () => {
    const info = browser.info;
    expect(info.target).toBe('browser');
    expect(info.engine).toMatch(/^onnxruntime-web \S+ \(wasm\)$/);
    expect(info.browser?.crossOriginIsolated).toBe(true);
    expect(info.browser?.threadsUsed).toBe(2);
    expect(info.threads).toBe(2);
    expect(info.browser?.threadsAsked).toBe(2);
    expect(info.browser?.timerResolutionMs).toBeGreaterThan(0);
    expect(info.browser?.timerResolutionMs).toBeLessThan(0.05);
    expect(info.browser?.hardwareConcurrency).toBeGreaterThan(0);
    expect(info.browser?.name).toMatch(/^chromium \d+\./);
    expect(info.browser?.provider).toBe('wasm');
    // Every node of the session placed on wasm (ONNX Runtime's CPU provider), from the session's own log.
    expect(info.browser?.offProvider?.count).toBe(0);
    expect(info.browser?.offProvider?.total).toBeGreaterThan(0);
  });

  it('gives the Node engine’s logits within 1e-4: forward over a batch of 2', async () => {
    const tokens = ids(2 * 9, 5);
    const shape = { batch: 2, seq: 9 };
    const [a, b] = [await node.forward(tokens, shape), await browser.forward(tokens, shape)];
    expect(b.dims).toEqual(a.dims);
    // Float32 kernels of two builds (MLAS native vs WASM SIMD) sum in different orders: 1e-4 absolute is the bound.
    expect(maxAbsDiff(a.data, b.data)).toBeLessThan(1e-4);
  });

  it('gives the Node engine’s logits within 1e-4 through prefill and 5 KV-cache decode steps kept in the page', async () => {
    const prompt = ids(7, 2);
    let n = await node.prefill(prompt, { batch: 1, seq: 7 });
    let w = await browser.prefill(prompt, { batch: 1, seq: 7 });
    expect(maxAbsDiff(n.logits.data, w.logits.data)).toBeLessThan(1e-4);
    for (let step = 0; step < 5; step++) {
      const next = Int32Array.of((step * 11 + 1) % config.vocabSize);
      n = await node.decodeStep(next, n.state);
      w = await browser.decodeStep(next, w.state);
      expect(w.state.length).toBe(8 + step);
      expect(maxAbsDiff(n.logits.data, w.logits.data)).toBeLessThan(1e-4);
    }
    n.state.dispose();
    w.state.dispose();
  });

  it('sends only each sequence’s last position when told (what generation samples), equal to Node’s', async () => {
    const tokens = ids(2 * 6, 4);
    const shape = { batch: 2, seq: 6 };
    const all = await node.forward(tokens, shape);
    const { logits, state } = await browser.prefill(tokens, shape, { logits: 'last' });
    state.dispose();
    const v = config.vocabSize;
    expect(logits.dims).toEqual([2, 1, v]);
    const last = new Float32Array(2 * v);
    for (let r = 0; r < 2; r++) last.set(all.data.subarray((r * 6 + 5) * v, (r * 6 + 6) * v), r * v);
    expect(maxAbsDiff(last, logits.data)).toBeLessThan(1e-4);
  });

  it('advances its clock by the in-page time of each call and sends no logits when told', async () => {
    const before = browser.clock.now();
    const out = await browser.forward(ids(16), { batch: 1, seq: 16 }, { logits: false });
    expect(out.data.length).toBe(0);
    expect(out.dims).toEqual([1, 16, config.vocabSize]);
    expect(browser.clock.now()).toBeGreaterThan(before);
  });

  it('times a suite inside the page: the samples are the page clock’s steps, recorded as such', async () => {
    const suite = new BenchmarkSuite({
      tasks: [new ThroughputTask()],
      config: { seqLens: [8], batchSizes: [1], nWarmup: 1, nMeasure: 5, minWarmupMs: 0, minMeasureMs: 0 },
    });
    const before = browser.clock.now();
    const report = await suite.run(new ARParadigm(config), browser, { jsonl: false, progress: 'silent' });
    const advancedMs = Number(browser.clock.now() - before) / 1e6;
    expect(report.environment?.timer?.['clockName']).toBe(browser.clock.name);
    expect(report.environment?.timer?.['resolutionNs']).toBe(
      Math.round((browser.info.browser?.timerResolutionMs as number) * 1e6),
    );
    expect(report.environment?.browser?.threadsUsed).toBe(2);
    const samples = report.results[0]?.cells?.[0]?.samplesMs ?? [];
    expect(samples.length).toBeGreaterThanOrEqual(5);
    // Every timed call is an in-page duration: together at most what the page clock moved (warm-up included).
    const sum = samples.reduce((a, b) => a + b, 0);
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThanOrEqual(advancedMs + 1e-3 * samples.length);
    // The model's memory is in the browser's processes: this process's peak RSS would say nothing about it.
    expect(report.results[0]?.metrics['peak_rss_mb']).toBeUndefined();
    expect(report.modelMeta['target']).toBe('browser');
    expect(report.modelMeta['cross_origin_isolated']).toBe(true);
    expect(report.modelMeta['nodes_off_provider']).toBe(0);
    expect(report.environment?.browser?.offProvider?.count).toBe(0);
  });
});
