/**
 * Activation memory of a forward pass, measured against `forwardActivationBytes`'s prediction for the four
 * attention kinds (MHA, GQA, sliding window, MoE), beside the KV-cache bytes of `kv-cache-bytes.test.ts`. Measured:
 * the growth of this process's peak resident memory (`VmHWM`, reset through `/proc/self/clear_refs` after a warm
 * forward at a small shape, so that the weights, the session and the code are already resident, and read right after
 * the reset as the base) during one forward of `tiny` at batch 4 × 512 tokens, where the attention scores dominate
 * (≈ 48 of 54 MiB predicted). Within 0.90–1.35× of the prediction: ONNX Runtime's buffers for the other intermediates
 * and allocator rounding come on top of the estimate (measured 1.04× MHA, 1.11× GQA, whose grouped queries are copied
 * once more, 1.00× sliding window, 1.01× MoE). The floor is what catches a wrong score-copy count: with two copies
 * instead of three the prediction was 1.48–1.58× short (measured above the ceiling), with four it reads 0.77–0.86×
 * and every kind fails. It is 0.90, not 0.95, because in 4 of 66 runs of this file one kind measured about 4 MiB
 * (0.075×) less than its usual figure, with or without a forced garbage collection before the reset and with one
 * libuv thread or four; the cause is not known. The formula itself is pinned by the known answers of
 * `memory-check.test.ts`. Linux only (`/proc`).
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { forwardActivationBytes } from '../../../src/models/memory-check.js';
import { ModelConfig, type ModelConfigInput } from '../../../src/models/model-config.js';
import { createModel, type OnnxModel } from '../../../src/models/onnx/onnx-model.js';
import { readRss, resetPeakRss } from '../../../src/profiling/process-memory.js';

const KINDS: Record<string, ModelConfigInput> = {
  mha: {},
  gqa: { kvHeads: 1, attention: 'gqa' },
  'sliding window': { slidingWindow: true, contextWindow: 8 },
  moe: { ffn: 'moe', nExperts: 4, topK: 2 },
};

const BATCH = 4;
const SEQ = 512;

const open: OnnxModel[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
});

describe.runIf(existsSync('/proc/self/clear_refs'))(
  'activation bytes of a forward: measured vs predicted',
  () => {
    for (const [kind, overrides] of Object.entries(KINDS)) {
      it(kind, async () => {
        const config = ModelConfig.preset('tiny', { ...overrides, maxContext: SEQ });
        const model = await createModel(config, { seed: 1, threads: 1 });
        open.push(model);
        await model.forward(new Int32Array(BATCH * 8).fill(3), { batch: BATCH, seq: 8 });
        resetPeakRss();
        const before = readRss().peakRssBytes;
        await model.forward(new Int32Array(BATCH * SEQ).fill(3), { batch: BATCH, seq: SEQ });
        const measured = readRss().peakRssBytes - before;
        const ratio = measured / forwardActivationBytes(config, BATCH, SEQ);
        expect(ratio, `${kind}: measured ${(measured / 2 ** 20).toFixed(1)} MiB`).toBeGreaterThan(0.9);
        expect(ratio, `${kind}: measured ${(measured / 2 ** 20).toFixed(1)} MiB`).toBeLessThan(1.35);
      });
    }
  },
);
