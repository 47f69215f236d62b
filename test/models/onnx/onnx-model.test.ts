import { afterAll, describe, expect, it } from 'vitest';
import type { Model } from '../../../src/models/model.js';
import { ModelConfig, type ModelConfigInput } from '../../../src/models/model-config.js';
import { createModel, type OnnxModel } from '../../../src/models/onnx/onnx-model.js';
import { ReferenceModel } from '../../../src/models/reference-model.js';
import { Rng } from '../../../src/rng.js';
import { BASE, VARIANTS } from './variants.js';

/** max |a − b| / max |b|: the relative error the issue bounds by 1e-4. */
function relError(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
    scale = Math.max(scale, Math.abs(b[i] ?? 0));
  }
  return diff / scale;
}

const opened: Model[] = [];
afterAll(async () => {
  for (const m of opened) await m.dispose();
});

async function pair(
  overrides: ModelConfigInput,
  seed = 7,
): Promise<{ onnx: OnnxModel; ref: ReferenceModel }> {
  const config = ModelConfig.parse({ ...BASE, ...overrides });
  const onnx = await createModel(config, { seed, threads: 1 });
  opened.push(onnx);
  return { onnx, ref: ReferenceModel.create(config, { seed }) };
}

describe('OnnxModel matches the reference model', () => {
  for (const [name, overrides] of Object.entries(VARIANTS)) {
    it(`${name}: forward, prefill and decode steps`, async () => {
      const { onnx, ref } = await pair(overrides);
      const batch = 2;
      const seq = 9;
      const tokens = new Rng(1).integers(onnx.config.vocabSize, batch * seq);
      const shape = { batch, seq };
      const full = await onnx.forward(tokens, shape);
      const fullRef = await ref.forward(tokens, shape);
      expect(full.dims).toEqual([batch, seq, onnx.config.vocabSize]);
      expect(relError(full.data, fullRef.data)).toBeLessThan(1e-4);

      // Prefill 5 tokens, then 4 decode steps: each step's logits equal the forward pass at that position.
      const prompt = 5;
      const v = onnx.config.vocabSize;
      const promptTokens = new Int32Array(batch * prompt);
      for (let b = 0; b < batch; b++)
        promptTokens.set(tokens.subarray(b * seq, b * seq + prompt), b * prompt);
      const pre = await onnx.prefill(promptTokens, { batch, seq: prompt });
      const preRef = await ref.prefill(promptTokens, { batch, seq: prompt });
      expect(relError(pre.logits.data, preRef.logits.data)).toBeLessThan(1e-4);
      let state = pre.state;
      let refState = preRef.state;
      for (let t = prompt; t < seq; t++) {
        const step = Int32Array.from({ length: batch }, (_, b) => tokens[b * seq + t] ?? 0);
        const out = await onnx.decodeStep(step, state);
        const outRef = await ref.decodeStep(step, refState);
        expect(out.state.length).toBe(t + 1);
        expect(relError(out.logits.data, outRef.logits.data)).toBeLessThan(1e-4);
        if (onnx.config.causal) {
          const expected = new Float32Array(batch * v);
          for (let b = 0; b < batch; b++) {
            expected.set(full.data.subarray((b * seq + t) * v, (b * seq + t + 1) * v), b * v);
          }
          expect(relError(out.logits.data, expected)).toBeLessThan(1e-4);
        }
        state = out.state;
        refState = outRef.state;
      }
    });
  }
});

describe('OnnxModel prefill and extend compute the logits the caller reads', () => {
  it("'last' runs the head on each sequence's last position, false returns none; the cache is the same", async () => {
    const { onnx } = await pair({});
    const v = onnx.config.vocabSize;
    const batch = 2;
    const seq = 6;
    const shape = { batch, seq };
    const tokens = new Rng(3).integers(v, batch * seq);
    const all = await onnx.prefill(tokens, shape);
    const last = await onnx.prefill(tokens, shape, { logits: 'last' });
    const none = await onnx.prefill(tokens, shape, { logits: false });
    expect(all.logits.dims).toEqual([batch, seq, v]);
    expect(last.logits.dims).toEqual([batch, 1, v]);
    expect(none.logits).toEqual({ data: new Float32Array(0), dims: [batch, seq, v] });
    const lastRows = new Float32Array(batch * v);
    for (let b = 0; b < batch; b++)
      lastRows.set(all.logits.data.subarray((b * seq + seq - 1) * v, (b * seq + seq) * v), b * v);
    expect(relError(last.logits.data, lastRows)).toBeLessThan(1e-5);

    // The next step reads the same cache whichever logits the prefill computed.
    const step = Int32Array.of(1, 2);
    const afterAll = await onnx.decodeStep(step, all.state);
    const afterLast = await onnx.decodeStep(step, last.state);
    const afterNone = await onnx.decodeStep(step, none.state);
    expect(afterLast.logits.data).toEqual(afterAll.logits.data);
    expect(afterNone.logits.data).toEqual(afterAll.logits.data);

    // extend at depth 7 by 3 tokens: 'last' is the last row of the full extend's logits.
    const more = new Rng(4).integers(v, batch * 3);
    const extendAll = await onnx.extend(more, 3, afterAll.state);
    const extendLast = await onnx.extend(more, 3, afterLast.state, { logits: 'last' });
    expect(extendAll.logits.dims).toEqual([batch, 3, v]);
    expect(extendLast.logits.dims).toEqual([batch, 1, v]);
    const extendRows = new Float32Array(batch * v);
    for (let b = 0; b < batch; b++)
      extendRows.set(extendAll.logits.data.subarray((b * 3 + 2) * v, (b * 3 + 3) * v), b * v);
    expect(relError(extendLast.logits.data, extendRows)).toBeLessThan(1e-5);
    for (const s of [extendAll.state, extendLast.state, afterNone.state]) s.dispose();
  });
});
