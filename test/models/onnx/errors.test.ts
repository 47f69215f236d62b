import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { createModel, type OnnxModel } from '../../../src/models/onnx/onnx-model.js';
import { initWeights } from '../../../src/models/weights.js';

const config = ModelConfig.parse({ dim: 16, nHeads: 2, numBlocks: 1, vocabSize: 32, maxContext: 8 });
let model: OnnxModel;
let other: OnnxModel;
beforeAll(async () => {
  model = await createModel(config, { threads: 1, name: 'err' });
  other = await createModel(config, { threads: 1 });
});
afterAll(async () => {
  await model.dispose();
  await other.dispose();
});

describe('bad input gets a clear error before the engine runs', () => {
  it('rejects ids outside the vocabulary and negative ids', async () => {
    await expect(model.forward(Int32Array.from([1, 32]), { batch: 1, seq: 2 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: messages.tokenOutOfRange(1, 32, 32),
    });
    await expect(model.prefill(Int32Array.from([-1]), { batch: 1, seq: 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('rejects sequences longer than maxContext, bad shapes and non-Int32Array tokens', async () => {
    await expect(model.forward(new Int32Array(9), { batch: 1, seq: 9 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('maxContext is 8'),
    });
    await expect(model.forward(new Int32Array(4), { batch: 2, seq: 3 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      model.forward(new Float32Array(2) as unknown as Int32Array, { batch: 1, seq: 2 }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('rejects decode steps past maxContext, reused, foreign or disposed states and wrong token counts', async () => {
    const pre = await model.prefill(new Int32Array(7), { batch: 1, seq: 7 });
    const step = await model.decodeStep(Int32Array.from([1]), pre.state);
    expect(step.state.length).toBe(8);
    await expect(model.decodeStep(Int32Array.from([1]), step.state)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('maxContext'),
    });
    await expect(model.decodeStep(Int32Array.from([1]), pre.state)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('already consumed'),
    });
    const fresh = await model.prefill(Int32Array.from([1, 2]), { batch: 1, seq: 2 });
    await expect(other.decodeStep(Int32Array.from([1]), fresh.state)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('not made by this model'),
    });
    await expect(model.decodeStep(Int32Array.from([1, 2]), fresh.state)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: messages.decodeTokensMismatch(2, 1),
    });
    fresh.state.dispose();
    await expect(model.decodeStep(Int32Array.from([1]), fresh.state)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('disposed'),
    });
  });

  it('rejects bad options, mismatched weights and use after dispose', async () => {
    await expect(createModel(config, { threads: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    await expect(createModel('no-such-preset')).rejects.toMatchObject({ code: 'IO' });
    const wrong = initWeights(
      ModelConfig.parse({ dim: 32, nHeads: 2, numBlocks: 1, vocabSize: 32, maxContext: 8 }),
      0,
    );
    await expect(createModel(config, { weights: wrong })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const short = await createModel(config, { threads: 1, name: 'short-lived' });
    await short.dispose();
    await short.dispose();
    await expect(short.forward(Int32Array.from([1]), { batch: 1, seq: 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: messages.modelDisposed('short-lived'),
    });
  });

  it('reports its identity and parameter count', () => {
    expect(model.info).toEqual({
      name: 'err',
      engine: 'onnxruntime-node 1.30.0 (cpu)',
      threads: 1,
      dtype: 'fp32',
      load: { ms: expect.any(Number), peakRssBytes: expect.any(Number) },
      weightBytes: expect.any(Number),
    });
    expect(model.numParameters()).toBe([...model.weights.values()].reduce((n, t) => n + t.data.length, 0));
  });
});
