/** fast-check generator of small valid ModelConfigs, shared by the profiling tests. */
import fc from 'fast-check';
import { ModelConfig } from '../../src/models/model-config.js';

/** Small random configs covering MHA/GQA, MLP/MoE, SwiGLU, both norms, every position encoding, both paradigms and sliding windows. */
export const arbitraryConfig: fc.Arbitrary<ModelConfig> = fc
  .record({
    nHeads: fc.constantFrom(1, 2, 4, 8),
    headSize: fc.constantFrom(2, 4, 8),
    kvDivisor: fc.constantFrom(1, 2, 4, 8),
    numBlocks: fc.integer({ min: 1, max: 4 }),
    vocabSize: fc.integer({ min: 2, max: 300 }),
    maxContext: fc.integer({ min: 1, max: 48 }),
    moe: fc.boolean(),
    nExperts: fc.integer({ min: 1, max: 4 }),
    topKRaw: fc.integer({ min: 1, max: 4 }),
    expansion: fc.integer({ min: 1, max: 4 }),
    useSwiglu: fc.boolean(),
    norm: fc.constantFrom('rmsnorm', 'layernorm'),
    posEncoding: fc.constantFrom('rotary', 'learned', 'absolute', 'none'),
    paradigm: fc.constantFrom('ar', 'diffusion'),
    slidingWindow: fc.boolean(),
    contextWindow: fc.integer({ min: 0, max: 12 }),
    weightTying: fc.boolean(),
  })
  .map((r) =>
    ModelConfig.parse({
      dim: r.nHeads * r.headSize,
      nHeads: r.nHeads,
      kvHeads: r.nHeads % r.kvDivisor === 0 ? r.nHeads / r.kvDivisor : r.nHeads,
      numBlocks: r.numBlocks,
      vocabSize: r.vocabSize,
      maxContext: r.maxContext,
      ffn: r.moe ? 'moe' : 'mlp',
      nExperts: r.nExperts,
      topK: Math.min(r.topKRaw, r.nExperts),
      expansion: r.expansion,
      useSwiglu: r.useSwiglu,
      norm: r.norm,
      posEncoding: r.posEncoding,
      paradigm: r.paradigm,
      slidingWindow: r.slidingWindow,
      contextWindow: r.contextWindow,
      weightTying: r.weightTying,
    }),
  );

/** A config with a (seqLen, pastLength) pair that fits in its context. */
export const arbitraryConfigAndShape = arbitraryConfig.chain((config) =>
  fc
    .record({
      config: fc.constant(config),
      seqLen: fc.integer({ min: 1, max: config.maxContext }),
      pastFraction: fc.double({ min: 0, max: 1, noNaN: true }),
      batchSize: fc.integer({ min: 1, max: 5 }),
    })
    .map(({ config, seqLen, pastFraction, batchSize }) => ({
      config,
      seqLen,
      pastLength: Math.floor(pastFraction * (config.maxContext - seqLen)),
      batchSize,
    })),
);
