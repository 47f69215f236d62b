import { describe, expect, it } from 'vitest';
import type { ExchangeRead } from '../../../src/serving/client/read-exchange.js';
import {
  distribution,
  meetsSlo,
  parseSlo,
  servingMetrics,
  wilsonInterval,
} from '../../../src/serving/client/serving-metrics.js';
import {
  type FailedRequest,
  pieceTokenCounts,
  type SucceededRequest,
  tokenTimings,
} from '../../../src/serving/client/token-accounting.js';

/** One token per character: counts are obvious. */
const chars = { encode: (t: string) => [...t].map((c) => c.charCodeAt(0)) };
/** A tokenizer that merges `ab` into one token: a chunk boundary inside `ab` makes a 0-token chunk. */
const merging = {
  encode: (t: string) =>
    t
      .replace(/ab/g, 'X')
      .split('')
      .map(() => 0),
};

const read = (pieces: [number, string][], endedAtMs: number, streamed = true): ExchangeRead => ({
  status: 'ok',
  sentAtMs: 0,
  endedAtMs,
  pieces: pieces.map(([atMs, text]) => ({ atMs, text })),
  streamed,
});

const ok = (over: Partial<SucceededRequest>): SucceededRequest => ({
  status: 'ok',
  index: 0,
  plannedMs: 0,
  sentMs: 0,
  measured: true,
  ttftMs: 10,
  ttstMs: 12,
  e2eMs: 100,
  itlMs: [2, 2],
  tpotMs: 45,
  outputTokens: 3,
  chunkTokens: [1, 1, 1],
  serverTokens: 3,
  serverPromptTokens: 5,
  serverPromptMs: null,
  serverTpotMs: null,
  ...over,
});

const failed = (over: Partial<FailedRequest>): FailedRequest => ({
  status: 'failed',
  index: 0,
  plannedMs: 0,
  sentMs: 0,
  measured: true,
  kind: 'timeout',
  message: 'x',
  e2eMs: 50,
  ...over,
});

describe('token accounting', () => {
  it('counts several tokens per chunk and spreads each gap over its tokens (ITL per token, not per chunk)', () => {
    const t = tokenTimings(
      read(
        [
          [10, 'ab'],
          [16, 'c'],
          [20, 'de'],
        ],
        25,
      ),
      chars,
    );
    expect(t.chunkTokens).toEqual([2, 1, 2]);
    expect(t.outputTokens).toBe(5);
    expect(t.ttftMs).toBe(10);
    expect(t.ttstMs).toBe(10); // token 2 came in the first chunk
    expect(t.itlMs).toEqual([6, 2, 2]);
    expect(t.tpotMs).toBe((25 - 10) / 4);
    expect(t.e2eMs).toBe(25);
  });

  it('keeps the sum exact when a chunk boundary merges tokens (a 0-token chunk adds its gap to the next)', () => {
    expect(pieceTokenCounts([{ text: 'a' }, { text: 'b' }, { text: 'c' }], merging)).toEqual([1, 0, 1]);
    const t = tokenTimings(
      read(
        [
          [10, 'a'],
          [14, 'b'],
          [20, 'c'],
        ],
        20,
      ),
      merging,
    );
    expect(t.outputTokens).toBe(2);
    expect(t.itlMs).toEqual([10]);
  });

  it('one output token: no TPOT, no time to second token, no ITL', () => {
    const t = tokenTimings(read([[7, 'a']], 9), chars);
    expect([t.ttftMs, t.outputTokens, t.itlMs]).toEqual([7, 1, []]);
    expect(t.tpotMs).toBeNaN();
    expect(t.ttstMs).toBeNaN();
  });

  it('a whole response: tokens counted, no TTFT', () => {
    const t = tokenTimings(read([[30, 'abcd']], 30, false), chars);
    expect(t.outputTokens).toBe(4);
    expect(t.ttftMs).toBeNaN();
    expect(t.e2eMs).toBe(30);
  });
});

describe('servingMetrics', () => {
  it('known answers: percentiles, throughput over the window, token difference, errors by kind', () => {
    const records = [
      ok({ sentMs: 0, e2eMs: 100, outputTokens: 3, serverTokens: 4 }),
      ok({ sentMs: 50, e2eMs: 150, ttftMs: 30, outputTokens: 5, chunkTokens: [1, 2, 2], serverTokens: 5 }),
      failed({ sentMs: 60, e2eMs: 10, kind: 'http', httpStatus: 429 }),
      failed({ sentMs: 70, e2eMs: 10 }),
      ok({ sentMs: 1000, e2eMs: 5000, measured: false }), // warm-up: left out
    ];
    const { metrics, errors } = servingMetrics(records);
    expect(metrics['requests']).toBe(4);
    expect(metrics['succeeded']).toBe(2);
    expect(errors).toEqual({ http_429: 1, timeout: 1 });
    expect(metrics['errors_http_429']).toBe(1);
    expect(metrics['error_rate']).toBe(0.5);
    expect(metrics['window_s']).toBe(0.2); // sends 0…70, last end 50 + 150 = 200 ms
    expect(metrics['output_tps']).toBeCloseTo(8 / 0.2, 12);
    expect(metrics['requests_per_s']).toBeCloseTo(2 / 0.2, 12);
    expect(metrics['ttft_ms']).toBe(20);
    expect(metrics['ttft_p50_ms']).toBe(20);
    expect(metrics['ttft_p90_ms']).toBeCloseTo(28, 12);
    expect(metrics['token_count_diff']).toBe(-1);
    expect(metrics['server_tokens']).toBe(9);
    expect(metrics['tokens_per_chunk']).toBeCloseTo(8 / 6, 12);
  });

  it('goodput: an SLO exactly at the threshold is met, failures never are', () => {
    const slo = parseSlo('ttft=10ms,tpot=45ms');
    expect(slo).toEqual({ ttftMs: 10, tpotMs: 45 });
    expect(meetsSlo(ok({ ttftMs: 10, tpotMs: 45 }), slo)).toBe(true);
    expect(meetsSlo(ok({ ttftMs: 10.001, tpotMs: 45 }), slo)).toBe(false);
    expect(meetsSlo(ok({ tpotMs: Number.NaN }), slo)).toBe(true); // one token: no TPOT to miss
    const { metrics } = servingMetrics(
      [ok({ e2eMs: 100 }), ok({ ttftMs: 11, e2eMs: 100 }), failed({ e2eMs: 100 })],
      slo,
    );
    expect(metrics['slo_attainment']).toBeCloseTo(1 / 3, 12);
    expect(metrics['goodput_rps']).toBeCloseTo(1 / 0.1, 12);
  });

  it('zero successful requests: rates 0, latencies NaN, nothing thrown', () => {
    const { metrics } = servingMetrics([failed({ e2eMs: 20 }), failed({ sentMs: 5, kind: 'connection' })]);
    expect(metrics['succeeded']).toBe(0);
    expect(metrics['output_tps']).toBe(0);
    expect(metrics['goodput_rps']).toBe(0);
    expect(metrics['ttft_ms']).toBeNaN();
    expect(metrics['tpot_p99_ms']).toBeNaN();
    expect(metrics['slo_attainment']).toBe(0);
    const none = servingMetrics([]).metrics;
    expect(none['requests']).toBe(0);
    expect(none['output_tps']).toBeNaN();
  });

  it('server timings: prefill and per-token time as the server reported them, and TTFT outside its prefill', () => {
    const { metrics } = servingMetrics([
      ok({ ttftMs: 10, serverPromptMs: 4, serverTpotMs: 2 }),
      ok({ ttftMs: 30, serverPromptMs: 6, serverTpotMs: null }),
      ok({ ttftMs: Number.NaN, serverPromptMs: 8, serverTpotMs: 4 }), // a whole response: no TTFT
      ok({ ttftMs: 50 }), // a server that sends no timings
      ok({ ttftMs: 70, serverPromptMs: 1, serverTpotMs: 1, measured: false }), // warm-up: left out
    ]);
    expect(metrics['server_prompt_ms']).toBe(6); // (4 + 6 + 8) / 3
    expect(metrics['server_tpot_ms']).toBe(3); // (2 + 4) / 2
    expect(metrics['ttft_outside_prompt_ms']).toBe(15); // ((10 − 4) + (30 − 6)) / 2
    const none = servingMetrics([ok({})]).metrics;
    expect([none['server_prompt_ms'], none['server_tpot_ms'], none['ttft_outside_prompt_ms']]).toEqual([
      Number.NaN,
      Number.NaN,
      Number.NaN,
    ]);
  });

  it('schedule lag = actual − planned send', () => {
    const { metrics, samples } = servingMetrics([
      ok({ plannedMs: 100, sentMs: 103 }),
      ok({ plannedMs: 200, sentMs: 201 }),
    ]);
    expect(samples.lag_ms).toEqual([3, 1]);
    expect(metrics['lag_ms']).toBe(2);
  });

  it('distribution: linear-interpolation percentiles', () => {
    expect(distribution([5, 1, 4, 2, 3])).toEqual({
      mean: 3,
      p50: 3,
      p90: 4.6,
      p99: expect.closeTo(4.96, 12),
      n: 5,
    });
  });

  it('Wilson intervals match published values', () => {
    // 8/10 at 95%: 0.4902 to 0.9433; 0/10: 0 to 0.2775 (Wilson 1927; Newcombe 1998, table I).
    const [lo, hi] = wilsonInterval(8, 10);
    expect(lo).toBeCloseTo(0.4902, 4);
    expect(hi).toBeCloseTo(0.9433, 4);
    const [lo0, hi0] = wilsonInterval(0, 10);
    expect(lo0).toBe(0);
    expect(hi0).toBeCloseTo(0.2775, 4);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });

  it('parseSlo rejects unknown names and bad durations, naming --slo', () => {
    expect(parseSlo('e2e=2s')).toEqual({ e2eMs: 2000 });
    expect(() => parseSlo('latency=2s')).toThrow(/--slo/);
    expect(() => parseSlo('ttft=fast')).toThrow(/--slo/);
    expect(() => parseSlo('')).toThrow(/--slo/);
  });
});
