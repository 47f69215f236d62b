import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelConfig, type ModelConfigInput } from '../../../src/models/model-config.js';
import { countGraphFlops } from '../../../src/models/onnx/graph-flops.js';
import { buildTransformerGraph } from '../../../src/models/onnx/transformer-graph.js';
import { numElements, type WeightMap, weightSpecs } from '../../../src/models/weights.js';
import { countFlops } from '../../../src/profiling/flops.js';
import { BASE, VARIANTS } from './variants.js';

/** Zero weights of the right shapes: the FLOPs count does not depend on values. */
function zeroWeights(config: ModelConfig): WeightMap {
  return new Map(
    weightSpecs(config).map((s) => [s.name, { dims: s.dims, data: new Float32Array(numElements(s.dims)) }]),
  );
}

function graphOf(config: ModelConfig): Uint8Array {
  return buildTransformerGraph(config, zeroWeights(config)).builder.encode();
}

/** |graph − analytical| / analytical for the total and each part. */
function compare(
  config: ModelConfig,
  bytes: Uint8Array,
  batchSize: number,
  seqLen: number,
  pastLength: number,
  logitPositions = seqLen,
): void {
  const graph = countGraphFlops(bytes, { batchSize, seqLen, pastLength, logitPositions });
  const exact = countFlops(config, {
    batchSize,
    seqLen,
    pastLength,
    logitPositions,
    formula: 'exact',
    moe: 'active',
  });
  const close = (a: number, b: number): void => {
    expect(Math.abs(a - b)).toBeLessThanOrEqual(0.01 * Math.max(b, 1));
  };
  close(graph.total, exact.total);
  close(graph.attentionProjections, exact.attentionProjections);
  close(graph.attentionScores, exact.attentionScores);
  close(graph.ffn, exact.ffn);
  close(graph.router, exact.router);
  close(graph.lmHead, exact.lmHead);
}

describe('countGraphFlops agrees with countFlops (exact, moe active) within 1%', () => {
  for (const [name, overrides] of Object.entries(VARIANTS)) {
    it(`${name}: forward, prefill and decode steps`, () => {
      const config = ModelConfig.parse({ ...BASE, ...overrides });
      const bytes = graphOf(config);
      compare(config, bytes, 2, 9, 0);
      // A prefill that computes the last position's logits only, and one at depth computing the last three.
      compare(config, bytes, 2, 9, 0, 1);
      compare(config, bytes, 3, 4, 5, 3);
      compare(config, bytes, 1, 1, 0);
      for (const past of [1, 2, 5, 17]) compare(config, bytes, 3, 1, past);
    });
  }

  it('counts the masked placeholder and masked keys in `executed` only', () => {
    const config = ModelConfig.parse({ ...BASE, slidingWindow: true, contextWindow: 2 });
    const g = countGraphFlops(graphOf(config), { batchSize: 1, seqLen: 8 });
    expect(g.executed).toBeGreaterThan(g.total);
  });

  it('holds for random small configs (property)', () => {
    const arb = fc.record({
      heads: fc.constantFrom(1, 2, 4),
      headSize: fc.constantFrom(2, 4, 8),
      kvDiv: fc.constantFrom(1, 2, 4),
      numBlocks: fc.integer({ min: 1, max: 2 }),
      vocabSize: fc.integer({ min: 8, max: 40 }),
      expansion: fc.constantFrom(1, 2, 3),
      useSwiglu: fc.boolean(),
      activation: fc.constantFrom('gelu', 'silu', 'relu'),
      norm: fc.constantFrom('rmsnorm', 'layernorm'),
      posEncoding: fc.constantFrom('rotary', 'learned', 'absolute', 'none'),
      paradigm: fc.constantFrom('ar', 'diffusion'),
      slidingWindow: fc.boolean(),
      contextWindow: fc.integer({ min: 0, max: 6 }),
      weightTying: fc.boolean(),
      moe: fc.boolean(),
      nExperts: fc.integer({ min: 1, max: 4 }),
      topK: fc.integer({ min: 1, max: 4 }),
      batch: fc.integer({ min: 1, max: 3 }),
      seq: fc.integer({ min: 1, max: 10 }),
      past: fc.integer({ min: 0, max: 10 }),
      logits: fc.integer({ min: 0, max: 9 }),
    });
    fc.assert(
      fc.property(arb, (r) => {
        const input: ModelConfigInput = {
          dim: r.heads * r.headSize,
          nHeads: r.heads,
          kvHeads: Math.max(1, r.heads / Math.min(r.kvDiv, r.heads)),
          numBlocks: r.numBlocks,
          vocabSize: r.vocabSize,
          maxContext: 24,
          expansion: r.expansion,
          useSwiglu: r.useSwiglu,
          activation: r.activation,
          norm: r.norm,
          posEncoding: r.posEncoding,
          paradigm: r.paradigm,
          slidingWindow: r.slidingWindow,
          contextWindow: r.contextWindow,
          weightTying: r.weightTying,
          ffn: r.moe ? 'moe' : 'mlp',
          nExperts: r.nExperts,
          topK: Math.min(r.topK, r.nExperts),
        };
        const config = ModelConfig.parse(input);
        const bytes = graphOf(config);
        compare(config, bytes, r.batch, r.seq, 0);
        compare(config, bytes, r.batch, r.seq, r.past, 1 + (r.logits % r.seq));
        compare(config, bytes, r.batch, 1, Math.max(1, r.past));
      }),
      { numRuns: 60, seed: 20240601 },
    );
  });
});
