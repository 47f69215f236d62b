import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import { arrivalTimesMs } from '../../../src/serving/client/arrival-schedule.js';
import {
  defaultWarmup,
  type LoadPointOptions,
  requestBody,
  runLoadPoint,
} from '../../../src/serving/client/load-generator.js';
import { OpenAiClient } from '../../../src/serving/client/openai-client.js';
import { tokenWorkload } from '../../../src/serving/client/workload.js';
import { type MockServer, startMockServer } from '../mock-openai-server.js';

const tokenizer = new Gpt2Tokenizer();
const workload = tokenWorkload({
  source: 'synthetic',
  inputTokens: 8,
  outputTokens: 4,
  tokenizer,
  rng: new Rng(1),
  distinct: 4,
});
let server: MockServer;
let client: OpenAiClient;
beforeAll(async () => {
  server = await startMockServer({ ttftMs: 10, perTokenMs: 5 });
  client = new OpenAiClient({ baseUrl: server.url, maxSockets: 8 });
});
afterAll(async () => {
  client.close();
  await server.close();
});

/** A clock that moves only when the load sleeps, from 1,000 ms. */
function manualClock() {
  let t = 1000;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

const run = (over: Partial<LoadPointOptions>) =>
  runLoadPoint({
    client,
    workload,
    tokenizer,
    rng: new Rng(9),
    point: { concurrency: 2, rate: Number.POSITIVE_INFINITY },
    ...over,
  });

describe('runLoadPoint', () => {
  it('builds requests with exact lengths, streaming usage and the model name', () => {
    const item = { prompt: 'hi', inputTokens: 1, outputTokens: 7 };
    expect(requestBody(item, 'completions', { model: 'm', stream: true, exactLengths: true })).toEqual({
      model: 'm',
      prompt: 'hi',
      max_tokens: 7,
      min_tokens: 7,
      ignore_eos: true,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(requestBody(item, 'chat', { stream: false, exactLengths: false })).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 7,
      temperature: 0,
      stream: false,
    });
  });

  it('sends warm-up and cool-down requests around the measured ones and leaves them out of the statistics', async () => {
    const result = await run({ requests: 10, warmup: { requests: 2 }, cooldown: { requests: 3 } });
    expect(result.records.map((r) => r.measured)).toEqual([
      ...Array(2).fill(false),
      ...Array(10).fill(true),
      ...Array(3).fill(false),
    ]);
  });

  it('the default warm-up: the concurrency, one second of an uncapped open loop, else one request', () => {
    expect(defaultWarmup({ concurrency: 16, rate: Number.POSITIVE_INFINITY })).toEqual({ requests: 16 });
    expect(defaultWarmup({ concurrency: 16, rate: 2 })).toEqual({ requests: 16 });
    expect(defaultWarmup({ concurrency: Number.POSITIVE_INFINITY, rate: 2.5 })).toEqual({ requests: 3 });
    expect(defaultWarmup({ concurrency: Number.POSITIVE_INFINITY, rate: 0.2 })).toEqual({ requests: 1 });
    expect(defaultWarmup({ concurrency: Number.POSITIVE_INFINITY, rate: Number.POSITIVE_INFINITY })).toEqual({
      requests: 1,
    });
  });

  it('stops sending at the duration, and keeps at most the concurrency in flight', async () => {
    const result = await run({ durationMs: 400, point: { concurrency: 3, rate: Number.POSITIVE_INFINITY } });
    expect(result.records.length).toBeGreaterThan(3);
    expect(result.records.every((r) => r.sentMs < 400)).toBe(true);
    for (const r of result.records) {
      const inFlight = result.records.filter(
        (o) => o.sentMs <= r.sentMs && o.sentMs + o.e2eMs > r.sentMs,
      ).length;
      expect(inFlight).toBeLessThanOrEqual(3);
    }
  });

  it('an open loop plans sends on the seeded schedule and never sends early', async () => {
    const result = await run({ requests: 8, point: { concurrency: 8, rate: 40 } });
    const planned = arrivalTimesMs({ rate: 40, rng: new Rng(9), count: 8 });
    expect(result.records.map((r) => r.plannedMs)).toEqual(planned);
    // setTimeout may fire up to 1 ms before its time is rounded; never more.
    for (const r of result.records) expect(r.sentMs - r.plannedMs).toBeGreaterThan(-1.5);
  });

  it('on an injected clock (the client reading it too) every request goes out exactly at its planned time', async () => {
    // A manual clock: time moves only when the load sleeps, so a send is stamped at the time it was planned for.
    const clock = manualClock();
    const manual = new OpenAiClient({ baseUrl: server.url, maxSockets: 8, now: clock.now });
    try {
      const result = await run({ client: manual, clock, requests: 8, point: { concurrency: 8, rate: 40 } });
      const planned = arrivalTimesMs({ rate: 40, rng: new Rng(9), count: 8 });
      expect(result.records.map((r) => r.plannedMs)).toEqual(planned);
      // sent at the planned time, up to float rounding of the clock's sums (before, the client stamped its own
      // performance.now() against the manual clock's origin: off by the process's uptime)
      for (const [i, r] of result.records.entries())
        expect(r.sentMs).toBeCloseTo(planned[i] ?? Number.NaN, 9);
      expect(result.records.every((r) => r.status === 'ok')).toBe(true);
    } finally {
      manual.close();
    }
  });

  it('two clients of an open-loop point send the requests of one process, on its schedule', async () => {
    const point = { concurrency: 8, rate: 40 };
    const whole = await run({ requests: 9, point });
    const shares = await Promise.all(
      [0, 1].map((index) => run({ requests: 9, point, share: { index, count: 2 } })),
    );
    expect(shares.map((r) => r.records.map((q) => q.index))).toEqual([
      [0, 2, 4, 6, 8],
      [1, 3, 5, 7],
    ]);
    const union = shares.flatMap((r) => r.records).sort((a, b) => a.index - b.index);
    expect(union.map((r) => r.plannedMs)).toEqual(whole.records.map((r) => r.plannedMs));
    expect(union.map((r) => (r.status === 'ok' ? r.outputTokens : 0))).toEqual(
      whole.records.map((r) => (r.status === 'ok' ? r.outputTokens : 0)),
    );
  });

  it('a closed-loop client keeps its share of the slots in flight and counts windows on the point’s indices', async () => {
    const result = await run({
      requests: 9,
      point: { concurrency: 3, rate: Number.POSITIVE_INFINITY },
      share: { index: 1, count: 2 },
      cooldown: { requests: 2 },
    });
    // The cool-down comes on top: 11 requests, client 1 holding slot 1 of 3.
    expect(result.records.map((r) => r.index)).toEqual([1, 4, 7, 10]);
    for (const r of result.records) {
      const inFlight = result.records.filter((o) => o.sentMs <= r.sentMs && o.sentMs + o.e2eMs > r.sentMs);
      expect(inFlight).toHaveLength(1);
    }
    // The point's last two requests (9 and 10) are its cool-down: 10 is this client's.
    expect(result.records.map((r) => r.measured)).toEqual([true, true, true, false]);
  });

  it('starts at a wall-clock time: time 0 is that instant and the schedule counts from it', async () => {
    const clock = manualClock();
    const manual = new OpenAiClient({ baseUrl: server.url, maxSockets: 8, now: clock.now });
    try {
      const startAtEpochMs = Date.now() + 60_000;
      const result = await run({
        client: manual,
        clock,
        requests: 4,
        point: { concurrency: 8, rate: 40 },
        startAtEpochMs,
      });
      expect(result.originEpochMs).toBe(startAtEpochMs);
      expect(clock.now()).toBeGreaterThan(1000 + 59_000);
      const planned = arrivalTimesMs({ rate: 40, rng: new Rng(9), count: 4 });
      for (const [i, r] of result.records.entries())
        expect(r.sentMs).toBeCloseTo(planned[i] ?? Number.NaN, 6);
    } finally {
      manual.close();
    }
  });

  it('a closed-loop ramp starts with one request in flight', async () => {
    const result = await run({
      requests: 12,
      rampMs: 300,
      point: { concurrency: 4, rate: Number.POSITIVE_INFINITY },
    });
    const first = result.records[0];
    expect(first).toBeDefined();
    const overlapping = result.records.filter(
      (o) => o.sentMs < (first?.sentMs ?? 0) + (first?.e2eMs ?? 0) - 1,
    );
    expect(overlapping).toHaveLength(1);
  });

  it('a cancelled load stops sending and classifies what was in flight', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const result = await run({ requests: 50, signal: controller.signal });
    expect(result.stoppedEarly).toBe('aborted');
    expect(result.records.length).toBeLessThan(50);
    expect(result.records.some((r) => r.status === 'failed' && r.kind === 'cancelled')).toBe(true);
  });
});
