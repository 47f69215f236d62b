/**
 * The request timeline's rows from a load's requests: a request's segments tile its life from the planned send to
 * its last chunk, the decode segments carry exactly the request's ITL samples (each segment's gap per token, once per
 * token), and the thinning keeps every k-th request in send order with the smallest k that fits both limits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_TIMELINE_REQUESTS,
  requestSegments,
  servingTimelineRows,
  timelineStep,
} from '../../src/runs/serving-timeline-rows.js';
import type { RequestLine } from '../../src/serving/client/request-rows.js';
import { requestRecord } from '../../src/serving/client/token-accounting.js';
import { failedRecord, okRecord } from '../serving/client/records.js';

/** A tokenizer that counts words: a piece of k words is k tokens, a piece of a lone space none. */
const words = {
  encode: (text: string): number[] =>
    text
      .split(' ')
      .filter((w) => w !== '')
      .map(() => 0),
};

const line = (
  r: ReturnType<typeof okRecord> | ReturnType<typeof failedRecord>,
  point = 'p',
): RequestLine => ({
  ...r,
  point,
  originEpochMs: 1_000,
});

describe('requestSegments', () => {
  it('queue, TTFT, then one decode segment per later chunk with tokens, ITL its gap per token', () => {
    const r = okRecord({
      plannedMs: 5,
      queueMs: 3,
      sentMs: 9,
      ttftMs: 10,
      chunkAtMs: [10, 12, 13, 16],
      chunkTokens: [1, 1, 0, 3],
      itlMs: [2, 1, 1, 1],
    });
    expect(requestSegments(line(r))).toEqual([
      { part: 'queue', start_ms: 5, end_ms: 9 },
      { part: 'ttft', start_ms: 9, end_ms: 19 },
      { part: 'decode', start_ms: 19, end_ms: 21, itl_ms: 2, tokens: 1 },
      // The empty chunk at 13 ms folds into the next: 12 → 16 ms over its 3 tokens.
      { part: 'decode', start_ms: 21, end_ms: 25, itl_ms: 4 / 3, tokens: 3 },
    ]);
  });

  it('a request sent as planned has no queue; a failure spans send to failure; a whole response send to end', () => {
    expect(requestSegments(line(failedRecord({ sentMs: 4, plannedMs: 4, e2eMs: 50 })))).toEqual([
      { part: 'failed', start_ms: 4, end_ms: 54 },
    ]);
    const whole = okRecord({ ttftMs: Number.NaN, plannedMs: 2, sentMs: 2, e2eMs: 30, chunkAtMs: [30] });
    expect(requestSegments(line(whole))).toEqual([{ part: 'response', start_ms: 2, end_ms: 32 }]);
  });

  it('tiles the request from send to its last chunk with tokens; its decode ITLs are the record’s ITL samples', () => {
    const piece = fc.record({ gap: fc.integer({ min: 0, max: 40 }), words: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(piece, { minLength: 1, maxLength: 12 }),
        (sentAtMs, ttft, chunks) => {
          let at = sentAtMs + ttft;
          const pieces = chunks.map((c, event) => {
            at += c.gap;
            return {
              atMs: at,
              text: c.words === 0 ? ' ' : ' the'.repeat(c.words),
              channel: 'answer' as const,
              event,
            };
          });
          const record = requestRecord(
            { status: 'ok', sentAtMs, endedAtMs: at + 1, pieces, streamed: true },
            words,
            {
              placement: { index: 0, turn: 0, plannedMs: 0, queueMs: 0, measured: true },
              originMs: 0,
              plannedInputTokens: 1,
            },
          );
          if (record.status !== 'ok') return false;
          const segments = requestSegments(line(record));
          const decode = segments.filter((s) => s.part === 'decode');
          expect(decode.flatMap((s) => Array<number>(s.tokens ?? 0).fill(s.itl_ms ?? Number.NaN))).toEqual(
            record.itlMs,
          );
          // In order and never overlapping; contiguous unless the first chunk carried no token (the time from it to
          // the first chunk with tokens is neither TTFT nor an inter-token gap).
          const contiguous = (record.chunkTokens[0] ?? 0) > 0;
          for (const [i, s] of segments.entries()) {
            const before = segments[i - 1]?.end_ms ?? s.start_ms;
            if (contiguous) expect(s.start_ms).toBe(before);
            else expect(s.start_ms).toBeGreaterThanOrEqual(before);
          }
          const withTokens = record.chunkAtMs.filter((_, i) => (record.chunkTokens[i] ?? 0) > 0);
          const end = withTokens.length > 1 ? withTokens.at(-1) : record.ttftMs;
          expect(segments.at(-1)?.end_ms).toBe(record.sentMs + (end ?? Number.NaN));
          return true;
        },
      ),
      { seed: 45 },
    );
  });
});

describe('timelineStep and servingTimelineRows', () => {
  it('takes the smallest k whose every k-th request fits both limits', () => {
    expect(timelineStep(Array(60).fill(1))).toBe(1);
    expect(timelineStep(Array(61).fill(1))).toBe(2);
    expect(timelineStep(Array(240).fill(1))).toBe(4);
    // 10 requests of 500 segments under 2,000 segments: k = 1 draws 5,000, k = 2 draws 2,500, k = 3 draws 2,000.
    expect(timelineStep(Array(10).fill(500), 60, 2000)).toBe(3);
    expect(timelineStep([5000, 1], 60, 2000)).toBe(2);
    expect(timelineStep([])).toBe(1);
  });

  it('per point in order of appearance: every k-th request by send time, its lane, and the point’s counts', () => {
    const many = Array.from({ length: 2 * MAX_TIMELINE_REQUESTS + 1 }, (_, i) =>
      line(okRecord({ index: i, sentMs: 1000 - i, plannedMs: 1000 - i }), 'b'),
    );
    const rows = servingTimelineRows([line(okRecord({ index: 0 }), 'a'), ...many], { model: 'mock' });
    const first = rows[0];
    expect(first).toMatchObject({ task: 'serving_timeline', point: 'a', requests: 1, shown: 1, every: 1 });
    expect(first?.['model']).toBe('mock');
    const b = rows.filter((r) => r['point'] === 'b' && r['part'] === 'ttft');
    // 121 requests: every 3rd, in send order (the last index was sent first).
    expect(b.map((r) => r['request'])).toEqual(Array.from({ length: 41 }, (_, k) => 120 - 3 * k));
    expect(b.map((r) => r['lane'])).toEqual(Array.from({ length: 41 }, (_, k) => k));
    expect(b[0]).toMatchObject({ requests: 121, shown: 41, every: 3, measured: true });
    expect(servingTimelineRows([])).toEqual([]);
  });
});
