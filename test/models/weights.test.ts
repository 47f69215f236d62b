import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { ModelConfig } from '../../src/models/model-config.js';
import {
  checkWeights,
  countParameters,
  initWeights,
  seededWeights,
  type WeightTensor,
  weightSpecs,
} from '../../src/models/weights.js';

const tiny = ModelConfig.preset('tiny');

describe('weightSpecs', () => {
  it('lists the canonical names in order for the tiny preset (RMSNorm, SwiGLU, tied)', () => {
    const names = weightSpecs(ModelConfig.preset('tiny', { numBlocks: 1 })).map((s) => s.name);
    expect(names).toEqual([
      'embed.weight',
      'blocks.0.norm1.weight',
      'blocks.0.attn.q.weight',
      'blocks.0.attn.k.weight',
      'blocks.0.attn.v.weight',
      'blocks.0.attn.o.weight',
      'blocks.0.norm2.weight',
      'blocks.0.mlp.gate.weight',
      'blocks.0.mlp.up.weight',
      'blocks.0.mlp.down.weight',
      'norm_f.weight',
    ]);
  });

  it('adds pos, biases, lm_head and MoE experts, with the documented shapes', () => {
    const c = ModelConfig.parse({
      dim: 8,
      nHeads: 4,
      kvHeads: 2,
      numBlocks: 1,
      vocabSize: 11,
      maxContext: 6,
      posEncoding: 'learned',
      norm: 'layernorm',
      ffn: 'moe',
      nExperts: 2,
      topK: 1,
      expansion: 2,
      useSwiglu: false,
      weightTying: false,
    });
    const specs = Object.fromEntries(weightSpecs(c).map((s) => [s.name, s]));
    expect(Object.keys(specs)).toEqual([
      'embed.weight',
      'pos.weight',
      'blocks.0.norm1.weight',
      'blocks.0.norm1.bias',
      'blocks.0.attn.q.weight',
      'blocks.0.attn.k.weight',
      'blocks.0.attn.v.weight',
      'blocks.0.attn.o.weight',
      'blocks.0.norm2.weight',
      'blocks.0.norm2.bias',
      'blocks.0.moe.router.weight',
      'blocks.0.moe.experts.0.up.weight',
      'blocks.0.moe.experts.0.down.weight',
      'blocks.0.moe.experts.1.up.weight',
      'blocks.0.moe.experts.1.down.weight',
      'norm_f.weight',
      'norm_f.bias',
      'lm_head.weight',
    ]);
    expect(specs['embed.weight']?.dims).toEqual([11, 8]);
    expect(specs['pos.weight']?.dims).toEqual([6, 8]);
    expect(specs['blocks.0.attn.q.weight']?.dims).toEqual([8, 8]);
    expect(specs['blocks.0.attn.k.weight']?.dims).toEqual([8, 4]);
    expect(specs['blocks.0.attn.o.weight']).toEqual({
      name: 'blocks.0.attn.o.weight',
      dims: [8, 8],
      init: 'scaled-normal',
    });
    expect(specs['blocks.0.moe.router.weight']?.dims).toEqual([8, 2]);
    expect(specs['blocks.0.moe.experts.1.up.weight']?.dims).toEqual([8, 16]);
    expect(specs['blocks.0.moe.experts.1.down.weight']?.init).toBe('scaled-normal');
    expect(specs['norm_f.bias']?.init).toBe('zeros');
    expect(specs['lm_head.weight']?.dims).toEqual([8, 11]);
  });

  it('counts GPT-2 small at 124,439,808 parameters (tied head, learned positions)', () => {
    expect(countParameters(ModelConfig.preset('gpt2-small'))).toBe(
      // GPT-2 small without biases: 124,439,808 with biases − 12·(3·768 + 768 + 3072 + 768) biases.
      124_439_808 - 12 * (3 * 768 + 768 + 3072 + 768),
    );
  });
});

describe('initWeights', () => {
  it('is deterministic in the seed and differs across seeds', () => {
    const a = initWeights(tiny, 7);
    const b = initWeights(tiny, 7);
    const c = initWeights(tiny, 8);
    for (const [name, t] of a) {
      expect(
        Buffer.from(t.data.buffer).equals(Buffer.from(b.get(name)?.data.buffer ?? new ArrayBuffer(0))),
      ).toBe(true);
    }
    expect(a.get('embed.weight')?.data).not.toEqual(c.get('embed.weight')?.data);
  });

  it('matches known values for seed 0 (cross-process determinism)', () => {
    const w = initWeights(tiny, 0);
    const head = Array.from(w.get('embed.weight')?.data.subarray(0, 3) ?? []);
    // Pinned: a change here means every saved checkpoint and golden file would change.
    expect(head.map((x) => x.toFixed(6))).toMatchInlineSnapshot(`
      [
        "-0.058697",
        "0.013029",
        "-0.004655",
      ]
    `);
  });

  it('draws each tensor independently of the others: a bigger vocab leaves the blocks unchanged', () => {
    const a = initWeights(tiny, 3);
    const b = initWeights(ModelConfig.preset('tiny', { vocabSize: 300 }), 3);
    expect(b.get('blocks.1.attn.q.weight')?.data).toEqual(a.get('blocks.1.attn.q.weight')?.data);
    expect(b.get('embed.weight')?.data.subarray(0, 100)).toEqual(
      a.get('embed.weight')?.data.subarray(0, 100),
    );
  });

  it('uses std 0.02, the scaled std for output projections, ones for norms and zeros for biases', () => {
    const c = ModelConfig.preset('tiny', { norm: 'layernorm', numBlocks: 8 });
    const w = initWeights(c, 1);
    const std = (t: WeightTensor | undefined): number => {
      const d = t?.data ?? new Float32Array();
      let s = 0;
      for (const x of d) s += x * x;
      return Math.sqrt(s / d.length);
    };
    expect(std(w.get('embed.weight'))).toBeCloseTo(0.02, 3);
    const down = [...w.entries()]
      .filter(([n]) => n.endsWith('mlp.down.weight'))
      .flatMap(([, t]) => [...t.data]);
    expect(std({ dims: [down.length], data: Float32Array.from(down) })).toBeCloseTo(0.02 / 4, 3);
    expect(w.get('blocks.3.norm2.weight')?.data.every((x) => x === 1)).toBe(true);
    expect(w.get('norm_f.bias')?.data.every((x) => x === 0)).toBe(true);
  });
});

describe('checkWeights', () => {
  it('accepts freshly initialised weights', () => {
    expect(() => checkWeights(tiny, initWeights(tiny))).not.toThrow();
  });

  it('names missing, extra and mis-shaped tensors in one INVALID_INPUT error', () => {
    const w = new Map(initWeights(tiny));
    w.delete('blocks.0.attn.q.weight');
    w.set('blocks.0.attn.k.weight', { dims: [8, 32], data: new Float32Array(256) });
    w.set('embed.weight', { dims: [256, 32], data: new Float32Array(10) });
    w.set('lm_head.weight', { dims: [32, 256], data: new Float32Array(32 * 256) });
    let err: unknown;
    try {
      checkWeights(tiny, w);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.code).toBe('INVALID_INPUT');
    expect(v.issues.map((i) => i.path)).toEqual([
      'embed.weight',
      'blocks.0.attn.q.weight',
      'blocks.0.attn.k.weight',
      'lm_head.weight',
    ]);
    expect(v.message).toContain('missing tensor, expected shape [32, 32]');
    expect(v.message).toContain('shape [8, 32] does not match');
  });
});

describe('seededWeights', () => {
  const config = ModelConfig.preset('tiny', { numBlocks: 2 });

  it('generates on demand the bit-identical tensors of initWeights, in the same order', () => {
    const eager = initWeights(config, 5);
    const lazy = seededWeights(config, 5);
    expect(lazy.size).toBe(eager.size);
    expect([...lazy.keys()]).toEqual([...eager.keys()]);
    for (const [name, tensor] of lazy) {
      expect(tensor.dims).toEqual(eager.get(name)?.dims);
      expect(Buffer.from(tensor.data.buffer).equals(Buffer.from(eager.get(name)!.data.buffer)), name).toBe(
        true,
      );
    }
    expect(lazy.get('blocks.1.mlp.down.weight')?.data).toEqual(eager.get('blocks.1.mlp.down.weight')?.data);
  });

  it('keeps nothing: each get is a fresh array; unknown names are absent', () => {
    const lazy = seededWeights(config, 0);
    const a = lazy.get('embed.weight');
    const b = lazy.get('embed.weight');
    expect(a?.data).not.toBe(b?.data);
    expect(a?.data).toEqual(b?.data);
    expect(lazy.get('nope')).toBeUndefined();
    expect(lazy.has('norm_f.weight')).toBe(true);
    expect(lazy.has('nope')).toBe(false);
    const seen: string[] = [];
    lazy.forEach((_, name) => {
      seen.push(name);
    });
    expect(seen).toEqual([...lazy.keys()]);
    expect([...lazy.values()].length).toBe(lazy.size);
  });

  it('refuses a seed that is not a safe integer, like initWeights', () => {
    expect(() => seededWeights(config, 0.5)).toThrow(/seed/);
  });
});
