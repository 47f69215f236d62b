/**
 * transformers.js agrees with ONNX Runtime: the `tiny` and `small` presets exported as Hugging Face folders and
 * run by `@huggingface/transformers` give next-token log-probabilities within 1e-3 of the built-in ONNX model
 * with the same weights on a fixed text, identical greedy tokens through its KV cache, and batches of rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadTransformersJsModel } from '../../../../src/models/engines/transformers-js/transformers-js-model.js';
import { createModel, exportHfModel, type Model, ModelConfig } from '../../../../src/models/index.js';
import { ARParadigm } from '../../../../src/models/paradigms/ar-paradigm.js';
import { logSoftmax } from '../../../../src/models/paradigms/log-probs.js';
import { Rng } from '../../../../src/rng.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun.';
const root = mkdtempSync(join(tmpdir(), 'dantinox-tjs-'));
const open: Model[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
  rmSync(root, { recursive: true, force: true });
});

function maxLogProbDiff(a: Float32Array, b: Float32Array, vocab: number): number {
  let worst = 0;
  for (let row = 0; row < a.length / vocab; row++) {
    const la = logSoftmax(a.subarray(row * vocab, (row + 1) * vocab));
    const lb = logSoftmax(b.subarray(row * vocab, (row + 1) * vocab));
    for (let i = 0; i < vocab; i++) worst = Math.max(worst, Math.abs((la[i] as number) - (lb[i] as number)));
  }
  return worst;
}

async function pair(preset: string): Promise<[Model, Model]> {
  const config = ModelConfig.preset(preset);
  const ort = await createModel(config, { seed: 7, threads: 2 });
  const folder = join(root, preset);
  exportHfModel(config, ort.weights, folder);
  const tjs = await loadTransformersJsModel(folder, { threads: 2 });
  open.push(ort, tjs);
  return [ort, tjs];
}

async function greedy(model: Model, prompt: Int32Array, n: number): Promise<number[]> {
  const out = await new ARParadigm(model.config).generate(
    model,
    prompt,
    { batch: 1, seq: prompt.length },
    new Rng(1),
    {
      maxNewTokens: n,
      greedy: true,
    },
  );
  return Array.from(out.tokens.subarray(prompt.length));
}

describe.each(['tiny', 'small'])('%s preset, Hugging Face export', (preset) => {
  test('log-probs within 1e-3 of ONNX Runtime and identical greedy tokens', {
    timeout: 300_000,
  }, async () => {
    const [ort, tjs] = await pair(preset);
    const ids = Int32Array.from((ort.tokenizer?.encode(TEXT) ?? []).slice(0, 24));
    const shape = { batch: 1, seq: ids.length };
    const a = await ort.forward(ids, shape);
    const b = await tjs.forward(ids, shape);
    expect(b.dims).toEqual(a.dims);
    expect(maxLogProbDiff(a.data, b.data, ort.config.vocabSize)).toBeLessThanOrEqual(1e-3);
    const prompt = ids.subarray(0, 8);
    expect(await greedy(tjs, prompt, 6)).toEqual(await greedy(ort, prompt, 6));
    expect(tjs.info.threads).toBe(2);
    expect(tjs.info.engine).toMatch(/^@huggingface\/transformers 4\.3\.2/);
  });
});

test('batches and decode steps continue each row', async () => {
  const [ort, tjs] = await pair('tiny');
  const ids = Int32Array.from({ length: 2 * 10 }, (_, i) => (i * 31 + 5) % 256);
  const shape = { batch: 2, seq: 10 };
  const pa = await ort.prefill(ids, shape);
  const pb = await tjs.prefill(ids, shape);
  expect(maxLogProbDiff(pa.logits.data, pb.logits.data, 256)).toBeLessThanOrEqual(1e-3);
  const next = Int32Array.of(3, 200);
  const sa = await ort.decodeStep(next, pa.state);
  const sb = await tjs.decodeStep(next, pb.state);
  expect(sb.state.length).toBe(11);
  expect(maxLogProbDiff(sa.logits.data, sb.logits.data, 256)).toBeLessThanOrEqual(1e-3);
  await expect(tjs.decodeStep(next, pb.state)).rejects.toThrow(/already consumed/);
  sa.state.dispose();
  sb.state.dispose();
});
