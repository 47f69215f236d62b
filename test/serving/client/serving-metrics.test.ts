import { describe, expect, it } from 'vitest';
import {
  distribution,
  meetsSlo,
  parseSlo,
  servingMetrics,
  wilsonInterval,
} from '../../../src/serving/client/serving-metrics.js';
import { failedRecord as failed, okRecord as ok } from './records.js';

describe('servingMetrics', () => {
  it('known answers: percentiles, throughput over the window, token difference, errors by kind', () => {
    const records = [
      // The server counted 4 tokens where the client's tokenizer counted 3: the output tokens are the server's.
      ok({
        sentMs: 0,
        e2eMs: 100,
        outputTokens: 4,
        clientTokens: 3,
        serverTokens: 4,
        chunkTokens: [1, 1, 2],
      }),
      ok({ sentMs: 50, e2eMs: 150, ttftMs: 30, outputTokens: 5, clientTokens: 5, chunkTokens: [1, 2, 2] }),
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
    expect(metrics['output_tps']).toBeCloseTo(9 / 0.2, 12);
    expect(metrics['requests_per_s']).toBeCloseTo(2 / 0.2, 12);
    expect(metrics['ttft_ms']).toBe(20);
    expect(metrics['ttft_p50_ms']).toBe(20);
    expect(metrics['ttft_p90_ms']).toBeCloseTo(28, 12);
    expect(metrics['output_tokens']).toBe(9);
    expect(metrics['client_tokens']).toBe(8);
    expect(metrics['token_count_diff']).toBe(-1);
    expect(metrics['server_tokens']).toBe(9);
    expect(metrics['tokens_per_chunk']).toBeCloseTo(9 / 6, 12);
    expect(metrics['server_token_share']).toBe(1);
    expect(metrics['tokens_exact']).toBe(1);
  });

  it("token provenance: the server's share, exact only when the server or a verified tokenizer counted", () => {
    const mixed = [ok({}), ok({ tokenSource: 'client', serverTokens: null })];
    const m = servingMetrics(mixed).metrics;
    expect(m['server_token_share']).toBe(0.5);
    expect(m['tokens_exact']).toBe(0);
    expect(m['server_tokens']).toBe(3); // the client-counted request is not a server count
    expect(m['token_count_diff']).toBe(0);
    expect(servingMetrics(mixed, { tokenizerVerified: true }).metrics['tokens_exact']).toBe(1);
    expect(m['itl_exact']).toBe(1);
    expect(servingMetrics([ok({ tokenSplit: 'proportional' })]).metrics['itl_exact']).toBe(0);
    const none = servingMetrics([failed({})]).metrics;
    expect([none['tokens_exact'], none['itl_exact'], none['server_token_share']]).toEqual([
      Number.NaN,
      Number.NaN,
      Number.NaN,
    ]);
  });

  it('reasoning, prompt and prefix-cache counts: sums over successful requests, the hit rate a ratio of sums', () => {
    const m = servingMetrics([
      ok({
        reasoningTokens: 2,
        ttfaMs: 30,
        serverPromptTokens: 100,
        cachedTokens: 60,
        plannedInputTokens: 100,
      }),
      ok({
        reasoningTokens: 1,
        ttfaMs: 50,
        serverPromptTokens: 100,
        cachedTokens: 0,
        plannedInputTokens: 100,
      }),
      ok({ serverPromptTokens: 200, cachedTokens: null, plannedInputTokens: 190 }), // no cache figure: left out
    ]).metrics;
    expect(m['reasoning_tokens']).toBe(3);
    expect(m['ttfa_p50_ms']).toBe(30); // 10, 30, 50
    expect(m['prompt_tokens']).toBe(400);
    expect(m['planned_prompt_tokens']).toBe(390);
    expect(m['cache_hit_rate']).toBe(0.3); // 60 / 200
    expect(servingMetrics([ok({})]).metrics['cache_hit_rate']).toBeNaN();
  });

  it('goodput: an SLO exactly at the threshold is met, failures never are', () => {
    const slo = parseSlo('ttft=10ms,tpot=45ms');
    expect(slo).toEqual({ ttftMs: 10, tpotMs: 45 });
    expect(meetsSlo(ok({ ttftMs: 10, tpotMs: 45 }), slo)).toBe(true);
    expect(meetsSlo(ok({ ttftMs: 10.001, tpotMs: 45 }), slo)).toBe(false);
    expect(meetsSlo(ok({ tpotMs: Number.NaN }), slo)).toBe(true); // one token: no TPOT to miss
    const { metrics } = servingMetrics(
      [ok({ e2eMs: 100 }), ok({ ttftMs: 11, e2eMs: 100 }), failed({ e2eMs: 100 })],
      { slo },
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

  it('schedule lateness = send − planned − queue time; E2E from the planned send includes both', () => {
    const { metrics, samples } = servingMetrics([
      ok({ plannedMs: 100, sentMs: 103, e2eMs: 50 }),
      ok({ plannedMs: 200, queueMs: 30, sentMs: 231, e2eMs: 50 }), // waited 30 ms for a slot, then 1 ms late
    ]);
    expect(samples.lag_ms).toEqual([3, 1]);
    expect(samples.queue_ms).toEqual([0, 30]);
    expect(samples.e2e_queue_ms).toEqual([53, 81]);
    expect(metrics['lag_ms']).toBe(2);
    expect(metrics['lag_p50_ms']).toBe(2);
    expect(metrics['queue_ms']).toBe(15);
    expect(metrics['queue_p99_ms']).toBeCloseTo(29.7, 12);
    expect(metrics['e2e_queue_p50_ms']).toBe(67);
    expect(metrics['e2e_p50_ms']).toBe(50);
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
