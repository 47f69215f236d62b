/**
 * Every engine takes the scheduler's batches: on llama.cpp and transformers.js (the tiny model's weights, F32),
 * equal-length prompts batched into one prefill and lockstep decode give the greedy tokens of one at a time.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createLlamaCppModel } from '../../../src/models/engines/llama-cpp/create-llama-cpp-model.js';
import { createTransformersJsModel } from '../../../src/models/engines/transformers-js/create-transformers-js-model.js';
import type { Model, OnnxModel } from '../../../src/models/index.js';
import { BatchScheduler, type GenerationOutcome } from '../../../src/serving/server/batch-scheduler.js';
import { tinyModel } from './tiny-server.js';

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
