/**
 * KV-cache bytes the ONNX Runtime model actually holds, against `memoryFootprint`'s prediction, for the four
 * attention kinds (MHA, GQA, sliding window, MoE) at several depths: the held tensors equal the prediction
 * exactly (0% difference); the allocated buffers exceed it by the doubling growth, at most 2× (explained, not a
 * modelling error). The latency task's depth sweep records the same held bytes beside the prediction.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { silentLogger } from '../../../src/benchmarking/logger.js';
import { LatencyTask } from '../../../src/benchmarking/tasks/latency-task.js';
import { ModelConfig, type ModelConfigInput } from '../../../src/models/model-config.js';
import { createModel, type OnnxModel } from '../../../src/models/onnx/onnx-model.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { hrtimeClock } from '../../../src/profiling/clock.js';
import { memoryFootprint } from '../../../src/profiling/memory.js';
import { Rng } from '../../../src/rng.js';

/** The smallest latency run with a depth sweep at 40 tokens. */
const DEPTHS = BenchmarkConfig.parse({
  seqLens: [8],
  depths: [40],
  nWarmup: 0,
  nMeasure: 2,
  minWarmupMs: 0,
  genTokens: 1,
});

const KINDS: Record<string, ModelConfigInput> = {
  mha: {},
  gqa: { kvHeads: 1, attention: 'gqa' },
  'sliding window': { slidingWindow: true, contextWindow: 8 },
  moe: { ffn: 'moe', nExperts: 4, topK: 2 },
};

const open: OnnxModel[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
});

describe('KV cache bytes: measured (ORT tensors) vs memoryFootprint', () => {
  for (const [kind, overrides] of Object.entries(KINDS)) {
    it(kind, async () => {
      const config = ModelConfig.preset('tiny', overrides);
      const model = await createModel(config, { seed: 2, threads: 1 });
      open.push(model);
      const predictedPerToken = memoryFootprint(config).kvBytesPerToken;
      for (const depth of [1, 17, 64, 100]) {
        const { state } = await model.prefill(new Int32Array(depth).fill(3), { batch: 1, seq: depth });
        const step = await model.decodeStep(Int32Array.of(5), state);
        const measured = model.kvCacheBytes(step.state);
        const predicted = (depth + 1) * predictedPerToken;
        expect(measured.heldBytes, `${kind} at depth ${depth + 1}`).toBe(predicted);
        expect(measured.allocatedBytes).toBeGreaterThanOrEqual(predicted);
        expect(measured.allocatedBytes).toBeLessThanOrEqual(2 * Math.max(predicted, 16 * predictedPerToken));
        step.state.dispose();
      }
      const row = await new LatencyTask().run(new ARParadigm(config), model, DEPTHS, new Rng(0), {
        logger: silentLogger,
        clock: hrtimeClock,
        plan: () => {},
        recordCell: async () => {},
      });
      expect(row.metrics['decode_kv_held_mib_d40']).toBe((40 * predictedPerToken) / 2 ** 20);
      expect(row.metrics['decode_kv_predicted_mib_d40']).toBe((40 * predictedPerToken) / 2 ** 20);
    });
  }
});
