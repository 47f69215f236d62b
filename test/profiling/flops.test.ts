import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { ModelConfig as MC, type ModelConfig } from '../../src/models/model-config.js';
import {
  countAttendedKeys,
  countDecodeFlops,
  countFlops,
  countTrainingFlops,
  FlopsBreakdown,
  formatFlops,
} from '../../src/profiling/index.js';
import { arbitraryConfig, arbitraryConfigAndShape } from './arbitrary-config.js';

/** Whether key k is visible to query p among `keys` keys, by the architecture conventions (not the closed form). */
function visible(config: ModelConfig, p: number, k: number): boolean {
  if (!config.slidingWindow) return true; // full score matrix, causal mask not halved
  const w = config.contextWindow;
  return config.causal ? p - k >= 0 && p - k <= w : Math.abs(p - k) <= w;
}

/**
 * Brute-force forward FLOPs: walks every matmul of the forward pass as (rows × inner × cols) and every scored
 * (query, key) pair, with 2 FLOPs per multiply-add. Independent of the closed forms in src/.
 */
function bruteForceFlops(
  config: ModelConfig,
  seqLen: number,
  batch: number,
  past: number,
  moe: 'active' | 'dense',
) {
  const d = config.dim;
  const hs = config.headSize;
  const f = config.expansion * d;
  const rows = batch * seqLen;
  const matmul = (m: number, k: number, n: number): number => 2 * m * k * n;
  let projections = 0;
  let scores = 0;
  let ffn = 0;
  let router = 0;
  for (let layer = 0; layer < config.numBlocks; layer++) {
    projections += matmul(rows, d, config.nHeads * hs); // q
    projections += matmul(rows, d, config.kvHeads * hs); // k
    projections += matmul(rows, d, config.kvHeads * hs); // v
    projections += matmul(rows, config.nHeads * hs, d); // o
    for (let b = 0; b < batch; b++) {
      for (let h = 0; h < config.nHeads; h++) {
        for (let p = past; p < past + seqLen; p++) {
          for (let k = 0; k < past + seqLen; k++) {
            if (visible(config, p, k)) scores += 2 * hs + 2 * hs; // q·k and the a·v row
          }
        }
      }
    }
    const mlp = (config.useSwiglu ? 3 : 2) * matmul(rows, d, f);
    if (config.ffn === 'moe') {
      router += matmul(rows, d, config.nExperts);
      ffn += matmul(rows, d, config.nExperts) + (moe === 'dense' ? config.nExperts : config.topK) * mlp;
    } else {
      ffn += mlp;
    }
  }
  const lmHead = matmul(rows, d, config.vocabSize);
  return { projections, scores, ffn, router, lmHead };
}

const small = MC.preset('small');
// The spec §2.1 doc examples: dim 512 / 12 blocks / V 32000 and dim 256 / 4 blocks / V 8000, T = 512, B = 4,
// expansion 4, SwiGLU (s = 2), which reproduce the numbers the spec recomputed from the seed's code.
const seedDocA = MC.parse({ dim: 512, nHeads: 8, numBlocks: 12, vocabSize: 32000, maxContext: 512 });
const seedDocB = MC.parse({ dim: 256, nHeads: 8, numBlocks: 4, vocabSize: 8000, maxContext: 512 });

describe('countFlops, formula "seed"', () => {
  it('reproduces the spec §2.1 recomputation for dim 512, 12 blocks, V=32000, T=512, B=4', () => {
    const f = countFlops(seedDocA, { seqLen: 512, batchSize: 4, formula: 'seed' });
    // attention = (4·2·4·512·512² + 2·4·512²·512)·12 = (4_294_967_296 + 1_073_741_824)·12
    expect(f.attention).toBe(64_424_509_440);
    // ffn = (2·4·512·512·2048·2 + 2·4·512·2048·512)·12 = (8_589_934_592 + 4_294_967_296)·12
    expect(f.ffn).toBe(154_618_822_656);
    // embedding = 2·4·512·32000·512
    expect(f.embedding).toBe(67_108_864_000);
    expect(f.total).toBe(286_152_196_096);
    expect(String(f)).toBe(
      [
        'FLOPs breakdown:',
        '  attention : 64.42 GFLOPs',
        '  ffn       : 154.62 GFLOPs',
        '  embedding : 67.11 GFLOPs',
        '  total     : 286.15 GFLOPs',
      ].join('\n'),
    );
  });

  it('reproduces the spec §2.1 recomputation for dim 256, 4 blocks, V=8000, T=512, B=4', () => {
    const f = countFlops(seedDocB, { seqLen: 512, batchSize: 4, formula: 'seed' });
    // attention = (8·4·512·256² + 2·4·512²·256)·4 = (1_073_741_824 + 536_870_912)·4
    expect(f.attention).toBe(6_442_450_944);
    // ffn = (2·4·512·256·1024·2 + 2·4·512·1024·256)·4 = (2_147_483_648 + 1_073_741_824)·4
    expect(f.ffn).toBe(12_884_901_888);
    // embedding = 2·4·512·8000·256
    expect(f.embedding).toBe(8_388_608_000);
    expect(String(f).split('\n').slice(1)).toEqual([
      '  attention : 6.44 GFLOPs',
      '  ffn       : 12.88 GFLOPs',
      '  embedding : 8.39 GFLOPs',
      '  total     : 27.72 GFLOPs',
    ]);
  });

  it('uses s = 1 without SwiGLU and ignores GQA and MoE, as the seed does', () => {
    const gelu = MC.parse({
      dim: 64,
      nHeads: 4,
      kvHeads: 1,
      numBlocks: 2,
      vocabSize: 100,
      useSwiglu: false,
      ffn: 'moe',
    });
    const f = countFlops(gelu, { seqLen: 10, formula: 'seed' });
    expect(f.attention).toBe((4 * 2 * 10 * 64 * 64 + 2 * 10 * 10 * 64) * 2);
    expect(f.ffn).toBe((2 * 10 * 64 * 256 + 2 * 10 * 256 * 64) * 2);
    expect(f.router).toBe(0);
  });

  it('has no KV-cache mode', () => {
    expect(() => countFlops(small, { seqLen: 1, pastLength: 3, formula: 'seed' })).toThrow(
      messages.seedFormulaNoCache(3),
    );
  });

  it('counts the LM head over every position only', () => {
    expect(() => countFlops(small, { seqLen: 4, logitPositions: 1, formula: 'seed' })).toThrow(
      messages.seedFormulaAllLogits(1, 4),
    );
    expect(countFlops(small, { seqLen: 4, logitPositions: 4, formula: 'seed' })).toEqual(
      countFlops(small, { seqLen: 4, formula: 'seed' }),
    );
  });
});

describe('countFlops, formula "exact"', () => {
  it('matches a hand count for the tiny preset (T=8, B=2)', () => {
    const tiny = MC.preset('tiny'); // D=32, H=kvH=4, hs=8, L=2, V=256, F=4·32=128, SwiGLU, tied, causal
    const f = countFlops(tiny, { seqLen: 8, batchSize: 2 });
    // tokens = B·T = 16
    // projections/layer = 2·16·(32·32 [q] + 2·32·32 [k,v] + 32·32 [o]) = 131_072; ×2 layers = 262_144
    expect(f.attentionProjections).toBe(262_144);
    // scores/layer = (2·hs + 2·hs)·H·B·(T·T keys, full square) = 4·32·2·64 = 16_384; ×2 = 32_768
    expect(f.attentionScores).toBe(32_768);
    // ffn/layer = 3 matrices · 2·16·32·128 = 393_216; ×2 = 786_432
    expect(f.ffn).toBe(786_432);
    // lm head = 2·16·32·256 = 262_144
    expect(f.lmHead).toBe(262_144);
    expect(f.embedding).toBe(f.lmHead);
    expect(f.total).toBe(262_144 + 32_768 + 786_432 + 262_144); // 1_343_488
    expect(String(f)).toContain('  total     : 1.34 MFLOPs');
  });

  it('matches a hand count for a decode step of the tiny preset at context 10', () => {
    const f = countDecodeFlops(MC.preset('tiny'), { context: 10 });
    // projections = 2·(4·32·32)·2 = 16_384; scores = 4·32·11 keys·2 = 2_816
    // ffn = 2·32·128·3·2 = 49_152; lm head = 2·32·256 = 16_384
    expect([f.attentionProjections, f.attentionScores, f.ffn, f.lmHead]).toEqual([
      16_384, 2_816, 49_152, 16_384,
    ]);
    expect(f.total).toBe(84_736);
    expect(f).toEqual(countFlops(MC.preset('tiny'), { seqLen: 1, pastLength: 10 }));
  });

  it("counts the LM head over the logitPositions last positions only: a prefill's next-token logits", () => {
    const tiny = MC.preset('tiny');
    const all = countFlops(tiny, { seqLen: 8, batchSize: 2 });
    const last = countFlops(tiny, { seqLen: 8, batchSize: 2, logitPositions: 1 });
    const three = countFlops(tiny, { seqLen: 8, batchSize: 2, pastLength: 3, logitPositions: 3 });
    // lm head = 2·B·R·D·V: 2·2·1·32·256 = 32_768 and 2·2·3·32·256 = 98_304; nothing else changes.
    expect(last.lmHead).toBe(32_768);
    expect(three.lmHead).toBe(98_304);
    expect([last.attention, last.ffn, last.router]).toEqual([all.attention, all.ffn, all.router]);
    expect(last.total).toBe(1_343_488 - 262_144 + 32_768);
    expect([all.logitPositions, last.logitPositions, three.logitPositions]).toEqual([8, 1, 3]);
    expect(countFlops(tiny, { seqLen: 8, batchSize: 2, logitPositions: 8 })).toEqual(all);
    expect(last.toDetailedString()).toContain('T=8, past=0, logits of the last 1):');
    expect(all.toDetailedString()).toContain('T=8, past=0):');
  });

  it('counts GQA K/V at kvHeads width: the spec §8 ratio 0.625 for D=512, 8 heads, kv=2', () => {
    const mha = MC.parse({ dim: 512, nHeads: 8, numBlocks: 1, vocabSize: 10 });
    const gqa = MC.parse({ dim: 512, nHeads: 8, kvHeads: 2, numBlocks: 1, vocabSize: 10 });
    const ratio =
      countFlops(gqa, { seqLen: 16 }).attentionProjections /
      countFlops(mha, { seqLen: 16 }).attentionProjections;
    expect(ratio).toBe(0.625);
  });

  it('counts MoE as router + topK experts, or all experts with moe: "dense"', () => {
    const moe = MC.parse({
      dim: 32,
      nHeads: 4,
      numBlocks: 1,
      vocabSize: 10,
      ffn: 'moe',
      nExperts: 4,
      topK: 2,
    });
    const active = countFlops(moe, { seqLen: 4 });
    const dense = countFlops(moe, { seqLen: 4, moe: 'dense' });
    const router = 2 * 4 * 32 * 4;
    const expert = 3 * 2 * 4 * 32 * 128;
    expect(active.router).toBe(router);
    expect(active.ffn).toBe(router + 2 * expert);
    expect(dense.ffn).toBe(router + 4 * expert);
  });

  it('equals a brute-force walk over every matmul and every scored (query, key) pair', () => {
    fc.assert(
      fc.property(arbitraryConfigAndShape, fc.constantFrom('active', 'dense'), (s, moe) => {
        const f = countFlops(s.config, {
          seqLen: s.seqLen,
          batchSize: s.batchSize,
          pastLength: s.pastLength,
          moe,
        });
        const b = bruteForceFlops(s.config, s.seqLen, s.batchSize, s.pastLength, moe);
        expect([f.attentionProjections, f.attentionScores, f.ffn, f.router, f.lmHead]).toEqual([
          b.projections,
          b.scores,
          b.ffn,
          b.router,
          b.lmHead,
        ]);
      }),
      { numRuns: 150 },
    );
  });

  it('sums the attended keys exactly, as a loop over (query, key) pairs does', () => {
    fc.assert(
      fc.property(arbitraryConfigAndShape, (s) => {
        let pairs = 0;
        for (let p = s.pastLength; p < s.pastLength + s.seqLen; p++) {
          for (let k = 0; k < s.pastLength + s.seqLen; k++) if (visible(s.config, p, k)) pairs++;
        }
        expect(countAttendedKeys(s.config, s.seqLen, s.pastLength)).toBe(pairs);
      }),
      { numRuns: 300 },
    );
  });
});

describe('countFlops properties', () => {
  it('total = attention + ffn + embedding, attention = projections + scores, all non-negative integers', () => {
    fc.assert(
      fc.property(arbitraryConfigAndShape, fc.constantFrom('exact', 'seed'), (s, formula) => {
        const f = countFlops(s.config, {
          seqLen: s.seqLen,
          batchSize: s.batchSize,
          pastLength: formula === 'seed' ? 0 : s.pastLength,
          formula,
        });
        expect(f.total).toBe(f.attention + f.ffn + f.embedding);
        expect(f.attention).toBe(f.attentionProjections + f.attentionScores);
        for (const v of [f.attentionProjections, f.attentionScores, f.ffn, f.router, f.lmHead]) {
          expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
        }
      }),
    );
  });

  it('is linear in the batch size', () => {
    fc.assert(
      fc.property(arbitraryConfigAndShape, fc.integer({ min: 1, max: 64 }), (s, k) => {
        const one = countFlops(s.config, { seqLen: s.seqLen, pastLength: s.pastLength });
        const many = countFlops(s.config, { seqLen: s.seqLen, pastLength: s.pastLength, batchSize: k });
        expect([many.attention, many.ffn, many.embedding, many.total]).toEqual([
          k * one.attention,
          k * one.ffn,
          k * one.embedding,
          k * one.total,
        ]);
      }),
    );
  });

  it('is non-decreasing in seqLen and in pastLength, for every part (every generated input checked)', () => {
    // (config, t, past) with room for one more token and one more past position: no input is thrown away.
    const roomForOneMore = arbitraryConfig
      .filter((c) => c.maxContext >= 2)
      .chain((c) =>
        fc
          .integer({ min: 1, max: c.maxContext - 1 })
          .chain((t) =>
            fc.tuple(fc.constant(c), fc.constant(t), fc.integer({ min: 0, max: c.maxContext - 1 - t })),
          ),
      );
    let checked = 0;
    fc.assert(
      fc.property(roomForOneMore, ([c, t, past]) => {
        const a = countFlops(c, { seqLen: t, pastLength: past });
        const longer = countFlops(c, { seqLen: t + 1, pastLength: past });
        const morePast = countFlops(c, { seqLen: t, pastLength: past + 1 });
        for (const b of [longer, morePast]) {
          expect(b.attention).toBeGreaterThanOrEqual(a.attention);
          expect(b.ffn).toBeGreaterThanOrEqual(a.ffn);
          expect(b.embedding).toBeGreaterThanOrEqual(a.embedding);
          expect(b.total).toBeGreaterThanOrEqual(a.total);
        }
        // One more token always adds FFN work, LM-head work and attention projections.
        expect(longer.ffn).toBeGreaterThan(a.ffn);
        expect(longer.embedding).toBeGreaterThan(a.embedding);
        expect(longer.attentionProjections).toBeGreaterThan(a.attentionProjections);
        checked++;
      }),
      { numRuns: 100 },
    );
    expect(checked).toBe(100);
  });

  it('never counts more for GQA than for MHA of the same shape', () => {
    fc.assert(
      fc.property(arbitraryConfigAndShape, (s) => {
        const mha = MC.parse({ ...s.config, attention: 'mha', kvHeads: s.config.nHeads });
        const opts = { seqLen: s.seqLen, pastLength: s.pastLength, batchSize: s.batchSize };
        expect(countFlops(s.config, opts).total).toBeLessThanOrEqual(countFlops(mha, opts).total);
      }),
    );
  });

  it('counts training as 3 × the forward pass, field by field', () => {
    fc.assert(
      fc.property(arbitraryConfigAndShape, (s) => {
        const fwd = countFlops(s.config, { seqLen: s.seqLen, batchSize: s.batchSize });
        const train = countTrainingFlops(s.config, { seqLen: s.seqLen, batchSize: s.batchSize });
        expect(train.pass).toBe('training');
        expect([train.attention, train.ffn, train.router, train.embedding, train.total]).toEqual(
          [fwd.attention, fwd.ffn, fwd.router, fwd.embedding, fwd.total].map((v) => 3 * v),
        );
      }),
    );
  });
});

describe('countFlops inputs', () => {
  const bad: [string, Parameters<typeof countFlops>[1], string][] = [
    ['seqLen 0', { seqLen: 0 }, messages.invalidNumberOption('seqLen', 0, 'a positive integer')],
    ['seqLen 1.5', { seqLen: 1.5 }, messages.invalidNumberOption('seqLen', 1.5, 'a positive integer')],
    [
      'batch 2.5',
      { seqLen: 4, batchSize: 2.5 },
      messages.invalidNumberOption('batchSize', 2.5, 'a positive integer'),
    ],
    [
      'negative past',
      { seqLen: 4, pastLength: -1 },
      messages.invalidNumberOption('pastLength', -1, 'a non-negative integer'),
    ],
    ['too long', { seqLen: 500, pastLength: 13 }, messages.contextTooLong(500, 13, 512)],
    [
      'no logit positions',
      { seqLen: 4, logitPositions: 0 },
      messages.invalidNumberOption('logitPositions', 0, 'a positive integer'),
    ],
    [
      'more logit positions than tokens',
      { seqLen: 4, logitPositions: 5 },
      messages.invalidNumberOption('logitPositions', 5, 'at most seqLen (4)'),
    ],
    [
      'unknown formula',
      { seqLen: 4, formula: 'seeed' as 'seed' },
      messages.unknownName('FLOPs formula', 'seeed', ['exact', 'seed']),
    ],
    [
      'unknown moe',
      { seqLen: 4, moe: 'all' as 'dense' },
      messages.unknownName('MoE counting', 'all', ['active', 'dense']),
    ],
  ];
  it.each(bad)('rejects %s with INVALID_OPTION and a clear message', (_, options, message) => {
    const call = () => countFlops(small, options);
    expect(call).toThrow(DantinoxError);
    expect(call).toThrow(message);
    try {
      call();
    } catch (e) {
      expect((e as DantinoxError).code).toBe('INVALID_OPTION');
    }
  });

  it('suggests the closest formula name', () => {
    expect(() => countFlops(small, { seqLen: 4, formula: 'seeed' as 'seed' })).toThrow(
      'Did you mean "seed"?',
    );
  });

  it('rejects a decode step with no room for the new token', () => {
    expect(() => countDecodeFlops(small, { context: 512 })).toThrow(messages.decodeContextTooLong(512, 512));
    expect(countDecodeFlops(small, { context: 511 }).pastLength).toBe(511);
  });
});

describe('formatFlops and FlopsBreakdown', () => {
  it('scales with decimal units like the seed', () => {
    expect(formatFlops(0)).toBe('0 FLOPs');
    expect(formatFlops(999_999)).toBe('999999 FLOPs');
    expect(formatFlops(1_000_000)).toBe('1.00 MFLOPs');
    expect(formatFlops(2_345_678_901)).toBe('2.35 GFLOPs');
    expect(formatFlops(1e12)).toBe('1.00 TFLOPs');
    expect(formatFlops(12_345e12)).toBe('12345.00 TFLOPs');
  });

  it('is immutable and keeps its inputs', () => {
    const f = countFlops(small, { seqLen: 128, batchSize: 2, pastLength: 7 });
    expect(f).toBeInstanceOf(FlopsBreakdown);
    expect(Object.isFrozen(f)).toBe(true);
    expect([f.seqLen, f.batchSize, f.pastLength, f.formula, f.moe, f.pass]).toEqual([
      128,
      2,
      7,
      'exact',
      'active',
      'forward',
    ]);
    expect(f.toDetailedString()).toContain('scores');
  });
});
