/**
 * The quantized dtypes in the browser: the same `q8` (DynamicQuantizeMatMul) and `q4` (MatMulNBits) graph bytes give
 * the Node engine's logits on onnxruntime-web, through a prefill and a decode step.
 */
import { describe, expect, it } from 'vitest';
import { createBrowserModel } from '../../../../src/models/engines/browser/browser-model.js';
import { createModel, ModelConfig } from '../../../../src/models/index.js';

const config = ModelConfig.preset('tiny');

describe('quantized dtypes in the browser (tiny)', () => {
  // q8: integer kernels on both sides, only float32 sums reordered. q4 at accuracy level 4 lets a kernel quantize
  // activations to int8 per block (MLAS does on this CPU) or stay in float32: measured 2.5e-3 apart on tiny.
  const bounds = { q8: 1e-3, q4: 1e-2 } as const;
  for (const dtype of ['q8', 'q4'] as const) {
    it(`${dtype}: the Node engine's logits within ${bounds[dtype]} through prefill and a decode step`, async () => {
      const node = await createModel(config, { seed: 2, threads: 1, dtype });
      const browser = await createBrowserModel(config, { seed: 2, threads: 1, dtype });
      try {
        expect(browser.info.dtype).toBe(dtype);
        expect(browser.info.quantization).toEqual(node.info.quantization);
        const prompt = Int32Array.from({ length: 6 }, (_, i) => (i * 29 + 3) % config.vocabSize);
        const n = await node.prefill(prompt, { batch: 1, seq: 6 });
        const b = await browser.prefill(prompt, { batch: 1, seq: 6 });
        const n2 = await node.decodeStep(Int32Array.of(7), n.state);
        const b2 = await browser.decodeStep(Int32Array.of(7), b.state);
        let worst = 0;
        for (const [x, y] of [
          [n.logits.data, b.logits.data],
          [n2.logits.data, b2.logits.data],
        ] as const) {
          expect(y.length).toBe(x.length);
          for (let i = 0; i < x.length; i++)
            worst = Math.max(worst, Math.abs((x[i] as number) - (y[i] as number)));
        }
        expect(worst).toBeLessThan(bounds[dtype]);
        n2.state.dispose();
        b2.state.dispose();
      } finally {
        await browser.dispose();
        await node.dispose();
      }
    }, 120_000);
  }
});
