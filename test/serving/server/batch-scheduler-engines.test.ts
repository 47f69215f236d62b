/**
 * Every engine takes the scheduler's batches: on llama.cpp and transformers.js (the tiny model's weights, F32),
 * equal-length prompts batched into one prefill and lockstep decode give the greedy tokens of one at a time. On
 * llama.cpp loaded with `rowsPerContext` (as `dantinox serve` loads it), batching is continuous: requests of other
 * prompt lengths join a running batch mid-flight and leave it, each with its greedy tokens of alone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createLlamaCppModel } from '../../../src/models/engines/llama-cpp/create-llama-cpp-model.js';
import { createTransformersJsModel } from '../../../src/models/engines/transformers-js/create-transformers-js-model.js';
import type { Model, OnnxModel } from '../../../src/models/index.js';
import {
  BatchScheduler,
  type GenerationJob,
  type GenerationOutcome,
} from '../../../src/serving/server/batch-scheduler.js';
import { greedyDecode, tinyModel } from './tiny-server.js';

const open: Model[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
});

const PROMPTS = [
  [72, 101, 108, 108],
  [87, 111, 114, 108],
  [1, 2, 3, 4],
];

async function run(model: Model, maxBatch: number): Promise<GenerationOutcome[]> {
  const scheduler = new BatchScheduler(model, { maxBatch });
  return Promise.all(
    PROMPTS.map((promptIds, i) => {
      const r = scheduler.submit({ promptIds, maxTokens: 6, minTokens: 0, temperature: 0, topP: 1, seed: i });
      if (r.status !== 'accepted') throw new Error(r.reason);
      return r.outcome;
    }),
  );
}

const engines: [string, (source: OnnxModel) => Promise<Model>][] = [
  ['llama.cpp', (source) => createLlamaCppModel(source, { threads: 1 })],
  ['transformers.js', (source) => createTransformersJsModel(source, { threads: 1 })],
];

describe.each(engines)('BatchScheduler on %s', (_, create) => {
  it('gives batched equal-length prompts the tokens of one at a time', async () => {
    const source = (await tinyModel()) as OnnxModel;
    open.push(source);
    const model = await create(source);
    open.push(model);
    const batched = await run(model, 3);
    const alone = await run(model, 1);
    expect(batched.map((o) => o.batchSize)).toEqual([3, 3, 3]);
    expect(alone.map((o) => o.batchSize)).toEqual([1, 1, 1]);
    expect(batched.map((o) => o.tokens)).toEqual(alone.map((o) => o.tokens));
  });
});

describe('BatchScheduler on llama.cpp with rowsPerContext (continuous batching)', () => {
  it('lets requests of other prompt lengths join a running batch and leave it, each with its tokens of alone', async () => {
    const source = (await tinyModel()) as OnnxModel;
    open.push(source);
    const plain = await createLlamaCppModel(source, { threads: 1 });
    open.push(plain);
    expect(new BatchScheduler(plain, { maxBatch: 3 }).batching).toBe('static');
    const model = await createLlamaCppModel(source, { threads: 1, rowsPerContext: 3 });
    open.push(model);
    const steps: number[] = [];
    const scheduler = new BatchScheduler(model, { maxBatch: 3, onBatch: (rows) => steps.push(rows) });
    expect(scheduler.batching).toBe('continuous');
    const submit = (promptIds: number[], extra: Partial<GenerationJob>): Promise<GenerationOutcome> => {
      const r = scheduler.submit({
        promptIds,
        maxTokens: 6,
        minTokens: 0,
        temperature: 0,
        topP: 1,
        seed: 0,
        ...extra,
      });
      if (r.status !== 'accepted') throw new Error(r.reason);
      return r.outcome;
    };
    const specs = { a: [72, 101, 108, 108, 111], b: [87, 111, 114], c: [1, 2, 3, 4, 5, 6, 7] };
    let b: Promise<GenerationOutcome> | undefined;
    let c: Promise<GenerationOutcome> | undefined;
    let seen = 0;
    // A decodes 9 tokens; B (3 tokens) joins at A's 2nd and leaves after 3, C (7 tokens) joins at A's 3rd.
    const a = submit(specs.a, {
      maxTokens: 9,
      onToken: () => {
        seen++;
        if (seen === 2) b = submit(specs.b, { maxTokens: 3 });
        if (seen === 3) c = submit(specs.c, { maxTokens: 5 });
        return false;
      },
    });
    const outcomes = [
      await a,
      await (b as Promise<GenerationOutcome>),
      await (c as Promise<GenerationOutcome>),
    ];
    // Rows per step: A alone; A+B; A+B+C; A+C once B left; A alone once C left.
    expect(steps).toEqual([1, 2, 3, 2, 2, 2, 1, 1]);
    expect(outcomes.map((o) => o.batchSize)).toEqual([3, 3, 3]);
    expect(outcomes.map((o) => o.tokens)).toEqual([
      await greedyDecode(model, specs.a, 9),
      await greedyDecode(model, specs.b, 3),
      await greedyDecode(model, specs.c, 5),
    ]);
  });
});
