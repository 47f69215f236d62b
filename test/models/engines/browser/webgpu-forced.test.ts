/**
 * WebGPU forced onto a fallback adapter (`force`, the CLI's `--force`): on a machine without a GPU, headless Chromium's
 * only adapter is SwiftShader, a software rasterizer. Forced, the session runs on it, the adapter's vendor,
 * architecture and `isFallbackAdapter` are recorded, the nodes the session left to the CPU are counted, and its logits
 * still agree with the Node engine's.
 */
import { describe, expect, it } from 'vitest';
import { createBrowserModel } from '../../../../src/models/engines/browser/browser-model.js';
import { createModel, ModelConfig } from '../../../../src/models/index.js';

describe('webgpu forced onto a fallback adapter', () => {
  it('records the adapter, runs on webgpu, and agrees with Node within 1e-3', async () => {
    const config = ModelConfig.preset('tiny');
    const model = await createBrowserModel(config, { executionProvider: 'webgpu', force: true, seed: 1 });
    const node = await createModel(config, { seed: 1, threads: 1 });
    try {
      const info = model.info.browser;
      expect(model.info.engine).toMatch(/\(webgpu\)$/);
      expect(info?.provider).toBe('webgpu');
      expect(typeof info?.adapter?.vendor).toBe('string');
      expect(typeof info?.adapter?.architecture).toBe('string');
      expect(typeof info?.adapter?.isFallbackAdapter).toBe('boolean');
      // Placement read from the session log: onnxruntime-web's WebGPU provider has no kernel for the graph's
      // com.microsoft.FusedMatMul (the attention products, four per layer), so those nodes run on the CPU —
      // detected and counted, not silently mixed into a "webgpu" figure.
      const off = info?.offProvider;
      expect(off?.total).toBeGreaterThan(0);
      expect(off?.count).toBeGreaterThan(0);
      expect(off?.count).toBeLessThan(off?.total as number);
      expect(off?.opTypes).toMatch(/^FusedMatMul×\d+/);
      const tokens = Int32Array.of(1, 2, 3, 4, 5);
      const [a, b] = [
        await node.forward(tokens, { batch: 1, seq: 5 }),
        await model.forward(tokens, { batch: 1, seq: 5 }),
      ];
      let worst = 0;
      for (let i = 0; i < a.data.length; i++)
        worst = Math.max(worst, Math.abs((a.data[i] as number) - (b.data[i] as number)));
      // GPU kernels (even emulated) reorder float32 sums more than WASM does: 1e-3 absolute.
      expect(worst).toBeLessThan(1e-3);
    } finally {
      await model.dispose();
      await node.dispose();
    }
  }, 120_000);
});
