import { describe, expect, it } from 'vitest';
import { ModelConfig } from '../../src/models/model-config.js';
import { depthCost } from '../../src/profiling/depth-cost.js';
import { countFlops } from '../../src/profiling/flops.js';
import { memoryFootprint } from '../../src/profiling/memory.js';

describe('depthCost', () => {
  const small = ModelConfig.preset('small');
  const { numBlocks: layers, nHeads, headSize, kvHeads } = small;

  it('gives the attention-score FLOPs of a decode step at depth d by hand: 4 · layers · heads · headSize · (d + 1)', () => {
    for (const d of [0, 1, 255, 500]) {
      const c = depthCost(small, { depth: d, seqLen: 1 });
      expect(c.attentionScoreFlops).toBe(4 * layers * nHeads * headSize * (d + 1));
      expect(c.flops).toBe(countFlops(small, { seqLen: 1, pastLength: d }).total);
    }
  });

  it('gives the prefill at depth: P queries each against d + P keys (the causal mask is not halved)', () => {
    const c = depthCost(small, { depth: 128, seqLen: 64 });
    expect(c.attentionScoreFlops).toBe(4 * layers * nHeads * headSize * 64 * (128 + 64));
  });

  it("counts a prefill's LM head over its last position only: the logits a generation reads", () => {
    const c = depthCost(small, { depth: 128, seqLen: 64 });
    const all = countFlops(small, { seqLen: 64, pastLength: 128 });
    expect(c.flops).toBe(all.total - all.lmHead + 2 * small.dim * small.vocabSize);
  });

  it('grows linearly with depth: equal steps in d add equal FLOPs and KV bytes', () => {
    const at = (d: number) => depthCost(small, { depth: d, seqLen: 1 });
    const step = at(256).flops - at(0).flops;
    expect(at(512 - 1).flops - at(256 - 1).flops).toBe(step);
    expect(at(256).kvReadBytes - at(0).kvReadBytes).toBe(256 * 2 * layers * kvHeads * headSize * 4);
  });

  it('reads KV bytes of every cached position, and only the band with a causal sliding window', () => {
    const kvPerToken = memoryFootprint(small).kvBytesPerToken;
    const full = depthCost(small, { depth: 300, seqLen: 1 });
    expect(full.kvReadBytes).toBe(301 * kvPerToken);
    expect(full.kvHeldBytes).toBe(301 * kvPerToken);
    expect(full.bytes).toBe(memoryFootprint(small).activeWeightBytes + 301 * kvPerToken);
    const windowed = ModelConfig.preset('small', { slidingWindow: true, contextWindow: 64 });
    const w = depthCost(windowed, { depth: 300, seqLen: 1 });
    expect(w.kvReadBytes).toBe((64 + 1) * kvPerToken);
    expect(w.kvHeldBytes).toBe(301 * kvPerToken);
    expect(w.attentionScoreFlops).toBe(4 * layers * nHeads * headSize * 65);
  });

  it('halves the KV bytes of a GQA model with half the KV heads', () => {
    const gqa = ModelConfig.preset('small', { kvHeads: nHeads / 2 });
    expect(depthCost(gqa, { depth: 100, seqLen: 1 }).kvReadBytes * 2).toBe(
      depthCost(small, { depth: 100, seqLen: 1 }).kvReadBytes,
    );
  });

  it('rejects a depth beyond maxContext like countFlops', () => {
    expect(() => depthCost(small, { depth: small.maxContext, seqLen: 1 })).toThrow(/maxContext/);
  });
});
