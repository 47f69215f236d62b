import { describe, expect, it } from 'vitest';
import type { Model } from '../../../src/models/model.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { DiffusionParadigm, unmaskCount } from '../../../src/models/paradigms/diffusion-paradigm.js';
import { ReferenceModel } from '../../../src/models/reference-model.js';
import { Rng } from '../../../src/rng.js';
import { FakeModel } from './fake-model.js';

const config = ModelConfig.preset('tiny', { vocabSize: 31, dim: 16, maxContext: 24, paradigm: 'diffusion' });
const MASK = config.maskTokenId; // 30
const model = ReferenceModel.create(config, { seed: 4 });
const diffusion = new DiffusionParadigm(config);

describe('DiffusionParadigm.lossFn', () => {
  it('is the cross-entropy on the masked positions of the input the model saw', async () => {
    const seen: Int32Array[] = [];
    const spy: Model = {
      config,
      info: model.info,
      forward: async (tokens, shape) => {
        seen.push(tokens.slice());
        return model.forward(tokens, shape);
      },
      prefill: (tokens, shape) => model.prefill(tokens, shape),
      decodeStep: (tokens, state) => model.decodeStep(tokens, state),
      barrier: () => model.barrier(),
      numParameters: () => model.numParameters(),
      dispose: () => model.dispose(),
    };
    const batch = new Rng(1).integers(30, 4 * 12); // ids < MASK, so masked positions are unambiguous
    const loss = await diffusion.lossFn(spy, batch, { batch: 4, seq: 12 }, new Rng(7));
    const noisy = seen[0] ?? new Int32Array();
    const logits = await model.forward(noisy, { batch: 4, seq: 12 });
    let sum = 0;
    let count = 0;
    const perRow = new Int32Array(4);
    for (let k = 0; k < 48; k++) {
      if (noisy[k] !== MASK) {
        expect(noisy[k]).toBe(batch[k]);
        continue;
      }
      const row = Array.from(logits.data.subarray(k * 31, (k + 1) * 31));
      sum += Math.log(row.reduce((a, x) => a + Math.exp(x), 0)) - (row[batch[k] ?? 0] ?? 0);
      count++;
      const r = Math.floor(k / 12);
      perRow[r] = (perRow[r] ?? 0) + 1;
    }
    expect(perRow.every((n) => n >= 1)).toBe(true);
    expect(new Set(perRow).size).toBeGreaterThan(1); // t ~ U(0,1) per row
    expect(loss.tokensScored).toBe(count);
    expect(loss.sumLoss).toBeCloseTo(sum, 10);
    const again = await diffusion.lossFn(model, batch, { batch: 4, seq: 12 }, new Rng(7));
    expect(again).toEqual(loss);
  });

  it('gives exactly ln(V) on uniform logits and never masks context before scoreFrom', async () => {
    const uniform = new FakeModel(config, () => 0);
    const batch = new Rng(2).integers(30, 3 * 10);
    const loss = await diffusion.lossFn(uniform, batch, { batch: 3, seq: 10 }, new Rng(0), { scoreFrom: 6 });
    expect(loss.meanLoss).toBeCloseTo(Math.log(31), 14);
    const seen = uniform.inputs[0] ?? new Int32Array();
    for (let k = 0; k < 30; k++) if (k % 10 < 6) expect(seen[k]).toBe(batch[k]);
    expect(loss.tokensScored).toBeGreaterThanOrEqual(3);
  });
});

describe('DiffusionParadigm.generate', () => {
  it('unmasks all generated positions in `steps` passes, calling onStep once per pass', async () => {
    const prompt = Int32Array.from([1, 2, 3, 4, 5, 6]);
    const steps: number[] = [];
    const out = await diffusion.generate(model, prompt, { batch: 2, seq: 3 }, new Rng(0), {
      maxNewTokens: 10,
      steps: 4,
      temperature: 0,
      onStep: (s) => steps.push(s),
    });
    expect(steps).toEqual([0, 1, 2, 3]);
    expect(out.modelCalls).toBe(4);
    expect(out.shape).toEqual({ batch: 2, seq: 13 });
    for (let r = 0; r < 2; r++) {
      const seq = [...out.tokens.subarray(r * 13, (r + 1) * 13)];
      expect(seq.slice(0, 3)).toEqual([...prompt.subarray(r * 3, r * 3 + 3)]);
      expect(seq.slice(3).every((t) => t !== MASK && t >= 0 && t < 31)).toBe(true);
    }
    const again = await diffusion.generate(model, prompt, { batch: 2, seq: 3 }, new Rng(5), {
      maxNewTokens: 10,
      steps: 4,
      greedy: true,
    });
    expect(again.tokens).toEqual(out.tokens);
  });

  it('commits ≈ genLen/steps of the most confident positions per pass', async () => {
    // Confidence grows with position: position p predicts token p % 30 with logit p; pass 0 of 3 commits the
    // ⌈…⌉ last positions first.
    const fake = new FakeModel(config, (_t, p, i) => (i === p % 30 ? p : 0));
    await diffusion.generate(fake, Int32Array.from([0]), { batch: 1, seq: 1 }, new Rng(0), {
      maxNewTokens: 7,
      steps: 3,
      temperature: 0,
    });
    const masked = fake.inputs.map((x) => [...x].filter((t) => t === MASK).length);
    expect(masked).toEqual([7, 5, 3]);
    expect([...(fake.inputs[1] ?? [])]).toEqual([0, MASK, MASK, MASK, MASK, MASK, 6, 7]);
    expect([0, 1, 2].map((s) => unmaskCount(s, 3, 7))).toEqual([2, 2, 3]);
    expect([0, 1, 2, 3].map((s) => unmaskCount(s, 4, 2))).toEqual([0, 1, 0, 1]);
  });

  it('seeded sampling is reproducible', async () => {
    const run = (seed: number) =>
      diffusion.generate(model, Int32Array.from([1, 2]), { batch: 1, seq: 2 }, new Rng(seed), {
        maxNewTokens: 8,
        steps: 2,
        temperature: 2,
      });
    expect((await run(1)).tokens).toEqual((await run(1)).tokens);
    expect((await run(1)).tokens).not.toEqual((await run(2)).tokens);
  });
});
