import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { countOnnxParameters, readOnnxInitializers } from '../../../src/models/hf/onnx-file-info.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { countParameters, weightSpecs } from '../../../src/models/weights.js';
import { type TinyHfModel, writeTinyHfModel } from './fixtures.js';

const made: TinyHfModel[] = [];
afterAll(() => {
  for (const f of made) f.cleanup();
});

test.each([false, true])(
  'reads every weight initializer with its shape (external data: %s)',
  (externalData) => {
    const f = writeTinyHfModel('llama', { externalData });
    made.push(f);
    const infos = readOnnxInitializers(join(f.dir, 'onnx', 'model.onnx'));
    const byName = new Map(infos.map((t) => [t.name, t]));
    for (const spec of weightSpecs(f.config)) {
      const t = byName.get(spec.name);
      expect(t?.dims).toEqual(spec.dims);
      expect(t?.dataType).toBe(1);
      // Tensors of ≥ 1 KiB live in the data file when external data is on; norm weights (128 B) stay inline.
      const big = spec.dims.reduce((a, b) => a * b, 1) * 4 >= 1024;
      expect(t?.externalLocation).toBe(externalData && big ? 'model.onnx_data' : undefined);
    }
    expect(byName.get('rope.cos')?.dims).toEqual([f.config.maxContext, f.config.headSize]);
    expect(countOnnxParameters(infos, f.config)).toBe(countParameters(f.config));
  },
);

test('countOnnxParameters: weight dtypes only, no scalars, no rotary tables, a tied transposed head once', () => {
  const config = ModelConfig.parse({ dim: 8, nHeads: 2, numBlocks: 1, vocabSize: 10, maxContext: 16 });
  const infos = [
    { name: 'embed', dims: [10, 8], dataType: 1 },
    { name: 'head_t', dims: [8, 10], dataType: 1 },
    { name: 'q', dims: [8, 8], dataType: 10 },
    { name: 'q_int8', dims: [8, 8], dataType: 3 },
    { name: 'shape', dims: [4], dataType: 7 },
    { name: 'scale', dims: [], dataType: 1 },
    { name: 'one', dims: [1], dataType: 1 },
    { name: 'model.rotary_emb.cos_cached', dims: [16, 4], dataType: 1 },
    { name: 'inv_freq', dims: [2], dataType: 1 },
  ];
  expect(countOnnxParameters(infos, config)).toBe(80 + 64 + 64);
  expect(countOnnxParameters(infos, { ...config, weightTying: false })).toBe(80 + 80 + 64 + 64);
  expect(countOnnxParameters(infos, { ...config, posEncoding: 'learned' })).toBe(80 + 64 + 64 + 64 + 2);
});

test('a truncated file is reported, not misread', () => {
  const f = writeTinyHfModel('gpt2');
  made.push(f);
  const path = join(f.dir, 'onnx', 'model.onnx');
  const bytes = readFileSync(path);
  writeFileSync(path, bytes.subarray(0, bytes.length - 100));
  expect(() => readOnnxInitializers(path)).toThrow(/truncated|runs past/);
});

test('countOnnxParameters: the same count from every dtype file exportHfModel writes (packed 4-bit, scales and zero points, quantized tied head)', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { exportHfModel } = await import('../../../src/models/hf/hf-export.js');
  const { initWeights } = await import('../../../src/models/weights.js');
  const { BUILTIN_DTYPES, hfOnnxFile } = await import('../../../src/models/onnx/precision.js');
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-params-'));
  try {
    for (const tied of [false, true]) {
      const config = ModelConfig.parse({ ...ModelConfig.preset('tiny'), weightTying: tied });
      const folder = join(dir, `tied-${tied}`);
      exportHfModel(config, initWeights(config, 0), folder, { dtypes: ['fp32', 'fp16', 'q8', 'q4'] });
      for (const [dtype, file] of BUILTIN_DTYPES.map((d) => [d, hfOnnxFile(d)] as const)) {
        const infos = readOnnxInitializers(join(folder, 'onnx', file));
        expect(countOnnxParameters(infos, config), `${dtype}, tied ${tied}`).toBe(countParameters(config));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
