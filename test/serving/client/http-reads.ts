/**
 * Socket reads of an HTTP/1.1 response as a server sends them, for tests of what the client records: the head and
 * each body chunk in `Transfer-Encoding: chunked` framing, one read a chunk, the terminating chunk in the last.
 */
import type { RawExchange, SocketRead } from '../../../src/serving/client/http-connection.js';

/** The reads of a chunked response whose body came as `chunks`, read k arriving at `startMs + k` ms. */
export function chunkedReads(
  chunks: readonly string[],
  options: { status?: number; startMs?: number } = {},
): SocketRead[] {
  const start = options.startMs ?? 10;
  const head = `HTTP/1.1 ${options.status ?? 200} OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n`;
  const framed = chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`);
  return framed.map((text, k) => ({
    atMs: start + k,
    bytes: Buffer.from(`${k === 0 ? head : ''}${text}${k === framed.length - 1 ? '0\r\n\r\n' : ''}`),
  }));
}

/** A complete exchange sent at 0 whose body arrived as `chunks`, one per millisecond from 10. */
export function completeExchange(chunks: readonly string[], status = 200): RawExchange {
  return {
    status: 'complete',
    sentAtMs: 0,
    httpStatus: status,
    reads: chunkedReads(chunks, { status }),
    endedAtMs: 10 + chunks.length - 1,
  };
}
