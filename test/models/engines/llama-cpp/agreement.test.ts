/**
 * llama.cpp agrees with ONNX Runtime: the `tiny` and `small` presets (and tiny MoE and gpt2-shaped variants),
 * exported to F32 GGUF, give next-token log-probabilities within 1e-3 (max absolute difference over every
 * position and vocabulary entry) of the ONNX model with the same weights on a fixed text, and identical greedy
 * tokens through prefill + KV-cache decode steps. Quantized exports stay close to the F32 distribution.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { createLlamaCppModel } from '../../../../src/models/engines/llama-cpp/create-llama-cpp-model.js';
import { createModel, type Model, ModelConfig, type ModelConfigInput } from '../../../../src/models/index.js';
import { ARParadigm } from '../../../../src/models/paradigms/ar-paradigm.js';
import { logSoftmax } from '../../../../src/models/paradigms/log-probs.js';
import { Rng } from '../../../../src/rng.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun.';
const open: Model[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
});

/** Max |log p_a − log p_b| over all positions and ids of two forward passes. */
function maxLogProbDiff(a: Float32Array, b: Float32Array, vocab: number): number {
  let worst = 0;
  for (let row = 0; row < a.length / vocab; row++) {
    const la = logSoftmax(a.subarray(row * vocab, (row + 1) * vocab));
    const lb = logSoftmax(b.subarray(row * vocab, (row + 1) * vocab));
    for (let i = 0; i < vocab; i++) worst = Math.max(worst, Math.abs((la[i] as number) - (lb[i] as number)));
  }
  return worst;
}

async function pair(
  input: string | ModelConfigInput,
  dtype: 'fp32' | 'q8' | 'q4' = 'fp32',
): Promise<[Model, Model]> {
  const config = typeof input === 'string' ? ModelConfig.preset(input) : ModelConfig.parse(input);
  const ort = await createModel(config, { seed: 7, threads: 2 });
  const llama = await createLlamaCppModel(ort, { dtype, threads: 2 });
  open.push(ort, llama);
  return [ort, llama];
}

function textIds(model: Model, length: number): Int32Array {
  const ids = (model.tokenizer?.encode(TEXT) ?? []).slice(0, length);
  return Int32Array.from(ids);
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

describe.each(['tiny', 'small'])('%s preset, F32 GGUF', (preset) => {
  // `small` builds, exports and loads 76 M parameters twice: tens of seconds on a busy 2-core machine.
  test('log-probs within 1e-3 of ONNX Runtime and identical greedy tokens', {
    timeout: 300_000,
  }, async () => {
    const [ort, llama] = await pair(preset);
    const ids = textIds(ort, 24);
    const shape = { batch: 1, seq: ids.length };
    const [a, b] = await Promise.all([ort.forward(ids, shape), llama.forward(ids, shape)]);
    expect(b.dims).toEqual(a.dims);
    expect(maxLogProbDiff(a.data, b.data, ort.config.vocabSize)).toBeLessThanOrEqual(1e-3);
    const prompt = ids.subarray(0, 8);
    expect(await greedy(llama, prompt, 6)).toEqual(await greedy(ort, prompt, 6));
    expect(llama.info.threads).toBe(2);
    expect(llama.info.engine).toMatch(/^node-llama-cpp 3\.21\.1/);
  });
});

test('a routed mixture of experts exports to llama experts and agrees', async () => {
  const [ort, llama] = await pair({ ...ModelConfig.preset('tiny'), ffn: 'moe', nExperts: 4, topK: 2 });
  const ids = textIds(ort, 16);
  const shape = { batch: 1, seq: ids.length };
  const [a, b] = await Promise.all([ort.forward(ids, shape), llama.forward(ids, shape)]);
  expect(maxLogProbDiff(a.data, b.data, ort.config.vocabSize)).toBeLessThanOrEqual(1e-3);
});

test('gpt2-shaped configs run as llama.cpp "gpt2" (its GELU is the tanh approximation: 2e-2)', async () => {
  const [ort, llama] = await pair({
    dim: 64,
    nHeads: 4,
    numBlocks: 2,
    vocabSize: 256,
    maxContext: 64,
    useSwiglu: false,
    activation: 'gelu',
    norm: 'layernorm',
    posEncoding: 'learned',
    weightTying: true,
  });
  const ids = textIds(ort, 24);
  const shape = { batch: 1, seq: ids.length };
  const [a, b] = await Promise.all([ort.forward(ids, shape), llama.forward(ids, shape)]);
  expect(maxLogProbDiff(a.data, b.data, ort.config.vocabSize)).toBeLessThanOrEqual(2e-2);
});

test('batches run as parallel sequences; decode steps continue each row', async () => {
  const [ort, llama] = await pair('tiny');
  const ids = Int32Array.from({ length: 2 * 10 }, (_, i) => (i * 31 + 5) % 256);
  const shape = { batch: 2, seq: 10 };
  const [pa, pb] = [await ort.prefill(ids, shape), await llama.prefill(ids, shape)];
  expect(maxLogProbDiff(pa.logits.data, pb.logits.data, 256)).toBeLessThanOrEqual(1e-3);
  const next = Int32Array.of(3, 200);
  const [sa, sb] = [await ort.decodeStep(next, pa.state), await llama.decodeStep(next, pb.state)];
  expect(sb.state.length).toBe(11);
  expect(maxLogProbDiff(sa.logits.data, sb.logits.data, 256)).toBeLessThanOrEqual(1e-3);
  sa.state.dispose();
  sb.state.dispose();
});

test("{ logits: false } copies no logits, 'last' the last rows; the cache is left as a call with logits would", async () => {
  const [ort, llama] = await pair('tiny');
  const ids = Int32Array.from({ length: 2 * 10 }, (_, i) => (i * 31 + 5) % 256);
  const shape = { batch: 2, seq: 10 };
  const none = { logits: false };
  expect(await llama.forward(ids, shape, none)).toEqual({ data: new Float32Array(0), dims: [2, 10, 256] });
  // { logits: 'last' }: each sequence's last row of the full logits, alone.
  const full = await llama.forward(ids, shape);
  const last = await llama.forward(ids, shape, { logits: 'last' });
  expect(last.dims).toEqual([2, 1, 256]);
  expect(last.data).toEqual(
    Float32Array.of(...full.data.subarray(9 * 256, 10 * 256), ...full.data.subarray(19 * 256)),
  );
  const [pa, pb] = [await ort.prefill(ids, shape), await llama.prefill(ids, shape, none)];
  expect(pb.logits.data).toHaveLength(0);
  const next = Int32Array.of(3, 200);
  const sb = await llama.decodeStep(next, pb.state, none);
  expect(sb.logits.data).toHaveLength(0);
  const after = Int32Array.of(7, 9);
  const [ta, tb] = [
    await ort.decodeStep(after, (await ort.decodeStep(next, pa.state)).state),
    await llama.decodeStep(after, sb.state),
  ];
  expect(tb.state.length).toBe(12);
  expect(maxLogProbDiff(ta.logits.data, tb.logits.data, 256)).toBeLessThanOrEqual(1e-3);
  ta.state.dispose();
  tb.state.dispose();
});

test.each([
  ['q8', 0.05],
  ['q4', 0.5],
] as const)('%s GGUF stays near the F32 distribution (max |Δ log p| ≤ %s)', async (dtype, bound) => {
  const [ort, llama] = await pair('tiny', dtype);
  expect(llama.info.dtype).toBe(dtype);
  const ids = textIds(ort, 24);
  const shape = { batch: 1, seq: ids.length };
  const [a, b] = await Promise.all([ort.forward(ids, shape), llama.forward(ids, shape)]);
  const diff = maxLogProbDiff(a.data, b.data, 256);
  expect(diff).toBeGreaterThan(0);
  expect(diff).toBeLessThanOrEqual(bound);
});
