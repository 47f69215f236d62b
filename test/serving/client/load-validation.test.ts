import { describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import {
  LOAD_CHECK_LIMITS,
  type LoadCheckContext,
  validateLoadPoint,
} from '../../../src/serving/client/load-validation.js';
import type { RequestRecord } from '../../../src/serving/client/token-accounting.js';
import { failedRecord as failed, okRecord as ok } from './records.js';

const context = (over: Partial<LoadCheckContext> = {}): LoadCheckContext => ({
  point: 'concurrency=1,rate=inf',
  scheduled: false,
  outputTps: 30, // three tokens over the default record's 100 ms
  tokenizer: 'gpt2 (r50k_base)',
  tokenizerVerifiedBy: undefined,
  ...over,
});

const byName = (records: readonly RequestRecord[], over: Partial<LoadCheckContext> = {}) =>
  Object.fromEntries(validateLoadPoint(records, context(over)).map((c) => [c.name, c]));

describe('a load point checks itself', () => {
  it('the limits it holds a point to', () => {
    expect(LOAD_CHECK_LIMITS).toEqual({
      e2eExcessMs: 0.001,
      throughputRelative: 1e-9,
      rateRelative: 0.01,
      latenessP99Ms: 2,
      tokenRelative: 0.01,
      tokenAbsolute: 1,
    });
  });

  it('e2e_parts: TTFT + inter-token gaps may reach the E2E latency (plus 1 µs of rounding), never pass it', () => {
    // TTFT 10 + gaps 2 + 2 = 14 ≤ 100: ok. Over by 0.9 µs (rounding) still ok; by 1.1 µs a failure.
    expect(byName([ok({})])['e2e_parts']).toMatchObject({ ok: true, value: 0 });
    expect(byName([ok({ itlMs: [45, 45.0009] })])['e2e_parts']?.ok).toBe(true);
    const bad = byName([ok({}), ok({ itlMs: [45, 45.0011] })])['e2e_parts'];
    expect(bad?.ok).toBe(false);
    expect(bad?.value).toBeCloseTo(0.0011, 9);
    expect(bad?.message).toBe(messages.checkE2eParts('concurrency=1,rate=inf', 2, 1, bad?.value ?? 0));
    // A whole response has no TTFT: nothing to check.
    expect(byName([ok({ ttftMs: Number.NaN, itlMs: [] })])['e2e_parts']).toMatchObject({
      ok: true,
      value: NaN,
    });
  });

  it('throughput_recomputed: the stated output tokens/s must be Σ tokens of the rows / their window', () => {
    expect(byName([ok({})])['throughput_recomputed']).toMatchObject({ ok: true, value: 30 });
    expect(byName([ok({})], { outputTps: 30 * (1 + 2e-9) })['throughput_recomputed']?.ok).toBe(false);
    // Unmeasured (warm-up) requests are not rows of the point's numbers.
    expect(byName([ok({}), ok({ measured: false, outputTokens: 99 })])['throughput_recomputed']?.ok).toBe(
      true,
    );
    // No measured request: both are NaN, which agrees.
    expect(byName([], { outputTps: Number.NaN })['throughput_recomputed']?.ok).toBe(true);
  });

  it('rate_achieved and schedule_lateness only where requests had planned times', () => {
    const closed = byName([ok({}), ok({ sentMs: 10 })]);
    expect(closed['rate_achieved']).toBeUndefined();
    expect(closed['schedule_lateness']).toBeUndefined();
  });

  it("rate_achieved: the send rate within 1% of the planned schedule's rate", () => {
    // Planned 0…1000 ms for 11 requests (10 req/s); sent over 1000 / 0.9901 ms: 0.99% slower, ok; 1000 / 0.9899: not.
    const at = (lastSent: number) =>
      Array.from({ length: 11 }, (_, i) =>
        ok({ plannedMs: i * 100, sentMs: i === 10 ? lastSent : i * 100, e2eMs: 5 }),
      );
    const scheduled = { scheduled: true, rate: 10, outputTps: Number.NaN };
    const okRate = byName(at(1000 / 0.9901), scheduled)['rate_achieved'];
    expect(okRate?.ok).toBe(true);
    expect(okRate?.value).toBeCloseTo(-0.0099, 12);
    expect(byName(at(1000 / 0.9899), scheduled)['rate_achieved']?.ok).toBe(false);
    expect(byName(at(1000 / 1.0101), scheduled)['rate_achieved']?.ok).toBe(false); // too fast fails too
    // The failure says whether requests waited for a slot (a server-side cap) or the client fell behind.
    const late = byName(at(1100), scheduled)['rate_achieved']?.message ?? '';
    expect(late).toContain('could not keep its schedule');
    const queued = at(1100).map((r, i) => (i === 10 ? { ...r, queueMs: 100 } : r));
    expect(byName(queued, scheduled)['rate_achieved']?.message).toContain('--concurrency reached');
  });

  it('schedule_lateness: p99 of send − planned − queue at most 2 ms', () => {
    // 101 requests: the p99 (linear interpolation, rank 100 × 0.99 = 99) is exactly the second-latest request's.
    const records = (second: number) =>
      Array.from({ length: 101 }, (_, i) =>
        ok({ plannedMs: i * 10, sentMs: i * 10 + (i === 99 ? second : i === 100 ? 500 : 0.5), e2eMs: 5 }),
      );
    const scheduled = { scheduled: true, rate: 100, outputTps: Number.NaN };
    expect(byName(records(2), scheduled)['schedule_lateness']).toMatchObject({ ok: true, value: 2 });
    expect(byName(records(2.001), scheduled)['schedule_lateness']?.ok).toBe(false);
    // Waiting for a slot is queue time, not lateness.
    const queued = records(0.5).map((r) => ({ ...r, queueMs: 30, sentMs: r.sentMs + 30 }));
    expect(byName(queued, scheduled)['schedule_lateness']?.ok).toBe(true);
  });

  it('token_counts: client and server within 1% or 1 token, else one line naming --tokenizer', () => {
    const tokens = (client: number, server: number) =>
      byName([ok({ clientTokens: client, outputTokens: server, serverTokens: server })], {
        outputTps: server / 0.1,
      })['token_counts'];
    expect(tokens(101, 100)?.ok).toBe(true);
    expect(tokens(102, 100)?.ok).toBe(false);
    expect(tokens(1010, 1000)?.ok).toBe(true);
    expect(tokens(1011, 1000)?.ok).toBe(false);
    expect(tokens(1, 0)?.ok).toBe(true); // one token always allowed
    const doubled = tokens(64, 32);
    expect(doubled?.value).toBe(32);
    expect(doubled?.message).toContain('--tokenizer');
    expect(doubled?.message).toContain('+100.0%');
    // Only requests the server counted are compared.
    const clientOnly = byName([ok({ tokenSource: 'client', clientTokens: 64, outputTokens: 64 })], {
      outputTps: 640,
    });
    expect(clientOnly['token_counts']).toBeUndefined();
  });

  it('prompt_tokens: the prompts the server counted are the planned length within 1% or 1 token', () => {
    const prompts = (server: number, planned: number) =>
      byName([ok({ serverPromptTokens: server, plannedInputTokens: planned })])['prompt_tokens'];
    expect(prompts(257, 256)?.ok).toBe(true);
    expect(prompts(259, 256)?.ok).toBe(false);
    expect(prompts(259, 256)?.message).toContain('--tokenizer');
    expect(byName([ok({ serverPromptTokens: null })])['prompt_tokens']).toBeUndefined();
  });

  it('tokens_confirmed: counts the server did not give and no tokenizer vouches for are approximate', () => {
    const guessed = [ok({ tokenSource: 'client', serverTokens: null })];
    const approx = byName(guessed)['tokens_confirmed'];
    expect(approx).toMatchObject({ ok: false, value: 0 });
    expect(approx?.message).toContain('approximate');
    expect(approx?.message).toContain('--tokenizer');
    expect(byName(guessed, { tokenizerVerifiedBy: 'given with --tokenizer' })['tokens_confirmed']?.ok).toBe(
      true,
    );
    expect(byName([ok({})])['tokens_confirmed']).toMatchObject({ ok: true, value: 1 });
    // Only failures: no successful request, no check.
    expect(byName([failed({})])['tokens_confirmed']).toBeUndefined();
  });
});
