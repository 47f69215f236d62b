import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type HfModel, loadHfModel } from '../../../src/models/hf/hf-model.js';
import type { Logits, StepResult } from '../../../src/models/model.js';
import { onnx } from '../../../src/models/onnx/graph-builder.js';
import { ReferenceModel } from '../../../src/models/reference-model.js';
import { Rng } from '../../../src/rng.js';
import { type TinyHfModel, type TinyLayout, writeTinyHfModel } from './fixtures.js';

/** Largest absolute difference relative to the largest reference magnitude. */
function relativeError(got: Logits, want: Logits): number {
  expect(got.dims).toEqual(want.dims);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < want.data.length; i++) {
    diff = Math.max(diff, Math.abs((got.data[i] ?? Number.NaN) - (want.data[i] ?? 0)));
    scale = Math.max(scale, Math.abs(want.data[i] ?? 0));
  }
  return diff / scale;
}

const TOL = 1e-4;

describe.each<TinyLayout>(['gpt2', 'llama'])('%s layout exported and loaded back', (layout) => {
  let fixture: TinyHfModel;
  let model: HfModel;
  let ref: ReferenceModel;

  beforeAll(async () => {
    fixture = writeTinyHfModel(layout);
    model = await loadHfModel(fixture.dir, { threads: 1 });
    ref = ReferenceModel.create(fixture.config, { weights: fixture.weights });
  });
  afterAll(async () => {
    await model.dispose();
    fixture.cleanup();
  });

  test('config.json maps back to the exported config', () => {
    expect(model.config).toEqual(fixture.config);
    expect(model.modelType).toBe(layout);
  });

  test('info, tokenizer and parameter count', () => {
    expect(model.info.name).toBe(fixture.dir.split('/').pop());
    expect(model.info.engine).toMatch(/^onnxruntime-node 1\.\d+\.\d+ \(cpu\)$/);
    expect(model.info.threads).toBe(1);
    expect(model.info.dtype).toBe('fp32');
    expect(model.numParameters()).toBe(ref.numParameters());
    expect(model.tokenizer.vocabSize).toBe(256);
    expect(model.tokenizer.encode('hé')).toEqual([104, 195, 169]);
  });

  test('forward logits equal the reference oracle (batch 2)', async () => {
    const rng = new Rng(1n);
    const shape = { batch: 2, seq: 9 };
    const tokens = Int32Array.from(rng.integers(256, 18));
    const err = relativeError(await model.forward(tokens, shape), await ref.forward(tokens, shape));
    expect(err).toBeLessThan(TOL);
  });

  test('prefill then 6 decode steps equal the reference, state lengths advance', async () => {
    const rng = new Rng(2n);
    const shape = { batch: 2, seq: 5 };
    const prompt = Int32Array.from(rng.integers(256, 10));
    let got: StepResult = await model.prefill(prompt, shape);
    let want: StepResult = await ref.prefill(prompt, shape);
    expect(relativeError(got.logits, want.logits)).toBeLessThan(TOL);
    for (let step = 0; step < 6; step++) {
      const next = Int32Array.from(rng.integers(256, 2));
      got = await model.decodeStep(next, got.state);
      want = await ref.decodeStep(next, want.state);
      expect(got.state.length).toBe(5 + step + 1);
      expect(got.logits.dims).toEqual([2, 1, 256]);
      expect(relativeError(got.logits, want.logits)).toBeLessThan(TOL);
    }
    got.state.dispose();
  });

  test('a consumed or foreign state and bad tokens are rejected before the engine runs', async () => {
    const { state } = await model.prefill(Int32Array.from([1, 2, 3]), { batch: 1, seq: 3 });
    await model.decodeStep(Int32Array.from([4]), state);
    await expect(model.decodeStep(Int32Array.from([4]), state)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    const refState = (await ref.prefill(Int32Array.from([1]), { batch: 1, seq: 1 })).state;
    await expect(model.decodeStep(Int32Array.from([4]), refState)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(model.forward(Int32Array.from([256]), { batch: 1, seq: 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(model.forward(new Int32Array(65), { batch: 1, seq: 65 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

test('sliding-window mistral export matches the reference past the window', async () => {
  const { ModelConfig } = await import('../../../src/models/model-config.js');
  const config = ModelConfig.parse({
    dim: 16,
    nHeads: 2,
    numBlocks: 1,
    vocabSize: 256,
    maxContext: 32,
    activation: 'silu',
    slidingWindow: true,
    contextWindow: 3,
    weightTying: false,
  });
  const fixture = writeTinyHfModel('llama', { config });
  const model = await loadHfModel(fixture.dir, { threads: 1 });
  const ref = ReferenceModel.create(config, { weights: fixture.weights });
  expect(model.modelType).toBe('mistral');
  expect(model.config).toEqual(config);
  const tokens = Int32Array.from({ length: 12 }, (_, i) => (i * 29) % 256);
  const shape = { batch: 1, seq: 12 };
  expect(relativeError(await model.forward(tokens, shape), await ref.forward(tokens, shape))).toBeLessThan(
    TOL,
  );
  let got = await model.prefill(tokens, shape);
  let want = await ref.prefill(tokens, shape);
  for (const t of [5, 6, 7]) {
    got = await model.decodeStep(Int32Array.of(t), got.state);
    want = await ref.decodeStep(Int32Array.of(t), want.state);
    expect(relativeError(got.logits, want.logits)).toBeLessThan(TOL);
  }
  await model.dispose();
  fixture.cleanup();
});

test('a model with external data (onnx/model.onnx_data) loads and matches the reference', async () => {
  const fixture = writeTinyHfModel('gpt2', { externalData: true });
  const model = await loadHfModel(fixture.dir, { threads: 1 });
  const ref = ReferenceModel.create(fixture.config, { weights: fixture.weights });
  const tokens = Int32Array.from([5, 4, 3, 2, 1]);
  const shape = { batch: 1, seq: 5 };
  expect(relativeError(await model.forward(tokens, shape), await ref.forward(tokens, shape))).toBeLessThan(
    TOL,
  );
  expect(model.numParameters()).toBe(ref.numParameters());
  await model.dispose();
  await model.dispose();
  fixture.cleanup();
});

test('merged decoders: use_cache_branch is false for prefill and true for decode steps', async () => {
  const fixture = writeTinyHfModel('llama');
  const path = join(fixture.dir, 'onnx', 'model.onnx');
  // Rewire the exported graph: logits = raw logits + 1000 · float(use_cache_branch).
  const model = onnx.ModelProto.decode(readFileSync(path));
  const graph = model.graph as onnx.GraphProto;
  for (const node of graph.node)
    node.output = (node.output ?? []).map((o: string) => (o === 'logits' ? 'logits_raw' : o));
  graph.input.push(
    onnx.ValueInfoProto.create({
      name: 'use_cache_branch',
      type: { tensorType: { elemType: onnx.TensorProto.DataType.BOOL, shape: { dim: [{ dimValue: 1 }] } } },
    }),
  );
  const thousand = new Float32Array([1000]);
  graph.initializer.push(
    onnx.TensorProto.create({
      name: 'k1000',
      dims: [],
      dataType: 1,
      rawData: new Uint8Array(thousand.buffer),
    }),
  );
  graph.node.push(
    onnx.NodeProto.create({
      opType: 'Cast',
      input: ['use_cache_branch'],
      output: ['flag'],
      attribute: [{ name: 'to', type: 2, i: 1 }],
    }),
    onnx.NodeProto.create({ opType: 'Mul', input: ['flag', 'k1000'], output: ['offset'] }),
    onnx.NodeProto.create({ opType: 'Add', input: ['logits_raw', 'offset'], output: ['logits'] }),
  );
  writeFileSync(path, onnx.ModelProto.encode(model).finish());
  const hf = await loadHfModel(fixture.dir, { threads: 1 });
  const ref = ReferenceModel.create(fixture.config, { weights: fixture.weights });
  const prompt = Int32Array.of(9, 8, 7);
  const shape = { batch: 1, seq: 3 };
  const got = await hf.prefill(prompt, shape);
  const want = await ref.prefill(prompt, shape);
  expect(relativeError(got.logits, want.logits)).toBeLessThan(TOL);
  const step = await hf.decodeStep(Int32Array.of(6), got.state);
  const refStep = await ref.decodeStep(Int32Array.of(6), want.state);
  const shifted = { ...refStep.logits, data: refStep.logits.data.map((x) => x + 1000) };
  expect(relativeError(step.logits, shifted)).toBeLessThan(TOL);
  await hf.dispose();
  fixture.cleanup();
});
