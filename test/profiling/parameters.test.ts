import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelConfig } from '../../src/models/model-config.js';
import { countParameters } from '../../src/profiling/index.js';
import { arbitraryConfig } from './arbitrary-config.js';

/** The weight list of docs/models.md (the canonical weight names), name → shape. */
function weightShapes(c: ModelConfig): Map<string, number[]> {
  const d = c.dim;
  const f = c.expansion * d;
  const w = new Map<string, number[]>();
  w.set('embed.weight', [c.vocabSize, d]);
  if (c.posEncoding === 'learned') w.set('pos.weight', [c.maxContext, d]);
  const norm = (name: string) => {
    w.set(`${name}.weight`, [d]);
    if (c.norm === 'layernorm') w.set(`${name}.bias`, [d]);
  };
  const mlp = (prefix: string) => {
    if (c.useSwiglu) w.set(`${prefix}.gate.weight`, [d, f]);
    w.set(`${prefix}.up.weight`, [d, f]);
    w.set(`${prefix}.down.weight`, [f, d]);
  };
  for (let i = 0; i < c.numBlocks; i++) {
    norm(`blocks.${i}.norm1`);
    w.set(`blocks.${i}.attn.q.weight`, [d, c.nHeads * c.headSize]);
    w.set(`blocks.${i}.attn.k.weight`, [d, c.kvHeads * c.headSize]);
    w.set(`blocks.${i}.attn.v.weight`, [d, c.kvHeads * c.headSize]);
    w.set(`blocks.${i}.attn.o.weight`, [c.nHeads * c.headSize, d]);
    norm(`blocks.${i}.norm2`);
    if (c.ffn === 'moe') {
      w.set(`blocks.${i}.moe.router.weight`, [d, c.nExperts]);
      for (let e = 0; e < c.nExperts; e++) mlp(`blocks.${i}.moe.experts.${e}`);
    } else {
      mlp(`blocks.${i}.mlp`);
    }
  }
  norm('norm_f');
  if (!c.weightTying) w.set('lm_head.weight', [d, c.vocabSize]);
  return w;
}

const size = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

describe('countParameters', () => {
  it('equals the sum over the weight list, with embedding = embed + pos + untied head', () => {
    fc.assert(
      fc.property(arbitraryConfig, (c) => {
        const shapes = weightShapes(c);
        let total = 0;
        let embedding = 0;
        let unusedExperts = 0;
        for (const [name, dims] of shapes) {
          total += size(dims);
          if (name === 'embed.weight' || name === 'pos.weight' || name === 'lm_head.weight')
            embedding += size(dims);
          const expert = /\.experts\.(\d+)\./.exec(name);
          if (expert && Number(expert[1]) >= c.topK) unusedExperts += size(dims);
        }
        const p = countParameters(c);
        expect(p).toEqual({
          total,
          active: total - unusedExperts,
          embedding,
          nonEmbedding: total - embedding,
        });
      }),
      { numRuns: 200 },
    );
  });

  it('counts GPT-2 small as 124,439,808 minus its 82,944 linear biases', () => {
    // Embeddings 50257·768 + 1024·768; per block 2 LayerNorms (2·1536) + 4·768² + 2·768·3072; final LayerNorm.
    const p = countParameters(ModelConfig.preset('gpt2-small'));
    expect(p.total).toBe(124_439_808 - 82_944);
    expect(p.embedding).toBe(50257 * 768 + 1024 * 768);
    expect(p.active).toBe(p.total);
  });

  it('counts the tiny preset by hand', () => {
    // embed 256·32 = 8192; per block: 2 RMSNorms (64) + q,k,v,o 4·32·32 (4096) + SwiGLU 3·32·128 (12288) = 16448;
    // 2 blocks = 32896; final norm 32; tied head: 0 → 41120
    expect(countParameters(ModelConfig.preset('tiny')).total).toBe(41_120);
  });

  it('counts the head once when tied and twice the table when untied', () => {
    const tied = countParameters(ModelConfig.preset('tiny'));
    const untied = countParameters(ModelConfig.preset('tiny', { weightTying: false }));
    expect(untied.total - tied.total).toBe(256 * 32);
  });
});
