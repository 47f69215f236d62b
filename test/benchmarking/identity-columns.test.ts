/**
 * Identity columns a run records about its weights, with known answers: which matrices were quantized, by name and
 * dtype (`quantized_matrix_names`), and `weight_bytes` of the ONNX file transformers.js loaded for its dtype.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelIdentity } from '../../src/benchmarking/suite.js';
import { loadTransformersJsModel } from '../../src/models/engines/transformers-js/transformers-js-model.js';
import { createModel, exportHfModel } from '../../src/models/index.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';

const root = mkdtempSync(join(tmpdir(), 'dantinox-identity-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('quantized_matrix_names', () => {
  it('names every quantized matrix with its dtype, sorted; the head left out when kept in fp32', async () => {
    const q4 = await createModel('tiny', { seed: 0, threads: 1, dtype: 'q4' });
    const q8 = await createModel('tiny', { seed: 0, threads: 1, dtype: 'q8', headDtype: 'fp32' });
    const fp32 = await createModel('tiny', { seed: 0, threads: 1 });
    try {
      const blocks = (dtype: string): string[] =>
        [0, 1].flatMap((b) =>
          ['attn.o.weight', 'attn.qkv.fused', 'mlp.down.weight', 'mlp.gate_up.fused'].map(
            (m) => `blocks.${b}.${m}:${dtype}`,
          ),
        );
      const q4Row = modelIdentity(new ARParadigm(q4.config), q4, 'q4');
      expect(q4Row['quantized_matrix_names']).toBe([...blocks('q4'), 'embed.weight.transposed:q4'].join(' '));
      expect(q4Row['quantized_matrices']).toBe(9);
      const q8Row = modelIdentity(new ARParadigm(q8.config), q8, 'q8');
      expect(q8Row['quantized_matrix_names']).toBe(blocks('q8').join(' '));
      expect(q8Row['quantized_matrices']).toBe(8);
      expect(modelIdentity(new ARParadigm(fp32.config), fp32, 'fp32')).not.toHaveProperty(
        'quantized_matrix_names',
      );
    } finally {
      await Promise.all([q4.dispose(), q8.dispose(), fp32.dispose()]);
    }
  });
});

describe('weight_bytes of transformers.js', () => {
  it('is the size of the ONNX file of the dtype it loaded, external data included', async () => {
    const source = await createModel('tiny', { seed: 3, threads: 1 });
    const folder = join(root, 'tiny');
    exportHfModel(source.config, source.weights, folder, { dtypes: ['fp32', 'q8'] });
    await source.dispose();
    const size = (file: string): number => {
      const path = join(folder, 'onnx', file);
      let bytes = statSync(path).size;
      try {
        bytes += statSync(`${path}_data`).size;
      } catch {}
      return bytes;
    };
    for (const [dtype, file] of [
      ['fp32', 'model.onnx'],
      ['q8', 'model_quantized.onnx'],
    ] as const) {
      const model = await loadTransformersJsModel(folder, { threads: 1, dtype });
      try {
        expect(model.info.weightBytes, dtype).toBe(size(file));
        expect(modelIdentity(new ARParadigm(model.config), model, dtype)['weight_bytes'], dtype).toBe(
          size(file),
        );
      } finally {
        await model.dispose();
      }
    }
    // The two files differ: the column says which one was measured.
    expect(size('model_quantized.onnx')).toBeLessThan(size('model.onnx'));
  });
});
