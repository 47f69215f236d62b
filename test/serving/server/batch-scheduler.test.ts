/**
 * The scheduler on the tiny model (whose engine takes rows of different lengths: continuous batching unless
 * `batching: 'static'`): jobs of equal prompt length submitted together run as one batch and give the same tokens
 * as one at a time (greedy and seeded sampling); with static batching finished rows are masked and other lengths
 * wait; with continuous batching jobs join a running batch at the next step, rows leave when they finish, and a
 * cancelled row leaves the others' tokens as they were; the queue is bounded, cancelled jobs end, and drain
 * finishes (or after its grace period cancels) what is queued.
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

/**
 * `model` on a clock that only its calls move: 10 ms per prefill, 2 ms per decode step (its rows of different
 * lengths, a property, are passed through).
 */
function clocked(model: Model): { model: Model; now: () => number } {
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
  return { model: timed, now: () => t };
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
    const scheduler = new BatchScheduler(model, {
      maxBatch: 4,
      batching: 'static',
      onBatch: (rows) => batches.push(rows),
    });
    expect(scheduler.batching).toBe('static');
    const outcomes = await Promise.all(PROMPTS.map((p) => accepted(scheduler, job(p))));
    expect(batches).toEqual([4]);
    for (const [i, p] of PROMPTS.entries()) {
      expect(outcomes[i]?.tokens).toEqual(await greedyDecode(model, p, 8));
      expect(outcomes[i]?.batchSize).toBe(4);
      expect(outcomes[i]?.finishReason).toBe('length');
    }
  });

  it.each(['static', 'continuous'] as const)(
    '%s: times the batch prefill and each job’s decoding on its clock, as llama-server-style timings',
    async (batching) => {
      const clock = clocked(model);
      const scheduler = new BatchScheduler(clock.model, { maxBatch: 2, batching, now: clock.now });
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
    },
  );

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

  it.each(['static', 'continuous'] as const)(
    '%s: a row that finished early leaves the others’ tokens as they were',
    async (batching) => {
      const scheduler = new BatchScheduler(model, { maxBatch: 2, batching });
      const [short, long] = await Promise.all([
        accepted(scheduler, job(PROMPTS[0] as number[], { maxTokens: 2 })),
        accepted(scheduler, job(PROMPTS[1] as number[], { maxTokens: 9 })),
      ]);
      expect(short?.tokens).toEqual(await greedyDecode(model, PROMPTS[0] as number[], 2));
      expect(long?.tokens).toEqual(await greedyDecode(model, PROMPTS[1] as number[], 9));
      expect(short?.batchSize).toBe(2);
    },
  );

  it('static: runs prompts of other lengths in separate batches, oldest first, at most maxBatch rows each', async () => {
    const batches: number[] = [];
    const scheduler = new BatchScheduler(model, {
      maxBatch: 2,
      batching: 'static',
      onBatch: (rows) => batches.push(rows),
    });
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

describe('BatchScheduler, continuous batching', () => {
  it('starts a job submitted while a batch runs at the next step, before that batch ends', async () => {
    // A decodes 10 tokens; B (another prompt length) is submitted when A has 3. The clock: 10 ms per prefill,
    // 2 ms per decode step.
    const run = async (batching: 'static' | 'continuous') => {
      const clock = clocked(model);
      const steps: number[] = [];
      const scheduler = new BatchScheduler(clock.model, {
        maxBatch: 4,
        batching,
        now: clock.now,
        onBatch: (rows) => steps.push(rows),
      });
      let b: Promise<GenerationOutcome> | undefined;
      let seen = 0;
      const a = accepted(
        scheduler,
        job(PROMPTS[0] as number[], {
          maxTokens: 10,
          onToken: () => {
            if (++seen === 3) b = accepted(scheduler, job([1, 2, 3], { maxTokens: 4 }));
            return false;
          },
        }),
      );
      const outcomes = [await a, await (b as Promise<GenerationOutcome>)] as const;
      return { outcomes, steps, scheduler };
    };
    const continuous = await run('continuous');
    expect(continuous.scheduler.batching).toBe('continuous');
    const [a, b] = continuous.outcomes;
    // A: prefill 0–10 (token 1), steps to 14 (token 3, B submitted); B's prefill 14–24 (its token 1); then steps
    // of both rows until B has 4 tokens at 30; A alone again until its token 10 at 38.
    expect(continuous.steps).toEqual([1, 1, 2, 2, 2, 1, 1, 1, 1]);
    expect(b).toMatchObject({ queueMs: 0, prefillMs: 10, ttftMs: 10, decodeMs: 6, batchSize: 2 });
    expect(a).toMatchObject({ queueMs: 0, prefillMs: 10, ttftMs: 10, decodeMs: 28, batchSize: 2 });
    expect(a.tokens).toEqual(await greedyDecode(model, PROMPTS[0] as number[], 10));
    expect(b.tokens).toEqual(await greedyDecode(model, [1, 2, 3], 4));
    // Static batching: B waits for A to end at 28 ms.
    const statically = await run('static');
    expect(statically.steps).toEqual([1, 1]);
    expect(statically.outcomes[1]).toMatchObject({ queueMs: 14, prefillMs: 10, ttftMs: 24, batchSize: 1 });
    expect(statically.outcomes.map((o) => o.tokens)).toEqual([a.tokens, b.tokens]);
  });

  it('fills free rows up to maxBatch with jobs of any prompt length, each with its tokens of alone', async () => {
    const steps: number[] = [];
    const scheduler = new BatchScheduler(model, { maxBatch: 2, onBatch: (rows) => steps.push(rows) });
    const specs = [
      { prompt: [5, 6, 7, 8, 9], maxTokens: 3 },
      { prompt: [40, 41, 42], maxTokens: 6 },
      { prompt: [90, 91], maxTokens: 2 },
    ];
    const outcomes = await Promise.all(
      specs.map((s) => accepted(scheduler, job(s.prompt, { maxTokens: s.maxTokens }))),
    );
    // The first two fill the batch; the third joins when the first leaves, while the second decodes on.
    expect(steps).toEqual([2, 2, 2, 1, 1]);
    expect(outcomes.map((o) => o.batchSize)).toEqual([2, 2, 2]);
    for (const [i, s] of specs.entries())
      expect(outcomes[i]?.tokens).toEqual(await greedyDecode(model, s.prompt, s.maxTokens));
  });

  it('cancels one row at the next step and leaves the other rows’ tokens as they were', async () => {
    const steps: number[] = [];
    const scheduler = new BatchScheduler(model, { maxBatch: 4, onBatch: (rows) => steps.push(rows) });
    const gone = new AbortController();
    let seen = 0;
    const [a, b, c] = await Promise.all([
      accepted(scheduler, job([10, 20, 30, 40], { maxTokens: 7 })),
      accepted(
        scheduler,
        job([7, 8], {
          maxTokens: 7,
          signal: gone.signal,
          onToken: () => {
            if (++seen === 3) gone.abort();
            return false;
          },
        }),
      ),
      accepted(scheduler, job([1, 2, 3, 4, 5, 6], { maxTokens: 7 })),
    ]);
    expect(b).toMatchObject({ finishReason: 'cancelled', tokens: await greedyDecode(model, [7, 8], 3) });
    expect(steps).toEqual([3, 3, 2, 2, 2, 2]);
    expect(a?.tokens).toEqual(await greedyDecode(model, [10, 20, 30, 40], 7));
    expect(c?.tokens).toEqual(await greedyDecode(model, [1, 2, 3, 4, 5, 6], 7));
    expect([a?.finishReason, c?.finishReason]).toEqual(['length', 'length']);
  });

  it('rejects the running rows when a decode step fails, and goes on with the next jobs', async () => {
    let calls = 0;
    const failing: Model = {
      config: model.config,
      info: model.info,
      ...(model.rowBatching === undefined ? {} : { rowBatching: model.rowBatching }),
      prefill: (t, s) => model.prefill(t, s),
      decodeStep: (t, s) =>
        ++calls === 3 ? Promise.reject(new Error('engine down')) : model.decodeStep(t, s),
      forward: (t, s) => model.forward(t, s),
      barrier: () => model.barrier(),
      numParameters: () => model.numParameters(),
      dispose: () => model.dispose(),
    };
    const scheduler = new BatchScheduler(failing, { maxBatch: 2 });
    expect(scheduler.batching).toBe('continuous');
    const [a, b] = [accepted(scheduler, job([1, 2, 3])), accepted(scheduler, job([4, 5]))];
    await expect(a).rejects.toThrow('engine down');
    await expect(b).rejects.toThrow('engine down');
    expect((await accepted(scheduler, job([6, 7]))).tokens).toEqual(await greedyDecode(model, [6, 7], 8));
    expect(scheduler.running).toBe(0);
  });
});
