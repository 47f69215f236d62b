/**
 * OnnxModel's rows of different lengths (continuous batching): rows that join a running decode state mid-flight,
 * with other prompt lengths, and rows that leave it, get the logits and greedy tokens they get alone — on the
 * tiny preset, a GQA variant of it, a sliding window and learned positions.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { DecodeState, Model, RowBatching } from '../../../src/models/model.js';
import { ModelConfig, type ModelConfigInput } from '../../../src/models/model-config.js';
import { createModel, type OnnxModel } from '../../../src/models/onnx/onnx-model.js';
import { PRESETS } from '../../../src/models/presets.js';
import { argmax } from '../../../src/serving/server/sampler.js';
import { BASE, VARIANTS } from './variants.js';

const opened: Model[] = [];
afterAll(async () => {
  for (const m of opened) await m.dispose();
});

const TINY: ModelConfigInput = PRESETS.tiny;
const CONFIGS: [string, ModelConfigInput][] = [
  ['tiny', TINY],
  ['tiny, gqa (2 kv heads)', { ...TINY, kvHeads: 2 }],
  ['causal sliding window 3', { ...BASE, ...VARIANTS['causal sliding window 3'] }],
  ['learned, layernorm, gelu, tied', { ...BASE, ...VARIANTS['learned, layernorm, gelu, tied'] }],
];

async function model(input: ModelConfigInput): Promise<OnnxModel> {
  const m = await createModel(ModelConfig.parse(input), { seed: 3, threads: 1 });
  opened.push(m);
  return m;
}

/** A request's run: its greedy tokens and the logits each token was picked from. */
interface Trace {
  readonly tokens: number[];
  readonly logits: Float32Array[];
}

/** Greedy decode of `prompt` alone (batch 1): `n` tokens. */
async function alone(m: Model, prompt: readonly number[], n: number): Promise<Trace> {
  const v = m.config.vocabSize;
  let step = await m.prefill(Int32Array.from(prompt), { batch: 1, seq: prompt.length });
  const trace: Trace = { tokens: [], logits: [] };
  let offset = (prompt.length - 1) * v;
  for (;;) {
    trace.logits.push(step.logits.data.slice(offset, offset + v));
    trace.tokens.push(argmax(step.logits.data, offset, v));
    if (trace.tokens.length === n) break;
    step = await m.decodeStep(Int32Array.of(trace.tokens.at(-1) as number), step.state);
    offset = 0;
  }
  step.state.dispose();
  return trace;
}

/** max |a − b| / max |b|. */
function relError(a: Float32Array, b: Float32Array): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
    scale = Math.max(scale, Math.abs(b[i] ?? 0));
  }
  return diff / scale;
}

/**
 * Requests run as a server would: request 0 starts alone; after `joinAt[i]` decode steps request i is prefilled
 * alone and joins the running state; a request leaves as soon as it has `n` tokens.
 */
async function continuous(
  m: Model,
  batching: RowBatching,
  prompts: readonly (readonly number[])[],
  joinAt: readonly number[],
  n: number,
): Promise<{ traces: Trace[]; widths: number[] }> {
  const v = m.config.vocabSize;
  const traces: Trace[] = prompts.map(() => ({ tokens: [], logits: [] }));
  const widths: number[] = [];
  let rows: number[] = [];
  let state: DecodeState | undefined;
  let next: number[] = [];
  const pick = (request: number, data: Float32Array, offset: number): void => {
    const t = traces[request] as Trace;
    t.logits.push(data.slice(offset, offset + v));
    t.tokens.push(argmax(data, offset, v));
  };
  for (let stepIndex = 0; ; stepIndex++) {
    for (const [request, at] of joinAt.entries()) {
      if (at !== stepIndex) continue;
      const prompt = prompts[request] as readonly number[];
      const pre = await m.prefill(Int32Array.from(prompt), { batch: 1, seq: prompt.length });
      pick(request, pre.logits.data, (prompt.length - 1) * v);
      state = state === undefined ? pre.state : batching.joinRows([state, pre.state]);
      rows.push(request);
    }
    // Rows with n tokens leave before the step.
    const keep = rows.flatMap((r, i) => ((traces[r] as Trace).tokens.length < n ? [i] : []));
    if (state !== undefined && keep.length < rows.length) {
      if (keep.length === 0) {
        state.dispose();
        state = undefined;
      } else state = batching.keepRows(state, keep);
      rows = keep.map((i) => rows[i] as number);
    }
    if (state === undefined) {
      if (joinAt.every((at) => at <= stepIndex)) break;
      continue;
    }
    expect(batching.rowLengths(state)).toEqual(
      rows.map((r) => (prompts[r] as readonly number[]).length + (traces[r] as Trace).tokens.length - 1),
    );
    next = rows.map((r) => (traces[r] as Trace).tokens.at(-1) as number);
    widths.push(rows.length);
    const step = await m.decodeStep(Int32Array.from(next), state);
    state = step.state;
    rows.forEach((r, i) => {
      pick(r, step.logits.data, i * v);
    });
  }
  return { traces, widths };
}

const PROMPTS = [[5, 9, 2, 7, 1], [3, 8], [11, 4, 6, 13, 2, 9, 10], [7]];

describe('OnnxModel rows of different lengths', () => {
  it.each(CONFIGS)(
    '%s: rows joining and leaving mid-flight get the tokens and logits of alone',
    async (_, input) => {
      const m = await model(input);
      const n = 6;
      const { traces, widths } = await continuous(m, m.rowBatching, PROMPTS, [0, 2, 2, 4], n);
      // 1 row, then 3 (two join at step 2), then 4, then rows leave as they reach n tokens.
      expect(widths).toEqual([1, 1, 3, 3, 4, 3, 3, 1, 1]);
      for (const [i, prompt] of PROMPTS.entries()) {
        const solo = await alone(m, prompt, n);
        expect(traces[i]?.tokens).toEqual(solo.tokens);
        for (const [k, logits] of solo.logits.entries())
          expect(relError(traces[i]?.logits[k] as Float32Array, logits)).toBeLessThan(1e-5);
      }
    },
  );

  it('joins states of several rows and keeps any rows, in order', async () => {
    const m = await model(TINY);
    const v = m.config.vocabSize;
    const a = await m.prefill(Int32Array.from([1, 2, 3, 4, 5, 6]), { batch: 2, seq: 3 });
    const b = await m.prefill(Int32Array.from([7, 8, 9, 10, 11]), { batch: 1, seq: 5 });
    const joined = m.rowBatching.joinRows([a.state, b.state]);
    expect([joined.batch, joined.length, m.rowBatching.rowLengths(joined)]).toEqual([3, 5, [3, 3, 5]]);
    const kept = m.rowBatching.keepRows(joined, [0, 2]);
    expect([kept.batch, kept.length, m.rowBatching.rowLengths(kept)]).toEqual([2, 5, [3, 5]]);
    const step = await m.decodeStep(Int32Array.of(20, 21), kept);
    // Row 0 is [1, 2, 3] + 20 and row 1 [7 … 11] + 21, each as alone.
    const soloA = await m.forward(Int32Array.of(1, 2, 3, 20), { batch: 1, seq: 4 });
    const soloB = await m.forward(Int32Array.of(7, 8, 9, 10, 11, 21), { batch: 1, seq: 6 });
    expect(relError(step.logits.data.subarray(0, v), soloA.data.subarray(3 * v))).toBeLessThan(1e-5);
    expect(relError(step.logits.data.subarray(v), soloB.data.subarray(5 * v))).toBeLessThan(1e-5);
    // Dropping the longest row shrinks the columns to the longest kept row.
    const shorter = m.rowBatching.keepRows(step.state, [0]);
    expect([shorter.length, m.rowBatching.rowLengths(shorter)]).toEqual([4, [4]]);
    shorter.dispose();
  });

  it('extends rows of different lengths by several tokens each, with their logits of alone', async () => {
    const m = await model({ ...TINY, kvHeads: 2 });
    const v = m.config.vocabSize;
    const a = await m.prefill(Int32Array.from([1, 2]), { batch: 1, seq: 2 });
    const b = await m.prefill(Int32Array.from([3, 4, 5, 6, 7]), { batch: 1, seq: 5 });
    const joined = m.rowBatching.joinRows([a.state, b.state]);
    const ext = await m.extend(Int32Array.of(8, 9, 10, 11), 2, joined);
    expect(m.rowBatching.rowLengths(ext.state)).toEqual([4, 7]);
    const soloA = await m.forward(Int32Array.of(1, 2, 8, 9), { batch: 1, seq: 4 });
    const soloB = await m.forward(Int32Array.of(3, 4, 5, 6, 7, 10, 11), { batch: 1, seq: 7 });
    expect(relError(ext.logits.data.subarray(0, 2 * v), soloA.data.subarray(2 * v))).toBeLessThan(1e-5);
    expect(relError(ext.logits.data.subarray(2 * v), soloB.data.subarray(5 * v))).toBeLessThan(1e-5);
    ext.state.dispose();
  });

  it('refuses consumed states and bad row lists', async () => {
    const m = await model(TINY);
    const a = await m.prefill(Int32Array.from([1, 2]), { batch: 1, seq: 2 });
    const b = await m.prefill(Int32Array.from([3]), { batch: 1, seq: 1 });
    expect(() => m.rowBatching.joinRows([a.state, a.state])).toThrow(/the same state was passed twice/);
    const joined = m.rowBatching.joinRows([a.state, b.state]);
    expect(() => m.rowBatching.joinRows([a.state])).toThrow(/consumed|disposed/);
    expect(() => m.rowBatching.keepRows(joined, [1, 0])).toThrow(/not ascending rows of its 2/);
    expect(() => m.rowBatching.keepRows(joined, [])).toThrow(/not ascending rows/);
    expect(() => m.rowBatching.keepRows(joined, [2])).toThrow(/not ascending rows/);
    expect(() => m.rowBatching.joinRows([])).toThrow(/no state to join/);
    joined.dispose();
    await expect(m.decodeStep(Int32Array.of(1, 2), joined)).rejects.toThrow(/disposed/);
  });
});
