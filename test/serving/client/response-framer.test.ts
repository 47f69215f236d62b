import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bodyPieces,
  FramingError,
  parseHead,
  ResponseFramer,
} from '../../../src/serving/client/response-framer.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/** Splits `whole` at the given cut points (sorted, inside it) into reads. */
const splitAt = (whole: Buffer, cuts: readonly number[]): Buffer[] => {
  const points = [...new Set(cuts)].filter((c) => c > 0 && c < whole.length).sort((a, b) => a - b);
  return [0, ...points].map((start, i) => whole.subarray(start, points[i] ?? whole.length));
};

/** Feeds reads to a fresh framer; returns the index of the read it ended in and the bytes of it that belonged. */
const frame = (reads: readonly Buffer[]): { read: number; used: number } | undefined => {
  const framer = new ResponseFramer();
  for (const [i, read] of reads.entries()) {
    const used = framer.push(read);
    if (used >= 0) return { read: i, used };
  }
  return undefined;
};

const chunked = (chunks: readonly string[], trailers = ''): string =>
  `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunks
    .map((c) => `${Buffer.byteLength(c, 'latin1').toString(16)}\r\n${c}\r\n`)
    .join('')}0\r\n${trailers}\r\n`;

describe('parseHead', () => {
  it('reads the status, lower-cases header names, joins repeats, and knows keep-alive by version', () => {
    const head = parseHead(
      'HTTP/1.1 503 Service Unavailable\r\nX-A: 1\r\nx-a: 2\r\nContent-Type: text/plain',
    );
    expect(head).toEqual({
      status: 503,
      headers: { 'x-a': '1, 2', 'content-type': 'text/plain' },
      keepAlive: true,
    });
    expect(parseHead('HTTP/1.1 200 OK\r\nConnection: close').keepAlive).toBe(false);
    expect(parseHead('HTTP/1.0 200 OK').keepAlive).toBe(false);
    expect(parseHead('HTTP/1.0 200 OK\r\nConnection: keep-alive').keepAlive).toBe(true);
    expect(() => parseHead('SSH-2.0-OpenSSH')).toThrow(FramingError);
  });
});

describe('ResponseFramer', () => {
  it('ends a chunked response at its last chunk, however the bytes are split', () => {
    const whole = bytes(chunked(['data: {"a":1}\n\n', 'data: [DONE]\n\n']));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: whole.length - 1 }), { maxLength: 12 }), (cuts) => {
        const reads = splitAt(whole, cuts);
        const ended = frame(reads);
        expect(ended).toEqual({ read: reads.length - 1, used: (reads.at(-1) as Buffer).length });
        // The body comes back whole, each piece with the read that brought it.
        const { pieces } = bodyPieces(reads.map((b, i) => ({ atMs: i, bytes: b })));
        expect(Buffer.concat(pieces.map((p) => p.bytes)).toString('latin1')).toBe(
          'data: {"a":1}\n\ndata: [DONE]\n\n',
        );
        expect(pieces.map((p) => p.atMs)).toEqual([...pieces.map((p) => p.atMs)].sort((a, b) => a - b));
      }),
    );
  });

  it('a chunk that holds CRLF-looking bytes or a size in hex with an extension is data, not framing', () => {
    const body = '0\r\n\r\n is inside';
    const whole = bytes(
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)};ext=1\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(frame([whole])).toEqual({ read: 0, used: whole.length });
    expect(bodyPieces([{ atMs: 0, bytes: whole }]).pieces[0]?.bytes.toString('latin1')).toBe(body);
  });

  it('reads trailers after the last chunk', () => {
    const whole = bytes(chunked(['abc'], 'X-Trailer: 1\r\nY: 2\r\n'));
    expect(frame(splitAt(whole, [whole.length - 3]))).toEqual({ read: 1, used: 3 });
  });

  it("a Content-Length body ends at its length; bytes after it are not the response's", () => {
    const whole = bytes('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA');
    expect(frame(splitAt(whole, [20, 40]))).toEqual({ read: 2, used: 3 });
    expect(frame([bytes('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n')])).toEqual({ read: 0, used: 38 });
  });

  it('skips an interim 100 Continue, and a body without length ends only at the close', () => {
    const whole = bytes('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect(frame([whole])).toEqual({ read: 0, used: whole.length });
    const framer = new ResponseFramer();
    expect(framer.push(bytes('HTTP/1.0 200 OK\r\n\r\nuntil close'))).toBe(-1);
    expect(framer.endsAtClose).toBe(true);
    expect(framer.head?.status).toBe(200);
  });

  it('refuses bytes that are not HTTP framing', () => {
    expect(() => new ResponseFramer().push(bytes('hello\r\n\r\n'))).toThrow(FramingError);
    expect(() =>
      new ResponseFramer().push(bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n')),
    ).toThrow(/bad chunk size/);
    expect(() =>
      new ResponseFramer().push(bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabXY')),
    ).toThrow(/not followed by CRLF/);
    expect(() => new ResponseFramer().push(Buffer.alloc(70 * 1024, 65))).toThrow(
      /no end of the response head/,
    );
    expect(() => bodyPieces([{ atMs: 0, bytes: bytes('HTTP/1.1 200') }])).toThrow(
      /no complete response head/,
    );
  });
});
