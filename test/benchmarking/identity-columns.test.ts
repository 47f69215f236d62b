/**
 * Identity columns a run records about its weights, with known answers: which matrices were quantized, by name and
 * dtype (`quantized_matrix_names`) — recorded while the built-in graph is built, and read back from the files of
 * a Hugging Face ONNX folder and of a GGUF export — and `weight_bytes` of the ONNX file transformers.js loaded for
 * its dtype.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelIdentity } from '../../src/benchmarking/suite.js';
import { loadLlamaCppModel } from '../../src/models/engines/llama-cpp/llama-cpp-model.js';
import { loadTransformersJsModel } from '../../src/models/engines/transformers-js/transformers-js-model.js';
import { exportGguf } from '../../src/models/gguf/gguf-export.js';
import { loadHfModel } from '../../src/models/hf/hf-model.js';
import { createModel, exportHfModel } from '../../src/models/index.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { readGguf } from '../models/gguf/read-gguf.js';

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

describe('quantized_matrix_names of files read from disk', () => {
  it("a Hugging Face folder's files list every matrix product's weight under its stored name", async () => {
    const folder = join(root, 'tiny-dtypes');
    const source = await createModel('tiny', { seed: 5, threads: 1 });
    exportHfModel(source.config, source.weights, folder, { dtypes: ['fp32', 'fp16', 'q8', 'q4'] });
    await source.dispose();
    // tiny: 2 blocks of 7 unfused matrices (the Hugging Face layout); its head is tied to the embedding, which an
    // fp16 file multiplies by directly and a quantized file stores again as `lm_head.weight`, quantized.
    const blocks = [0, 1].flatMap((b) =>
      ['q', 'k', 'v', 'o']
        .map((m) => `blocks.${b}.attn.${m}.weight`)
        .concat(['gate', 'up', 'down'].map((m) => `blocks.${b}.mlp.${m}.weight`)),
    );
    const plan = (dtype: string, head: string) =>
      Object.fromEntries([...blocks, head].map((m) => [`${m}.${dtype}`, dtype]));
    const expected = {
      fp32: undefined,
      fp16: { dtype: 'fp16', headDtype: 'fp16', matrices: plan('fp16', 'embed.weight') },
      q8: { dtype: 'q8', headDtype: 'q8', matrices: plan('q8', 'lm_head.weight') },
      q4: {
        dtype: 'q4',
        headDtype: 'q4',
        matrices: plan('q4', 'lm_head.weight'),
        blockSize: 32,
        accuracyLevel: 4,
      },
    } as const;
    for (const [dtype, quantization] of Object.entries(expected)) {
      const hf = await loadHfModel(folder, { threads: 1, dtype: dtype as keyof typeof expected });
      try {
        expect(hf.info.quantization, dtype).toEqual(quantization);
        const row = modelIdentity(new ARParadigm(hf.config), hf, dtype);
        expect(row['quantized_matrices'], dtype).toBe(quantization === undefined ? 0 : 15);
        expect(row['block_size'], dtype).toBe(dtype === 'q4' ? 32 : null);
      } finally {
        await hf.dispose();
      }
    }
    const tjs = await loadTransformersJsModel(folder, { threads: 1, dtype: 'q4' });
    try {
      expect(tjs.info.quantization).toEqual(expected.q4);
    } finally {
      await tjs.dispose();
    }
  });

  it("a GGUF file's quantized matrices are its tensors of two or more dimensions, by name and type", async () => {
    const source = await createModel('tiny', { seed: 6, threads: 1 });
    try {
      for (const [dtype, expected] of [
        ['fp32', undefined],
        ['fp16', 'fp16'],
        ['q8', 'q8'],
        ['q4', 'q4'],
      ] as const) {
        const path = join(root, `tiny-${dtype}.gguf`);
        exportGguf(source, path, { dtype });
        // The test's own GGUF reader, not the loader's: every matrix of the export is in the export's dtype.
        const matrices = readGguf(readFileSync(path), { headerOnly: true }).tensors.filter(
          (t) => t.ne.length >= 2,
        );
        expect(matrices.length).toBeGreaterThan(8);
        const model = await loadLlamaCppModel(path, source.config, { threads: 1, dtype });
        try {
          if (expected === undefined) {
            expect(model.info.quantization, dtype).toBeUndefined();
            continue;
          }
          expect(model.info.quantization, dtype).toEqual({
            dtype: expected,
            headDtype: expected,
            matrices: Object.fromEntries(matrices.map((t) => [t.name, expected])),
            ...(dtype === 'q4' ? { blockSize: 32 } : {}),
          });
          const row = modelIdentity(new ARParadigm(model.config), model, dtype);
          expect(row['quantized_matrices'], dtype).toBe(matrices.length);
          expect(String(row['quantized_matrix_names']).split(' '), dtype).toContain(
            `blk.0.attn_q.weight:${expected}`,
          );
        } finally {
          await model.dispose();
        }
      }
    } finally {
      await source.dispose();
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
