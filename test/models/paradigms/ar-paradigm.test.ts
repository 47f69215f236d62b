import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../../src/errors.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { Paradigm } from '../../../src/models/paradigm.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { DiffusionParadigm } from '../../../src/models/paradigms/diffusion-paradigm.js';
import { ReferenceModel } from '../../../src/models/reference-model.js';
import { Rng } from '../../../src/rng.js';
import { FakeModel } from './fake-model.js';

const config = ModelConfig.preset('tiny', { vocabSize: 31, dim: 16, maxContext: 16 });
const model = ReferenceModel.create(config, { seed: 3 });
const ar = new ARParadigm(config);

async function errorOf(p: Promise<unknown>): Promise<DantinoxError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DantinoxError) return e;
    throw e;
  }
  throw new Error('expected a DantinoxError');
}

describe('Paradigm.for', () => {
  it('picks the paradigm named by the config', () => {
    const a = Paradigm.for(config);
    const d = Paradigm.for(ModelConfig.preset('tiny', { paradigm: 'diffusion' }));
    expect(a).toBeInstanceOf(ARParadigm);
    expect(a.type).toBe('ar');
    expect(a.supportsKvDecode).toBe(true);
    expect(a.config).toBe(config);
    expect(d).toBeInstanceOf(DiffusionParadigm);
    expect(d.type).toBe('diffusion');
    expect(d.supportsKvDecode).toBe(false);
    expect(a.numParameters(model)).toBe(model.numParameters());
    expect(Paradigm.kinds()).toEqual(['ar', 'diffusion']);
  });
});

describe('ARParadigm.lossFn', () => {
  it('equals the mean next-token cross-entropy computed directly from forward logits', async () => {
    const batch = new Rng(1).integers(31, 2 * 9);
    const shape = { batch: 2, seq: 9 };
    const loss = await ar.lossFn(model, batch, shape, new Rng(0));
    const inputs = Int32Array.from([...batch.subarray(0, 8), ...batch.subarray(9, 17)]);
    const logits = await model.forward(inputs, { batch: 2, seq: 8 });
    let sum = 0;
    const perPosition: number[] = [];
    for (let r = 0; r < 2; r++) {
      for (let i = 0; i < 8; i++) {
        const row = Array.from(logits.data.subarray((r * 8 + i) * 31, (r * 8 + i + 1) * 31));
        const target = batch[r * 9 + i + 1] ?? 0;
        const l = Math.log(row.reduce((a, x) => a + Math.exp(x), 0)) - (row[target] ?? 0);
        perPosition.push(l);
        sum += l;
      }
    }
    expect(loss.tokensScored).toBe(16);
    // The scorer takes the exponentials in float32 (sums and logs in float64): within 1e-7 nats per token.
    expect(Math.abs(loss.sumLoss - sum)).toBeLessThan(16e-7);
    expect(Math.abs(loss.meanLoss - sum / 16)).toBeLessThan(1e-7);
    const tail = await ar.lossFn(model, batch, shape, new Rng(0), { scoreFrom: 5 });
    const want = perPosition.filter((_, k) => k % 8 >= 5).reduce((a, b) => a + b, 0);
    expect(tail.tokensScored).toBe(6);
    expect(Math.abs(tail.sumLoss - want)).toBeLessThan(6e-7);
  });

  it('gives exactly ln(V) on uniform logits, and a finite loss on huge ones', async () => {
    const uniform = new FakeModel(config, () => 0);
    const batch = new Rng(2).integers(31, 3 * 5);
    const loss = await ar.lossFn(uniform, batch, { batch: 3, seq: 5 }, new Rng(0));
    expect(loss.meanLoss).toBeCloseTo(Math.log(31), 14);
    expect(loss.tokensScored).toBe(12);
    const confident = new FakeModel(config, (_t, _p, i) => (i === 30 ? 1e30 : 0));
    const big = await ar.lossFn(confident, Int32Array.from([1, 2, 3]), { batch: 1, seq: 3 }, new Rng(0));
    expect(big.meanLoss).toBe(Math.fround(1e30));
    expect(Number.isFinite(big.meanLoss)).toBe(true);
  });

  it('uses a full maxContext of inputs (T + 1 tokens per row) and rejects bad batches', async () => {
    const full = await ar.lossFn(model, new Rng(3).integers(31, 17), { batch: 1, seq: 17 }, new Rng(0));
    expect(full.tokensScored).toBe(16);
    expect(
      (await errorOf(ar.lossFn(model, new Int32Array(18), { batch: 1, seq: 18 }, new Rng(0)))).message,
    ).toMatch(/needs 17 positions but the model's maxContext is 16/);
    expect(
      (await errorOf(ar.lossFn(model, new Int32Array(1), { batch: 1, seq: 1 }, new Rng(0)))).message,
    ).toMatch(/at least 2 tokens/);
    const e = await errorOf(
      ar.lossFn(model, new Int32Array(4), { batch: 1, seq: 4 }, new Rng(0), { scoreFrom: 3 }),
    );
    expect(e.code).toBe('INVALID_OPTION');
    const diffusionModel = ReferenceModel.create(ModelConfig.preset('tiny', { paradigm: 'diffusion' }));
    expect(
      (await errorOf(ar.lossFn(diffusionModel, new Int32Array(4), { batch: 1, seq: 4 }, new Rng(0)))).message,
    ).toMatch(/ar paradigm cannot run a model built for "diffusion"/);
  });
});

describe('ARParadigm.generate', () => {
  it('greedy decoding is deterministic and equals the arg-max of forward logits step by step', async () => {
    const prompt = Int32Array.from([4, 9, 2, 7, 7, 1]);
    const shape = { batch: 2, seq: 3 };
    const steps: number[] = [];
    const out = await ar.generate(model, prompt, shape, new Rng(0), {
      maxNewTokens: 5,
      greedy: true,
      onStep: (i) => steps.push(i),
    });
    expect(out.shape).toEqual({ batch: 2, seq: 8 });
    expect(out.modelCalls).toBe(5);
    expect(steps).toEqual([0, 1, 2, 3, 4]);
    const again = await ar.generate(model, prompt, shape, new Rng(99), { maxNewTokens: 5, greedy: true });
    expect(again.tokens).toEqual(out.tokens);
    for (let r = 0; r < 2; r++) {
      const seq = out.tokens.subarray(r * 8, (r + 1) * 8);
      expect([...seq.subarray(0, 3)]).toEqual([...prompt.subarray(r * 3, r * 3 + 3)]);
      for (let n = 3; n < 8; n++) {
        const logits = await model.forward(seq.slice(0, n), { batch: 1, seq: n });
        const last = logits.data.subarray((n - 1) * 31, n * 31);
        expect(seq[n]).toBe(last.indexOf(Math.max(...last)));
      }
    }
  });

  it('calls onStep after the barrier, one prefill then decode steps', async () => {
    const fake = new FakeModel(config, (t, _p, i) => (i === (t + 1) % 31 ? 5 : 0));
    const barriersAtStep: number[] = [];
    const out = await ar.generate(fake, Int32Array.from([3]), { batch: 1, seq: 1 }, new Rng(0), {
      maxNewTokens: 4,
      greedy: true,
      onStep: () => barriersAtStep.push(fake.barriers),
    });
    expect([...out.tokens]).toEqual([3, 4, 5, 6, 7]);
    expect(barriersAtStep).toEqual([1, 2, 3, 4]);
    expect(fake.inputs.map((x) => [...x])).toEqual([[3], [4], [5], [6]]);
  });

  it('seeded sampling is reproducible and depends on the seed', async () => {
    const prompt = Int32Array.from([1, 2]);
    const run = (seed: number) =>
      ar.generate(model, prompt, { batch: 1, seq: 2 }, new Rng(seed), {
        maxNewTokens: 10,
        temperature: 1.5,
        topK: 20,
      });
    expect((await run(5)).tokens).toEqual((await run(5)).tokens);
    expect((await run(5)).tokens).not.toEqual((await run(6)).tokens);
  });

  it('rejects a generation that does not fit in maxContext, and bad options', async () => {
    const e = await errorOf(
      ar.generate(model, new Int32Array(10), { batch: 1, seq: 10 }, new Rng(0), { maxNewTokens: 7 }),
    );
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toMatch(
      /the prompt \+ 7 new tokens needs 17 positions but the model's maxContext is 16/,
    );
    const ok = await ar.generate(model, new Int32Array(10), { batch: 1, seq: 10 }, new Rng(0), {
      maxNewTokens: 6,
    });
    expect(ok.shape.seq).toBe(16);
    for (const bad of [{ maxNewTokens: 0 }, { temperature: -1 }, { topK: 0 }, { topP: 1.5 }]) {
      const err = await errorOf(ar.generate(model, new Int32Array(2), { batch: 1, seq: 2 }, new Rng(0), bad));
      expect(err.code).toBe('INVALID_OPTION');
    }
  });
});
