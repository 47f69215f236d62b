import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import { findMaxGoodput } from '../../../src/serving/client/find-max-goodput.js';
import { type LoadPoint, runLoadPoint, type StopRule } from '../../../src/serving/client/load-generator.js';
import { OpenAiClient } from '../../../src/serving/client/openai-client.js';
import { servingMetrics } from '../../../src/serving/client/serving-metrics.js';
import type { RequestRecord } from '../../../src/serving/client/token-accounting.js';
import { tokenWorkload } from '../../../src/serving/client/workload.js';
import { type MockServer, startMockServer } from '../mock-openai-server.js';
import { okRecord } from './records.js';

const tokenizer = new Gpt2Tokenizer();
const workload = tokenWorkload({
  source: 'synthetic',
  inputTokens: 8,
  outputTokens: 6,
  tokenizer,
  rng: new Rng(1),
  distinct: 4,
});
// Capacity 2: up to 2 streams decode at 60 ms per token, 3 at 90 ms. The SLO sits halfway, 75 ms, and the target
// lets 2 of a probe's 10 measured requests miss it, so timer jitter under a loaded machine (an event-loop stall of
// 100 ms or more at load 8 now and then) cannot move a probe across it.
const SLO = { tpotMs: 75 };
const TARGET = 0.8;
let server: MockServer;
let client: OpenAiClient;
beforeAll(async () => {
  server = await startMockServer({ ttftMs: 5, perTokenMs: 60, batchCapacity: 2 });
  client = new OpenAiClient({ baseUrl: server.url, maxSockets: 16 });
});
afterAll(async () => {
  client.close();
  await server.close();
});

const probe = (point: LoadPoint, requests = 12, stopWhen?: StopRule) =>
  runLoadPoint({
    client,
    point,
    workload,
    tokenizer,
    rng: new Rng(5),
    requests,
    warmup: { requests: 2 },
    stopWhen,
  });

/** A measured request, sent `gapMs` after the one before it, of a server whose time per output token is `tpotMs`. */
const served = (index: number, tpotMs: number, gapMs: number): RequestRecord =>
  okRecord({
    index,
    sentMs: index * gapMs,
    ttftMs: 5,
    ttstMs: 5 + tpotMs,
    ttfaMs: 5,
    e2eMs: 5 + 5 * tpotMs,
    itlMs: Array(5).fill(tpotMs),
    tpotMs,
    outputTokens: 6,
    clientTokens: 6,
    chunkTokens: Array(6).fill(1),
    chunkAtMs: Array.from({ length: 6 }, (_, i) => 5 + i * tpotMs),
    plannedInputTokens: 8,
    serverTokens: 6,
    serverPromptTokens: 8,
  });

describe('findMaxGoodput', () => {
  it('finds the capacity of the mock server with fewer requests than a fixed 10-point sweep', async () => {
    const search = await findMaxGoodput({
      axis: 'concurrency',
      slo: SLO,
      target: TARGET,
      probe: (c, stopWhen) => probe({ concurrency: c, rate: Number.POSITIVE_INFINITY }, 12, stopWhen),
    });
    expect(search.probes.map((p) => [p.value, p.passed])).toEqual([
      [1, true],
      [2, true],
      [4, false],
      [3, false],
    ]);
    expect(search.best?.value).toBe(2);
    for (const p of search.probes) {
      expect(p.interval[0]).toBeLessThanOrEqual(p.attainment);
      expect(p.interval[1]).toBeGreaterThanOrEqual(p.attainment);
    }
    // The fixed sweep 1…10: the highest-goodput point meeting the same target.
    let sweepRequests = 0;
    let sweepBest: { c: number; goodput: number } | undefined;
    for (let c = 1; c <= 10; c++) {
      const result = await probe({ concurrency: c, rate: Number.POSITIVE_INFINITY });
      sweepRequests += result.records.length;
      const m = servingMetrics(result.records, { slo: SLO }).metrics;
      const goodput = m['goodput_rps'] ?? 0;
      if ((m['slo_attainment'] ?? 0) >= TARGET && (sweepBest === undefined || goodput > sweepBest.goodput))
        sweepBest = { c, goodput };
    }
    expect(sweepBest?.c).toBe(2);
    expect(search.requests).toBeLessThan(sweepRequests);
  }, 120_000);

  it('a probe stops as soon as its failure is certain (Wilson upper bound below the target), never a passing one', async () => {
    const sizes = new Map<number, number>();
    const search = await findMaxGoodput({
      axis: 'concurrency',
      slo: SLO,
      // 40 requests per probe, sent faster at a higher concurrency; from concurrency 3 on every request misses the
      // 75 ms TPOT objective
      probe: async (c, stopWhen) => {
        const records: RequestRecord[] = [];
        let decided = false;
        while (records.length < 40 && !decided) {
          const record = served(records.length, c <= 2 ? 60 : 90, 100 / c);
          records.push(record);
          decided = stopWhen(record);
        }
        sizes.set(c, records.length);
        return {
          point: { concurrency: c, rate: Number.POSITIVE_INFINITY },
          records,
          wallMs: 1000,
          scheduled: false,
          originEpochMs: 0,
          ...(decided ? { stoppedEarly: 'decided' as const } : {}),
        };
      },
    });
    expect(search.best?.value).toBe(2);
    // 0 good of 8: Wilson upper bound 0.32 < 0.9, decided; of 7 it is not asked (at least 8 measured)
    expect([...sizes]).toEqual([
      [1, 40],
      [2, 40],
      [4, 8],
      [3, 8],
    ]);
    expect(search.requests).toBe(96);
  });

  it('runLoadPoint stops sending once stopWhen holds; the requests in flight finish', async () => {
    let finished = 0;
    const result = await runLoadPoint({
      client,
      point: { concurrency: 2, rate: Number.POSITIVE_INFINITY },
      workload,
      tokenizer,
      rng: new Rng(3),
      requests: 30,
      stopWhen: () => ++finished >= 5,
    });
    expect(result.stoppedEarly).toBe('decided');
    // the 5th finished with at most one other in flight, and nothing was sent after it
    expect(result.records.length).toBeGreaterThanOrEqual(5);
    expect(result.records.length).toBeLessThanOrEqual(6);
    expect(result.records.every((r) => r.status === 'ok')).toBe(true);
  }, 60_000);

  it('an open-loop probe over the server’s capacity stops early as over-saturated', async () => {
    const result = await runLoadPoint({
      client,
      point: { concurrency: 1, rate: 200 },
      workload,
      tokenizer,
      rng: new Rng(3),
      requests: 40,
      maxLagMs: 150,
    });
    expect(result.stoppedEarly).toBe('saturated');
    expect(result.records.length).toBeLessThan(40);
  }, 60_000);
});
