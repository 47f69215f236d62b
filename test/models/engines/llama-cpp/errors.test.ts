/** Bad input around GGUF export and the llama.cpp engine: one clear error each, never a crash. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { DantinoxError } from '../../../../src/errors.js';
import { loadLlamaCppModel } from '../../../../src/models/engines/llama-cpp/llama-cpp-model.js';
import { exportGguf } from '../../../../src/models/gguf/gguf-export.js';
import { initWeights, ModelConfig, type ModelConfigInput } from '../../../../src/models/index.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-gguf-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const source = (input: ModelConfigInput) => {
  const config = ModelConfig.parse({
    dim: 32,
    nHeads: 4,
    numBlocks: 1,
    vocabSize: 256,
    maxContext: 32,
    ...input,
  });
  return { config, weights: initWeights(config, 1) };
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof DantinoxError ? e.code : 'not a DantinoxError';
  }
  return undefined;
}

test.each<[string, ModelConfigInput, RegExp]>([
  ['diffusion', { paradigm: 'diffusion' }, /cannot represent the "diffusion" paradigm/],
  ['sliding window', { slidingWindow: true }, /cannot represent sliding-window attention/],
  ['sinusoidal positions', { posEncoding: 'absolute' }, /cannot represent "absolute" position encoding/],
  ['rotary with LayerNorm', { norm: 'layernorm' }, /rotary positions without RMSNorm and SwiGLU/],
  [
    'learned positions with SwiGLU',
    { posEncoding: 'learned', norm: 'layernorm' },
    /learned positions without LayerNorm and a GELU MLP/,
  ],
])('what llama.cpp cannot represent is refused: %s', (_name, input, message) => {
  const s = source(input);
  expect(codeOf(() => exportGguf(s, join(dir, 'x.gguf')))).toBe('UNSUPPORTED');
  expect(() => exportGguf(s, join(dir, 'x.gguf'))).toThrow(message);
});

test('block types need rows of whole 32-value blocks; fp32 and fp16 take any width', () => {
  const s = source({ dim: 48, nHeads: 4 });
  expect(() => exportGguf(s, join(dir, 'w.gguf'), { dtype: 'q8' })).toThrow(
    /"token_embd\.weight" as Q8_0: its rows have 48 values/,
  );
  expect(exportGguf(s, join(dir, 'w.gguf'), { dtype: 'fp16' }).type).toBe('F16');
  expect(codeOf(() => exportGguf(s, join(dir, 'w.gguf'), { dtype: 'q5' as never }))).toBe('INVALID_OPTION');
});

test('a truncated GGUF file is refused by llama.cpp with one clear error', async () => {
  const s = source({});
  const path = join(dir, 'ok.gguf');
  exportGguf(s, path);
  const cut = join(dir, 'cut.gguf');
  writeFileSync(cut, readFileSync(path).subarray(0, 4000));
  await expect(loadLlamaCppModel(cut, s.config, { threads: 1 })).rejects.toThrow(
    /^llama\.cpp refused the GGUF file ".*cut\.gguf"/,
  );
  await expect(loadLlamaCppModel(path, s.config, { threads: 0 })).rejects.toThrow(DantinoxError);
});

test('bad tokens and consumed states are rejected before llama.cpp sees them', async () => {
  const s = source({});
  const path = join(dir, 'run.gguf');
  exportGguf(s, path);
  const model = await loadLlamaCppModel(path, s.config, { threads: 1 });
  await expect(model.forward(Int32Array.of(1, 300), { batch: 1, seq: 2 })).rejects.toThrow(/300/);
  const { state } = await model.prefill(Int32Array.of(1, 2), { batch: 1, seq: 2 });
  const step = await model.decodeStep(Int32Array.of(3), state);
  await expect(model.decodeStep(Int32Array.of(3), state)).rejects.toThrow(/already consumed/);
  step.state.dispose();
  await model.dispose();
  await expect(model.forward(Int32Array.of(1), { batch: 1, seq: 1 })).rejects.toThrow(/disposed/);
});
