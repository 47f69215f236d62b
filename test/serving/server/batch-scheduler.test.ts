/**
 * The scheduler on the tiny model: jobs of equal prompt length submitted together run as one batch and give the
 * same tokens as one at a time (greedy and seeded sampling), finished rows are masked, other lengths wait, the
 * queue is bounded, cancelled jobs end, and drain finishes (or after its grace period cancels) what is queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Model } from '../../../src/models/index.js';
import {
  BatchScheduler,
  type GenerationJob,
  type GenerationOutcome,
} from '../../../src/serving/server/batch-scheduler.js';
import { generationTimings } from '../../../src/serving/server/completion-writer.js';
import { gated, greedyDecode, tinyModel, until } from './tiny-server.js';

let model: Model;
beforeAll(async () => {
  model = await tinyModel();
});
afterAll(async () => {
  await model.dispose();
});

const job = (promptIds: number[], extra: Partial<GenerationJob> = {}): GenerationJob => ({
  promptIds,
  maxTokens: 8,
  minTokens: 0,
  temperature: 0,
  topP: 1,
  seed: 0,
  ...extra,
});

function accepted(scheduler: BatchScheduler, j: GenerationJob): Promise<GenerationOutcome> {
  const r = scheduler.submit(j);
  if (r.status !== 'accepted') throw new Error(`rejected: ${r.reason}`);
  return r.outcome;
}

const PROMPTS = [
  [72, 101, 108, 108, 111],
  [87, 111, 114, 108, 100],
  [1, 2, 3, 4, 5],
  [200, 150, 100, 50, 0],
];

describe('BatchScheduler', () => {
  it('runs equal-length prompts submitted together as one batch, with the tokens of batch 1', async () => {
    const batches: number[] = [];
    const scheduler = new BatchScheduler(model, { maxBatch: 4, onBatch: (rows) => batches.push(rows) });
    const outcomes = await Promise.all(PROMPTS.map((p) => accepted(scheduler, job(p))));
    expect(batches).toEqual([4]);
    for (const [i, p] of PROMPTS.entries()) {
      expect(outcomes[i]?.tokens).toEqual(await greedyDecode(model, p, 8));
      expect(outcomes[i]?.batchSize).toBe(4);
      expect(outcomes[i]?.finishReason).toBe('length');
    }
  });

  it('times the batch prefill and each job’s decoding on its clock, as llama-server-style timings', async () => {
    // A clock that the model moves: 10 ms per prefill, 2 ms per decode step.
    let t = 0;
    const timed = new Proxy(model, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        const cost = key === 'prefill' ? 10 : key === 'decodeStep' ? 2 : 0;
        return async (...args: unknown[]) => {
          const out = await value.apply(target, args);
          t += cost;
          return out;
        };
      },
    });
    const scheduler = new BatchScheduler(timed, { maxBatch: 2, now: () => t });
    const [long, short] = await Promise.all([
      accepted(scheduler, job(PROMPTS[0] as number[])),
      accepted(scheduler, job(PROMPTS[1] as number[], { maxTokens: 3 })),
    ]);
    // token 1 of both from the prefill's logits at 10 ms, token k after k − 1 decode steps
    expect([long?.prefillMs, long?.decodeMs, long?.ttftMs]).toEqual([10, 14, 10]);
    expect([short?.prefillMs, short?.decodeMs, short?.ttftMs]).toEqual([10, 4, 10]);
    expect(generationTimings(long as GenerationOutcome, 5)).toEqual({
      prompt_n: 5,
      prompt_ms: 10,
      predicted_n: 8,
      predicted_ms: 14,
      predicted_per_token_ms: 14 / 8,
    });
  });

  it('gives each row of a batch its own seeded draws, as when it runs alone', async () => {
    const sampled = (p: number[], seed: number) => job(p, { temperature: 1, seed, maxTokens: 12 });
    const alone = new BatchScheduler(model, { maxBatch: 1 });
    const singles: GenerationOutcome[] = [];
    for (const [i, p] of PROMPTS.entries()) singles.push(await accepted(alone, sampled(p, i + 10)));
    const together = new BatchScheduler(model, { maxBatch: 4 });
    const batched = await Promise.all(PROMPTS.map((p, i) => accepted(together, sampled(p, i + 10))));
    expect(batched.map((o) => o.tokens)).toEqual(singles.map((o) => o.tokens));
    expect(singles.every((o) => o.batchSize === 1)).toBe(true);
  });

  it('masks a row that finished early and goes on with the others', async () => {
    const scheduler = new BatchScheduler(model, { maxBatch: 2 });
    const [short, long] = await Promise.all([
      accepted(scheduler, job(PROMPTS[0] as number[], { maxTokens: 2 })),
      accepted(scheduler, job(PROMPTS[1] as number[], { maxTokens: 9 })),
    ]);
    expect(short?.tokens).toEqual(await greedyDecode(model, PROMPTS[0] as number[], 2));
    expect(long?.tokens).toEqual(await greedyDecode(model, PROMPTS[1] as number[], 9));
    expect(short?.batchSize).toBe(2);
  });

  it('runs prompts of other lengths in separate batches, oldest first, at most maxBatch rows each', async () => {
    const batches: number[] = [];
    const scheduler = new BatchScheduler(model, { maxBatch: 2, onBatch: (rows) => batches.push(rows) });
    const outcomes = await Promise.all(
      [
        [1, 2, 3],
        [4, 5],
        [6, 7, 8],
        [9, 10, 11],
        [12, 13],
      ].map((p) => accepted(scheduler, job(p, { maxTokens: 3 }))),
    );
    // [1,2,3]+[6,7,8], then [4,5]+[12,13], then [9,10,11].
    expect(batches).toEqual([2, 2, 1]);
    expect(outcomes.map((o) => o.batchSize)).toEqual([2, 2, 2, 1, 2]);
    expect(outcomes[3]?.tokens).toEqual(await greedyDecode(model, [9, 10, 11], 3));
  });

  it('refuses jobs beyond maxQueue waiting, and every job after close', async () => {
    const gate = gated(model);
    gate.close();
    const scheduler = new BatchScheduler(gate.model, { maxBatch: 1, maxQueue: 1 });
    const running = accepted(scheduler, job([1, 2]));
    await until(() => scheduler.running === 1, 'the first job to run');
    const waiting = accepted(scheduler, job([3, 4]));
    expect(scheduler.waiting).toBe(1);
    expect(scheduler.submit(job([5, 6]))).toEqual({ status: 'rejected', reason: 'queue-full' });
    scheduler.close();
    expect(scheduler.submit(job([5, 6]))).toEqual({ status: 'rejected', reason: 'closed' });
    gate.open();
    expect((await running).tokens).toHaveLength(8);
    expect((await waiting).tokens).toHaveLength(8);
  });

  it('ends a cancelled job at the next step and a job cancelled while queued without running it', async () => {
    const gate = gated(model);
    gate.close();
    const scheduler = new BatchScheduler(gate.model, { maxBatch: 1 });
    const first = new AbortController();
    const second = new AbortController();
    const a = accepted(scheduler, job([1, 2], { maxTokens: 50, signal: first.signal }));
    const b = accepted(scheduler, job([3, 4], { signal: second.signal }));
    await until(() => gate.steps() === 1, 'the first decode step');
    first.abort();
    second.abort();
    gate.open();
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.finishReason).toBe('cancelled');
    expect(ra.tokens.length).toBeLessThanOrEqual(2);
    expect(rb).toMatchObject({ finishReason: 'cancelled', tokens: [], batchSize: 0 });
  });

  it('ends a job when its token callback reports a stop text', async () => {
    const scheduler = new BatchScheduler(model);
    let seen = 0;
    const outcome = await accepted(scheduler, job([1, 2], { onToken: () => ++seen === 3 }));
    expect(outcome.finishReason).toBe('stop');
    expect(outcome.tokens).toHaveLength(3);
  });

  it('drains queued and running jobs, or cancels them after the grace period', async () => {
    const gate = gated(model);
    gate.close();
    const scheduler = new BatchScheduler(gate.model, { maxBatch: 1 });
    const a = accepted(scheduler, job([1, 2]));
    const b = accepted(scheduler, job([3, 4, 5]));
    const drained = scheduler.drain(60_000);
    setTimeout(() => gate.open(), 20);
    expect(await drained).toBe(true);
    expect((await a).finishReason).toBe('length');
    expect((await b).finishReason).toBe('length');

    const stuck = gated(model);
    stuck.close();
    const slow = new BatchScheduler(stuck.model, { maxBatch: 1 });
    const c = accepted(slow, job([1, 2]));
    const d = accepted(slow, job([3, 4, 5]));
    await until(() => stuck.steps() === 1, 'the first decode step');
    const cut = slow.drain(30);
    setTimeout(() => stuck.open(), 60);
    expect(await cut).toBe(false);
    expect((await c).finishReason).toBe('cancelled');
    expect((await d).finishReason).toBe('cancelled');
  });

  it('rejects every job of a batch when the engine fails, and goes on with the next', async () => {
    const failing: Model = {
      ...model,
      config: model.config,
      info: model.info,
      prefill: () => Promise.reject(new Error('engine down')),
      decodeStep: (t, s) => model.decodeStep(t, s),
      forward: (t, s) => model.forward(t, s),
      barrier: () => model.barrier(),
      numParameters: () => model.numParameters(),
      dispose: () => model.dispose(),
    };
    const scheduler = new BatchScheduler(failing);
    await expect(accepted(scheduler, job([1, 2]))).rejects.toThrow('engine down');
    await expect(accepted(scheduler, job([1, 2]))).rejects.toThrow('engine down');
  });
});
