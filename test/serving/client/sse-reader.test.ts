import { describe, expect, it } from 'vitest';
import { SseReader } from '../../../src/serving/client/sse-reader.js';

const stream =
  'data: {"a":1}\n\nevent: error\ndata: {"error":{"message":"x"}}\n\n: comment\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n';

describe('SseReader', () => {
  it('reads several events in one chunk', () => {
    const events = new SseReader().push(stream, 5);
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ['message', '{"a":1}'],
      ['error', '{"error":{"message":"x"}}'],
      ['message', 'line1\nline2'],
      ['message', '[DONE]'],
    ]);
    expect(events.every((e) => e.atMs === 5)).toBe(true);
  });

  it('gives the same events for every split of the stream, stamped with the completing chunk', () => {
    const whole = new SseReader().push(stream, 0).map((e) => e.data);
    for (let cut = 1; cut < stream.length; cut++) {
      const r = new SseReader();
      const first = r.push(stream.slice(0, cut), 1);
      const second = r.push(stream.slice(cut), 2);
      expect([...first, ...second].map((e) => e.data)).toEqual(whole);
      // An event is stamped 1 only when its blank line arrived in the first chunk.
      for (const e of first) expect(e.atMs).toBe(1);
    }
  });

  it('handles CRLF split between chunks and UTF-8 split inside a character', () => {
    const bytes = Buffer.from('data: é€\r\n\r\n');
    const r = new SseReader();
    const out = [];
    for (let i = 0; i < bytes.length; i++) out.push(...r.push(bytes.subarray(i, i + 1), i));
    expect(out.map((e) => e.data)).toEqual(['é€']);
    expect(out[0]?.atMs).toBe(bytes.length - 1);
  });

  it('dispatches an unterminated last event at the end', () => {
    const r = new SseReader();
    expect(r.push('data: tail', 1)).toEqual([]);
    expect(r.end(9).map((e) => [e.data, e.atMs])).toEqual([['tail', 9]]);
  });
});
