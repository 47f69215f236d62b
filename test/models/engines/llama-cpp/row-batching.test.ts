/**
 * Continuous batching on llama.cpp (`rowsPerContext`): rows of one context at different lengths decode in one step,
 * each at its own position, and give the greedy tokens of alone; rows prefilled while a state is live take free
 * sequences of its context and join it; a row dropped with `keepRows` frees its sequence and leaves the others'
 * tokens as they were; states whose rows are in different contexts are refused. Without `rowsPerContext` the model
 * has no row batching.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlamaCppModel } from '../../../../src/models/engines/llama-cpp/create-llama-cpp-model.js';
import type { LlamaCppModel } from '../../../../src/models/engines/llama-cpp/llama-cpp-model.js';
import type { DecodeState, Model, OnnxModel, RowBatching } from '../../../../src/models/index.js';
import { argmax } from '../../../../src/serving/server/sampler.js';
import { greedyDecode, tinyModel } from '../../../serving/server/tiny-server.js';

const open: Model[] = [];
let source: OnnxModel;
let llama: LlamaCppModel;
let rows: RowBatching;
beforeAll(async () => {
  source = (await tinyModel()) as OnnxModel;
  open.push(source);
  llama = await createLlamaCppModel(source, {
    threads: 1,
    rowsPerContext: 3,
  });
  open.push(llama);
  rows = llama.rowBatching as RowBatching;
});
afterAll(async () => {
  for (const m of open.reverse()) await m.dispose();
});

const A = [72, 101, 108, 108, 111];
const B = [87, 111, 114];
const C = [1, 2, 3, 4, 5, 6, 7];

/** Greedy first token of each row of a prefill of one row. */
async function prefillOne(prompt: readonly number[]): Promise<{ state: DecodeState; next: number }> {
  const step = await llama.prefill(
    Int32Array.from(prompt),
    { batch: 1, seq: prompt.length },
    { logits: 'last' },
  );
  return { state: step.state, next: argmax(step.logits.data, 0, llama.config.vocabSize) };
}

/** One greedy decode step of every row: appends each row's token to `out` and returns the next tokens. */
async function stepAll(
  state: DecodeState,
  next: readonly number[],
  out: number[][],
): Promise<{ state: DecodeState; next: number[] }> {
  const vocab = llama.config.vocabSize;
  const step = await llama.decodeStep(Int32Array.from(next), state);
  const picked = next.map((_, r) => argmax(step.logits.data, r * vocab, vocab));
  picked.forEach((id, r) => {
    out[r]?.push(id);
  });
  return { state: step.state, next: picked };
}

describe('LlamaCppModel rowBatching (rowsPerContext)', () => {
  it('joins rows prefilled beside a live state, decodes rows of different lengths, and drops one', async () => {
    const a = await prefillOne(A);
    const tokens: number[][] = [[a.next]];
    // A decodes 2 tokens alone, then B (3 tokens) and C (7 tokens) are prefilled and join it.
    let run = await stepAll(a.state, [a.next], tokens);
    run = await stepAll(run.state, run.next, tokens);
    const b = await prefillOne(B);
    const c = await prefillOne(C);
    let state = rows.joinRows([run.state, b.state, c.state]);
    expect([state.batch, state.length, rows.rowLengths(state)]).toEqual([3, 7, [7, 3, 7]]);
    tokens.push([b.next], [c.next]);
    let next = [...run.next, b.next, c.next];
    for (let i = 0; i < 3; i++) ({ state, next } = await stepAll(state, next, tokens));
    expect(rows.rowLengths(state)).toEqual([10, 6, 10]);
    // B leaves; A and C decode on.
    state = rows.keepRows(state, [0, 2]);
    expect([state.batch, state.length, rows.rowLengths(state)]).toEqual([2, 10, [10, 10]]);
    const left = [tokens[0] as number[], tokens[2] as number[]];
    next = [next[0] as number, next[2] as number];
    for (let i = 0; i < 3; i++) ({ state, next } = await stepAll(state, next, left));
    state.dispose();
    expect(tokens[0]).toEqual(await greedyDecode(llama, A, 9));
    expect(tokens[1]).toEqual(await greedyDecode(llama, B, 4));
    expect(tokens[2]).toEqual(await greedyDecode(llama, C, 7));
    // The llama.cpp tokens are the ONNX Runtime model's (same weights, float32).
    expect(tokens[1]).toEqual(await greedyDecode(source, B, 4));
  });

  it('refuses to join states whose rows are in different contexts, and leaves them usable', async () => {
    const two = await llama.prefill(Int32Array.from([...A.slice(0, 3), ...B]), { batch: 2, seq: 3 });
    const full = await llama.prefill(Int32Array.from(C.slice(0, 3)), { batch: 1, seq: 3 });
    // The first context has one free sequence left, taken by `full`; this one needs two: another context.
    const other = await llama.prefill(Int32Array.from([...A.slice(0, 2), ...B.slice(0, 2)]), {
      batch: 2,
      seq: 2,
    });
    expect(() => rows.joinRows([two.state, full.state, other.state])).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/different llama\.cpp contexts/),
      }),
    );
    const joined = rows.joinRows([two.state, full.state]);
    expect(rows.rowLengths(joined)).toEqual([3, 3, 3]);
    const step = await llama.decodeStep(Int32Array.of(1, 2), other.state);
    expect(rows.rowLengths(step.state)).toEqual([3, 3]);
    expect(() => rows.joinRows([joined, joined])).toThrow(/the same state was passed twice/);
    expect(() => rows.keepRows(joined, [2, 0])).toThrow(/not ascending rows/);
    joined.dispose();
    step.state.dispose();
    expect(() => rows.rowLengths(joined)).toThrow(/it was disposed/);
  });

  it('is absent without rowsPerContext, and rowsPerContext must be a positive integer', async () => {
    const plain = await createLlamaCppModel(source, {
      threads: 1,
    });
    open.push(plain);
    expect(plain.rowBatching).toBeUndefined();
    await expect(
      createLlamaCppModel(source, {
        threads: 1,
        rowsPerContext: 0,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/rowsPerContext/) });
  });
});
