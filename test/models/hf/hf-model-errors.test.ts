import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { messages } from '../../../src/messages.js';
import { HF_MODEL_TYPES } from '../../../src/models/hf/hf-config.js';
import { loadHfModel } from '../../../src/models/hf/hf-model.js';
import { GraphBuilder } from '../../../src/models/onnx/graph-builder.js';
import { type TinyHfModel, writeTinyHfModel } from './fixtures.js';

/** A fresh tiny llama folder per test (each test breaks it differently). */
let fixtures: TinyHfModel[] = [];
function fresh(options: Parameters<typeof writeTinyHfModel>[1] = {}): TinyHfModel {
  const f = writeTinyHfModel('llama', options);
  fixtures.push(f);
  return f;
}
afterAll(() => {
  for (const f of fixtures) f.cleanup();
  fixtures = [];
});

function editJson(path: string, edit: (json: Record<string, unknown>) => void): void {
  const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  edit(json);
  writeFileSync(path, JSON.stringify(json));
}

/** Writes a one-node graph `tokens → Gather(embed) → logits` in place of the folder's model.onnx. */
function writeGraph(dir: string, inputs: readonly string[], outputs: readonly string[]): void {
  const g = new GraphBuilder();
  for (const name of inputs) g.input(name, name.startsWith('past') ? 'float32' : 'int64', ['b', 's']);
  const embed = g.floatInit('embed', [256, 4], new Float32Array(1024));
  const x = g.op('Gather', [embed, inputs[0] ?? ''], { axis: { int: 0 } });
  for (const name of outputs) {
    g.op('Identity', [x], {}, { output: name });
    g.output(name, 'float32', ['b', 's', 4]);
  }
  g.write(join(dir, 'onnx', 'model.onnx'));
}

describe('missing files name the folder, the file and what it holds', () => {
  test.each([
    ['config.json', 'the architecture'],
    ['tokenizer.json', 'the tokenizer'],
  ])('%s', async (file, what) => {
    const f = fresh();
    rmSync(join(f.dir, file));
    await expect(loadHfModel(f.dir)).rejects.toMatchObject({
      code: 'IO',
      message: messages.hfMissingFile(f.dir, file, what),
    });
  });

  test('onnx/model.onnx: the fp32 file, with the dtypes the folder has', async () => {
    const f = fresh();
    rmSync(join(f.dir, 'onnx', 'model.onnx'));
    await expect(loadHfModel(f.dir)).rejects.toMatchObject({
      code: 'IO',
      message: messages.hfDtypeMissing(f.dir, 'fp32', 'model.onnx', []),
    });
  });

  test('a folder that does not exist', async () => {
    await expect(loadHfModel('/nonexistent/dantinox-model')).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining('"/nonexistent" has no dantinox-model (the model folder)'),
    });
  });

  test('external data file named by the graph', async () => {
    const f = fresh({ externalData: true });
    rmSync(join(f.dir, 'onnx', 'model.onnx_data'));
    const onnxPath = join(f.dir, 'onnx', 'model.onnx');
    await expect(loadHfModel(f.dir)).rejects.toMatchObject({
      code: 'IO',
      message: messages.hfMissingExternalData(onnxPath, `${onnxPath}_data`),
    });
  });

  test('a file that is not ONNX', async () => {
    const f = fresh();
    writeFileSync(join(f.dir, 'onnx', 'model.onnx'), 'hello, not a model');
    await expect(loadHfModel(f.dir)).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining('is not a readable ONNX model'),
    });
  });
});

test('an unsupported model_type names config.json, the type and the supported list', async () => {
  const f = fresh();
  const path = join(f.dir, 'config.json');
  editJson(path, (j) => {
    j['model_type'] = 'bert';
  });
  await expect(loadHfModel(f.dir)).rejects.toMatchObject({
    code: 'UNSUPPORTED',
    message: messages.hfUnsupportedModelType(path, 'bert', HF_MODEL_TYPES),
  });
});

describe('graphs that break the decoder-with-past convention', () => {
  const cases: [string, string[], string[], RegExp][] = [
    [
      'no input_ids',
      ['tokens', 'attention_mask'],
      ['logits'],
      /no input "input_ids" \(inputs: tokens, attention_mask\)/,
    ],
    ['no logits', ['input_ids', 'attention_mask'], ['scores'], /no output "logits"/],
    ['no KV cache', ['input_ids', 'attention_mask'], ['logits'], /no past_key_values/],
  ];
  test.each(cases)('%s', async (_name, inputs, outputs, pattern) => {
    const f = fresh();
    writeGraph(f.dir, inputs, outputs);
    const err = await loadHfModel(f.dir).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_INPUT' });
    expect((err as Error).message).toMatch(pattern);
    expect((err as Error).message).toContain(join(f.dir, 'onnx', 'model.onnx'));
    expect((err as Error).message).toContain('Expected inputs input_ids, attention_mask');
  });

  test('config.json and graph disagree on the layer count', async () => {
    const f = fresh();
    editJson(join(f.dir, 'config.json'), (j) => {
      j['num_hidden_layers'] = 3;
    });
    await expect(loadHfModel(f.dir)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(
        /"past_key_values.2.key" is missing: config.json has 3 layers, the graph has 2/,
      ),
    });
  });

  test('config.json and graph disagree on the KV heads', async () => {
    const f = fresh();
    editJson(join(f.dir, 'config.json'), (j) => {
      j['num_key_value_heads'] = 4;
    });
    await expect(loadHfModel(f.dir)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/past_key_values.0.key has 2 key\/value heads .* config.json implies 4/),
    });
  });
});

describe('other load failures', () => {
  let f: TinyHfModel;
  beforeAll(() => {
    f = fresh();
  });

  test('a tokenizer with more ids than the model', async () => {
    editJson(join(f.dir, 'config.json'), (j) => {
      j['vocab_size'] = 100;
    });
    await expect(loadHfModel(f.dir)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('produces ids up to 255'),
    });
  });

  test('bad thread counts', async () => {
    const g = fresh();
    await expect(loadHfModel(g.dir, { threads: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  });
});

test('a disposed model refuses to run', async () => {
  const f = fresh();
  const model = await loadHfModel(f.dir, { threads: 1 });
  await model.dispose();
  await expect(model.forward(Int32Array.of(1), { batch: 1, seq: 1 })).rejects.toMatchObject({
    code: 'INVALID_INPUT',
    message: messages.hfModelDisposed(model.folder),
  });
});
