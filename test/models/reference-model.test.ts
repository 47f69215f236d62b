import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import type { Logits } from '../../src/models/model.js';
import { ModelConfig, type ModelConfigInput } from '../../src/models/model-config.js';
import { ReferenceModel } from '../../src/models/reference-model.js';
import { initWeights, type WeightMap, type WeightTensor } from '../../src/models/weights.js';
import { Rng } from '../../src/rng.js';

const base: ModelConfigInput = {
  dim: 16,
  nHeads: 4,
  numBlocks: 2,
  vocabSize: 23,
  maxContext: 12,
  expansion: 2,
};
const cfg = (over: ModelConfigInput = {}): ModelConfig => ModelConfig.parse({ ...base, ...over });

/** Logits of position t of row b. */
function row(l: Logits, b: number, t: number): Float32Array {
  const [, s, v] = l.dims;
  return l.data.subarray((b * s + t) * v, (b * s + t + 1) * v);
}

function expectClose(a: Float32Array, b: Float32Array, tol = 1e-6): void {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  expect(worst).toBeLessThan(tol);
}

const VARIANTS: Record<string, ModelConfigInput> = {
  'rotary rmsnorm swiglu': {},
  'learned layernorm gelu untied': {
    posEncoding: 'learned',
    norm: 'layernorm',
    useSwiglu: false,
    activation: 'gelu',
    weightTying: false,
  },
  'absolute relu': { posEncoding: 'absolute', useSwiglu: false, activation: 'relu' },
  'none silu gqa': { posEncoding: 'none', useSwiglu: false, activation: 'silu', kvHeads: 2 },
  'moe top-2 of 3': { ffn: 'moe', nExperts: 3, topK: 2 },
  'sliding window 2': { slidingWindow: true, contextWindow: 2 },
};

describe('ReferenceModel', () => {
  for (const [name, over] of Object.entries(VARIANTS)) {
    it(`decodeStep logits equal forward logits at the same positions (${name})`, async () => {
      const model = ReferenceModel.create(cfg(over), { seed: 1 });
      const tokens = new Rng(2).integers(23, 2 * 7);
      const full = await model.forward(tokens, { batch: 2, seq: 7 });
      const prompt = Int32Array.from([...tokens.subarray(0, 4), ...tokens.subarray(7, 11)]);
      let { logits, state } = await model.prefill(prompt, { batch: 2, seq: 4 });
      for (let t = 0; t < 4; t++) {
        expectClose(row(logits, 0, t), row(full, 0, t));
        expectClose(row(logits, 1, t), row(full, 1, t));
      }
      for (let t = 4; t < 7; t++) {
        ({ logits, state } = await model.decodeStep(
          Int32Array.from([tokens[t] ?? 0, tokens[7 + t] ?? 0]),
          state,
        ));
        expect(logits.dims).toEqual([2, 1, 23]);
        expect(state.length).toBe(t + 1);
        expectClose(row(logits, 0, 0), row(full, 0, t));
        expectClose(row(logits, 1, 0), row(full, 1, t));
      }
      state.dispose();
    });
  }

  it('computes each batch row independently of the others', async () => {
    const model = ReferenceModel.create(cfg(), { seed: 4 });
    const tokens = new Rng(5).integers(23, 10);
    const both = await model.forward(tokens, { batch: 2, seq: 5 });
    const second = await model.forward(tokens.slice(5), { batch: 1, seq: 5 });
    expect(both.data.subarray(5 * 23)).toEqual(second.data);
  });

  it('GQA equals MHA whose K/V weights repeat each KV head over its query group, bit for bit', async () => {
    const gqa = cfg({ kvHeads: 2 });
    const mha = cfg();
    const g = initWeights(gqa, 3);
    const hs = gqa.headSize;
    const w = new Map<string, WeightTensor>(g);
    for (let i = 0; i < gqa.numBlocks; i++) {
      for (const kv of ['k', 'v']) {
        const src = g.get(`blocks.${i}.attn.${kv}.weight`) as WeightTensor;
        const data = new Float32Array(16 * 4 * hs);
        for (let r = 0; r < 16; r++) {
          for (let head = 0; head < 4; head++) {
            const group = Math.floor(head / 2);
            for (let j = 0; j < hs; j++)
              data[r * 4 * hs + head * hs + j] = src.data[r * 2 * hs + group * hs + j] ?? 0;
          }
        }
        w.set(`blocks.${i}.attn.${kv}.weight`, { dims: [16, 4 * hs], data });
      }
    }
    const tokens = new Rng(6).integers(23, 6);
    const a = await ReferenceModel.create(gqa, { weights: g }).forward(tokens, { batch: 1, seq: 6 });
    const b = await ReferenceModel.create(mha, { weights: w }).forward(tokens, { batch: 1, seq: 6 });
    expect(a.data).toEqual(b.data);
  });

  it('bidirectional attention changes early positions but not the last one (1 block)', async () => {
    const causal = cfg({ numBlocks: 1 });
    const bidir = cfg({ numBlocks: 1, paradigm: 'diffusion' });
    const weights = initWeights(causal, 7);
    const tokens = new Rng(8).integers(23, 6);
    const a = await ReferenceModel.create(causal, { weights }).forward(tokens, { batch: 1, seq: 6 });
    const b = await ReferenceModel.create(bidir, { weights }).forward(tokens, { batch: 1, seq: 6 });
    expect(Math.max(...row(a, 0, 0).map((x, i) => Math.abs(x - (row(b, 0, 0)[i] ?? 0))))).toBeGreaterThan(
      1e-4,
    );
    expectClose(row(a, 0, 5), row(b, 0, 5));
  });

  it('a sliding window at least as long as the sequence equals no window; a short one differs', async () => {
    const weights = initWeights(cfg(), 9);
    const tokens = new Rng(10).integers(23, 8);
    const plain = await ReferenceModel.create(cfg(), { weights }).forward(tokens, { batch: 1, seq: 8 });
    for (const paradigm of ['ar', 'diffusion'] as const) {
      const ref = await ReferenceModel.create(cfg({ paradigm }), { weights }).forward(tokens, {
        batch: 1,
        seq: 8,
      });
      const wide = cfg({ paradigm, slidingWindow: true, contextWindow: 8 });
      const out = await ReferenceModel.create(wide, { weights }).forward(tokens, { batch: 1, seq: 8 });
      expect(out.data).toEqual(ref.data);
    }
    const narrow = cfg({ slidingWindow: true, contextWindow: 1 });
    const out = await ReferenceModel.create(narrow, { weights }).forward(tokens, { batch: 1, seq: 8 });
    expectClose(row(out, 0, 1), row(plain, 0, 1));
    expect(
      Math.max(...row(out, 0, 7).map((x, i) => Math.abs(x - (row(plain, 0, 7)[i] ?? 0)))),
    ).toBeGreaterThan(1e-4);
  });

  it('MoE whose experts are all the dense MLP equals the dense model, for topK 1 and topK = nExperts', async () => {
    const dense = cfg({ useSwiglu: false, activation: 'gelu' });
    const dw = initWeights(dense, 11);
    const tokens = new Rng(12).integers(23, 5);
    const want = await ReferenceModel.create(dense, { weights: dw }).forward(tokens, { batch: 1, seq: 5 });
    for (const topK of [1, 3]) {
      const moe = cfg({ useSwiglu: false, activation: 'gelu', ffn: 'moe', nExperts: 3, topK });
      const mw = new Map(initWeights(moe, 13));
      for (const [name, t] of dw) {
        const m = /^blocks\.(\d+)\.mlp\.(\w+)\.weight$/.exec(name);
        if (m === null) mw.set(name, t);
        else for (let e = 0; e < 3; e++) mw.set(`blocks.${m[1]}.moe.experts.${e}.${m[2]}.weight`, t);
      }
      const got = await ReferenceModel.create(moe, { weights: mw }).forward(tokens, { batch: 1, seq: 5 });
      expectClose(got.data, want.data, 1e-6);
    }
  });

  it('MoE top-2 renormalises the two selected router probabilities', async () => {
    // One block, no attention contribution (zero O), experts scaled 1×, 2×, 3×: output = Σ p̂_e · e · mlp(x).
    const c = ModelConfig.parse({
      dim: 4,
      nHeads: 1,
      numBlocks: 1,
      vocabSize: 4,
      maxContext: 2,
      expansion: 1,
      posEncoding: 'none',
      useSwiglu: false,
      activation: 'relu',
      ffn: 'moe',
      nExperts: 3,
      topK: 2,
    });
    const w = new Map(initWeights(c, 0));
    const eye = Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    w.set('embed.weight', { dims: [4, 4], data: eye.map((x) => 2 * x) });
    w.set('blocks.0.attn.o.weight', { dims: [4, 4], data: new Float32Array(16) });
    // Router logits for token 0 (normed x ≈ (2,0,0,0)): (0.5, 1, 1.5)·2·c.
    w.set('blocks.0.moe.router.weight', {
      dims: [4, 3],
      data: Float32Array.from([0.5, 1, 1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    });
    for (let e = 0; e < 3; e++) {
      w.set(`blocks.0.moe.experts.${e}.up.weight`, { dims: [4, 4], data: eye });
      w.set(`blocks.0.moe.experts.${e}.down.weight`, { dims: [4, 4], data: eye.map((x) => (e + 1) * x) });
    }
    const out = await ReferenceModel.create(c, { weights: w }).forward(Int32Array.from([0]), {
      batch: 1,
      seq: 1,
    });
    const n = 2 / Math.sqrt(1 + 1e-5); // RMSNorm of (2,0,0,0), first coordinate
    const p1 = Math.exp(1 * n);
    const p2 = Math.exp(1.5 * n);
    const mix = (2 * p1 + 3 * p2) / (p1 + p2); // experts 1 and 2 chosen, renormalised
    const x = 2 + mix * n;
    const final = x / Math.sqrt((x * x) / 4 + 1e-5);
    expect(out.data[0]).toBeCloseTo(2 * final, 5);
    expect(out.data[1]).toBe(0);
  });

  it('matches a hand computation on a 1-block dim-4 model (identity attention, ReLU MLP)', async () => {
    const c = ModelConfig.parse({
      dim: 4,
      nHeads: 1,
      numBlocks: 1,
      vocabSize: 4,
      maxContext: 4,
      expansion: 1,
      posEncoding: 'none',
      useSwiglu: false,
      activation: 'relu',
      norm: 'rmsnorm',
    });
    const eye = Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const t = (dims: number[], data: Float32Array): WeightTensor => ({ dims, data });
    const weights: WeightMap = new Map([
      [
        'embed.weight',
        t(
          [4, 4],
          eye.map((x) => 2 * x),
        ),
      ],
      ['blocks.0.norm1.weight', t([4], new Float32Array(4).fill(1))],
      ['blocks.0.attn.q.weight', t([4, 4], eye)],
      ['blocks.0.attn.k.weight', t([4, 4], eye)],
      ['blocks.0.attn.v.weight', t([4, 4], eye)],
      ['blocks.0.attn.o.weight', t([4, 4], eye)],
      ['blocks.0.norm2.weight', t([4], new Float32Array(4).fill(1))],
      ['blocks.0.mlp.up.weight', t([4, 4], eye)],
      ['blocks.0.mlp.down.weight', t([4, 4], eye)],
      ['norm_f.weight', t([4], new Float32Array(4).fill(1))],
    ]);
    const out = await ReferenceModel.create(c, { weights }).forward(Int32Array.from([0, 1]), {
      batch: 1,
      seq: 2,
    });
    const rms = (v: number[]): number[] => {
      const s = Math.sqrt(v.reduce((a, b) => a + b * b, 0) / v.length + 1e-5);
      return v.map((x) => x / s);
    };
    const k = 2 / Math.sqrt(1 + 1e-5); // RMSNorm of (2, 0, 0, 0)
    // Position 0 attends to itself: x = (2,0,0,0) + (k,0,0,0).
    const x0 = [2 + k, 0, 0, 0];
    // Position 1: scores (q1·k0, q1·k1)/√4 = (0, k²/2).
    const p0 = 1 / (1 + Math.exp((k * k) / 2));
    const x1 = [k * p0, 2 + k * (1 - p0), 0, 0];
    const expected = [x0, x1].map((x) => {
      const ffn = rms(x).map((v) => Math.max(0, v));
      return rms(x.map((v, i) => v + (ffn[i] ?? 0))).map((v) => 2 * v); // tied head: h @ (2·I)ᵀ
    });
    expect(Array.from(out.data).map((v) => Number(v.toFixed(5)))).toEqual(
      expected.flat().map((v) => Number(v.toFixed(5))),
    );
  });

  it('validates token ids, shapes, context and decode states with INVALID_INPUT', async () => {
    const model = ReferenceModel.create(cfg(), { seed: 0 });
    const code = async (p: Promise<unknown>): Promise<string> => {
      try {
        await p;
      } catch (e) {
        if (e instanceof DantinoxError) return `${e.code}: ${e.message}`;
        throw e;
      }
      return 'no error';
    };
    expect(await code(model.forward(Int32Array.from([1, 23]), { batch: 1, seq: 2 }))).toMatch(
      /INVALID_INPUT: token id 23 at index 1 is outside the vocabulary \[0, 23\)/,
    );
    expect(await code(model.forward(Int32Array.from([-1]), { batch: 1, seq: 1 }))).toMatch(/token id -1/);
    expect(await code(model.forward(Int32Array.from([1, 2, 3]), { batch: 2, seq: 2 }))).toMatch(
      /needs batch × seq = 4/,
    );
    expect(await code(model.forward(new Int32Array(0), { batch: 1, seq: 0 }))).toMatch(
      /positive integer batch and seq/,
    );
    expect(await code(model.forward(new Int32Array(13), { batch: 1, seq: 13 }))).toMatch(
      /needs 13 positions.*maxContext is 12/,
    );
    expect(await code(model.forward([1, 2] as unknown as Int32Array, { batch: 1, seq: 2 }))).toMatch(
      /must be an Int32Array/,
    );
    const { state } = await model.prefill(new Int32Array(12), { batch: 1, seq: 12 });
    expect(await code(model.decodeStep(Int32Array.from([1]), state))).toMatch(
      /decodeStep needs 13 positions/,
    );
    const { state: s2 } = await model.prefill(new Int32Array(2), { batch: 1, seq: 2 });
    expect(await code(model.decodeStep(Int32Array.from([1, 2]), s2))).toMatch(/one token per sequence \(1\)/);
    await model.decodeStep(Int32Array.from([1]), s2);
    expect(await code(model.decodeStep(Int32Array.from([1]), s2))).toMatch(/already consumed/);
    const other = ReferenceModel.create(cfg(), { seed: 0 });
    const { state: s3 } = await other.prefill(new Int32Array(2), { batch: 1, seq: 2 });
    expect(await code(model.decodeStep(Int32Array.from([1]), s3))).toMatch(/not made by this model/);
  });

  it('reports its identity, parameters and tokenizer', async () => {
    const model = ReferenceModel.create(ModelConfig.preset('tiny'), { seed: 0 });
    expect(model.info).toEqual({
      name: 'reference',
      engine: 'reference (TypeScript)',
      threads: 1,
      dtype: 'fp32',
    });
    // tiny: embed 256·32 + 2 blocks × (2·32 norms + 4·32·32 attention + 3·32·128 SwiGLU) + 32 final norm.
    expect(model.numParameters()).toBe(256 * 32 + 2 * (64 + 4 * 1024 + 3 * 32 * 128) + 32);
    expect(model.tokenizer?.name).toBe('bytes');
    expect(ReferenceModel.create(cfg()).tokenizer).toBeUndefined();
    await expect(model.barrier()).resolves.toBeUndefined();
    await model.dispose();
  });
});
