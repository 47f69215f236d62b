/**
 * `Model.extend` (a prefill at depth) agrees with one forward pass over the whole sequence on every engine: the
 * logits of the last P positions after a prefill of d tokens and an extend of P tokens equal those of a forward
 * pass over d + P tokens, and the cache it returns holds d + P positions and decodes on.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { createLlamaCppModel } from '../../src/models/engines/llama-cpp/create-llama-cpp-model.js';
import { createTransformersJsModel } from '../../src/models/engines/transformers-js/create-transformers-js-model.js';
import { createModel, type Model, ModelConfig, type OnnxModel } from '../../src/models/index.js';
import { logSoftmax } from '../../src/models/paradigms/log-probs.js';
import { Rng } from '../../src/rng.js';

const open: Model[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
});

/** Max |log p_a − log p_b| over the rows of two logit arrays (log-softmax removes llama.cpp's normalisation). */
function maxLogProbDiff(a: Float32Array, b: Float32Array, vocab: number): number {
  let worst = 0;
  for (let row = 0; row < a.length / vocab; row++) {
    const la = logSoftmax(a.subarray(row * vocab, (row + 1) * vocab));
    const lb = logSoftmax(b.subarray(row * vocab, (row + 1) * vocab));
    for (let i = 0; i < vocab; i++) worst = Math.max(worst, Math.abs((la[i] as number) - (lb[i] as number)));
  }
  return worst;
}

async function agreesWithForward(model: Model, depth: number, p: number): Promise<number> {
  const extend = model.extend?.bind(model);
  if (extend === undefined) throw new Error(`${model.info.engine} has no extend`);
  const v = model.config.vocabSize;
  const ids = new Rng(3).integers(v, depth + p);
  const full = await model.forward(ids, { batch: 1, seq: depth + p });
  const { state } = await model.prefill(ids.subarray(0, depth), { batch: 1, seq: depth });
  const out = await extend(ids.subarray(depth), p, state);
  expect(out.state.length).toBe(depth + p);
  expect(out.logits.dims).toEqual([1, p, v]);
  const step = await model.decodeStep(Int32Array.of(1), out.state);
  expect(step.state.length).toBe(depth + p + 1);
  step.state.dispose();
  return maxLogProbDiff(out.logits.data, full.data.subarray(depth * v), v);
}

const tiny = ModelConfig.preset('tiny');
let ort: OnnxModel | undefined;
const ortTiny = async (): Promise<OnnxModel> => {
  if (ort === undefined) {
    ort = await createModel(tiny, { seed: 5, threads: 1 });
    open.push(ort);
  }
  return ort;
};

describe('Model.extend', () => {
  test('ONNX Runtime: full, GQA and sliding-window attention', async () => {
    expect(await agreesWithForward(await ortTiny(), 40, 16)).toBeLessThan(1e-4);
    for (const overrides of [
      { kvHeads: 1, attention: 'gqa' as const },
      { slidingWindow: true, contextWindow: 8 },
    ]) {
      const m = await createModel(ModelConfig.preset('tiny', overrides), { seed: 5, threads: 1 });
      open.push(m);
      expect(await agreesWithForward(m, 30, 12)).toBeLessThan(1e-4);
    }
  });

  test('ONNX Runtime rejects a foreign state and a context beyond maxContext', async () => {
    const m = await ortTiny();
    const { state } = await m.prefill(Int32Array.of(1, 2), { batch: 1, seq: 2 });
    await expect(m.extend(new Int32Array(tiny.maxContext), tiny.maxContext, state)).rejects.toThrow(
      /maxContext/,
    );
  });

  test('llama.cpp', async () => {
    const llama = await createLlamaCppModel(await ortTiny(), { threads: 1 });
    open.push(llama);
    expect(await agreesWithForward(llama, 40, 16)).toBeLessThan(1e-3);
  });

  test('transformers.js', async () => {
    const tjs = await createTransformersJsModel(await ortTiny(), { threads: 1 });
    open.push(tjs);
    expect(await agreesWithForward(tjs, 40, 16)).toBeLessThan(1e-4);
  });
});
