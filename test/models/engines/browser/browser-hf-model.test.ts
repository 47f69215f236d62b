/**
 * A Hugging Face ONNX folder in the browser (`--model DIR --target browser`): the same file the Node engine loads
 * (here the Llama layout — rotary positions, GQA, `position_ids` — exported by dantinox), served from loopback and
 * run by onnxruntime-web, gives the Node engine's logits through a prefill and KV-cache decode steps whose
 * `present.*` tensors stay in the page, with the folder's tokenizer and parameter count.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadEngineModel } from '../../../../src/models/engines/engine-registry.js';
import { writeTinyHfModel } from '../../hf/fixtures.js';

const tiny = writeTinyHfModel('llama', { seed: 4 });
afterAll(() => tiny.cleanup());

describe('a Hugging Face folder on the browser target (tiny llama layout)', () => {
  it('gives the Node engine’s logits within 1e-4 through prefill and 3 decode steps', async () => {
    const node = await loadEngineModel('ort', tiny.dir, { threads: 1 });
    const browser = await loadEngineModel('ort', tiny.dir, { threads: 1, target: 'browser' });
    try {
      expect(browser.info.target).toBe('browser');
      expect(browser.info.engine).toMatch(/^onnxruntime-web \S+ \(wasm\)$/);
      expect(browser.info.dtype).toBe(node.info.dtype);
      expect(browser.info.browser?.offProvider?.count).toBe(0);
      expect(browser.numParameters()).toBe(node.numParameters());
      expect(browser.tokenizer?.encode('hi')).toEqual(node.tokenizer?.encode('hi'));
      const prompt = Int32Array.of(1, 5, 9, 33, 200);
      let n = await node.prefill(prompt, { batch: 1, seq: 5 });
      let b = await browser.prefill(prompt, { batch: 1, seq: 5 });
      let worst = 0;
      const compare = (x: Float32Array, y: Float32Array): void => {
        expect(y.length).toBe(x.length);
        for (let i = 0; i < x.length; i++)
          worst = Math.max(worst, Math.abs((x[i] as number) - (y[i] as number)));
      };
      compare(n.logits.data, b.logits.data);
      for (let step = 0; step < 3; step++) {
        n = await node.decodeStep(Int32Array.of(step + 3), n.state);
        b = await browser.decodeStep(Int32Array.of(step + 3), b.state);
        expect(b.state.length).toBe(6 + step);
        compare(n.logits.data, b.logits.data);
      }
      // Float32 kernels of two builds (MLAS native vs WASM SIMD) sum in different orders.
      expect(worst).toBeLessThan(1e-4);
      n.state.dispose();
      b.state.dispose();
    } finally {
      await browser.dispose();
      await node.dispose();
    }
  }, 120_000);
});
