/**
 * `ResponseFramer`: where an HTTP/1.1 response ends, found while its bytes arrive, with as little work per read as
 * a load's hot path allows — the status line and headers are read once, then only the framing is followed
 * (`Transfer-Encoding: chunked` chunk sizes, a `Content-Length` count, or the connection's close). The same framer,
 * run again over the recorded reads after the request, takes the body out of its framing ({@link bodyPieces}),
 * each piece stamped with the arrival of the read that brought it.
 *
 * @packageDocumentation
 */

/** The status line and headers of a response, as read. */
export interface ResponseHead {
  /** HTTP status code. */
  readonly status: number;
  /** Header values by lower-case name (repeated headers joined by `, `). */
  readonly headers: Readonly<Record<string, string>>;
  /** Whether the server keeps the connection open after this response. */
  readonly keepAlive: boolean;
}

/** How the body of a response is delimited. */
type Framing =
  | { readonly kind: 'chunked' }
  | { readonly kind: 'length'; readonly length: number }
  | { readonly kind: 'close' }
  | { readonly kind: 'none' };

/** Chunked decoding state: reading a size line, the data of a chunk, the CRLF after it, or the trailers. */
type ChunkState = 'size' | 'data' | 'data-end' | 'trailer';

const CR = 13;
const LF = 10;
/** Longest head accepted before the response is called malformed, in bytes. */
const MAX_HEAD_BYTES = 64 * 1024;
/** Longest chunk size line accepted, in bytes. */
const MAX_SIZE_LINE = 1024;

/** What a framer found wrong with a response's bytes. */
export class FramingError extends Error {
  /** `FramingError`. */
  override readonly name = 'FramingError';
}

/** Parses a response head (status line and header lines, without the blank line). */
export function parseHead(text: string): ResponseHead {
  const lines = text.split('\r\n');
  const status = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
  if (status === null)
    throw new FramingError(`not an HTTP/1.x status line: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const connection = (headers['connection'] ?? '').toLowerCase();
  return {
    status: Number(status[2]),
    headers,
    keepAlive: status[1] === '0' ? connection.includes('keep-alive') : !connection.includes('close'),
  };
}

/** The framing a head announces (RFC 9112 §6.3, for a response to a POST). */
function framingOf(head: ResponseHead): Framing {
  if (head.status === 204 || head.status === 304) return { kind: 'none' };
  const te = head.headers['transfer-encoding'];
  if (te !== undefined && /(^|,)\s*chunked\s*$/i.test(te)) return { kind: 'chunked' };
  const cl = head.headers['content-length'];
  if (cl !== undefined) {
    const length = Number(cl.split(',')[0]);
    if (!Number.isInteger(length) || length < 0) throw new FramingError(`bad Content-Length: ${cl}`);
    return { kind: 'length', length };
  }
  return { kind: 'close' };
}

/**
 * Follows one response's framing over the reads of its connection. Feed each read with {@link ResponseFramer.push};
 * it says when the response ended, and can hand out the body's byte ranges as it goes.
 */
export class ResponseFramer {
  #head: ResponseHead | undefined;
  #headBytes: number[] = [];
  #framing: Framing | undefined;
  #chunk: ChunkState = 'size';
  #sizeLine = '';
  #left = 0;
  #trailerLine = 0;
  #done = false;

  /** The head, once read. */
  get head(): ResponseHead | undefined {
    return this.#head;
  }

  /** Whether the response ended. */
  get done(): boolean {
    return this.#done;
  }

  /** Whether the body ends when the connection closes (it has no length and is not chunked). */
  get endsAtClose(): boolean {
    return this.#framing?.kind === 'close';
  }

  /**
   * Feeds the next read. Returns how many of its bytes belong to this response when the response ended inside it,
   * else `-1` (every byte belonged to it and more are to come). `onBody(start, end)` receives the ranges of
   * `bytes` that are body bytes, in order.
   *
   * @throws {@link FramingError} for bytes that are not an HTTP/1.1 response.
   */
  push(bytes: Uint8Array, onBody?: (start: number, end: number) => void): number {
    if (this.#done) return 0;
    let i = 0;
    if (this.#head === undefined) {
      i = this.#readHead(bytes);
      if (this.#head === undefined) return -1;
    }
    const framing = this.#framing as Framing;
    const n = bytes.length;
    switch (framing.kind) {
      case 'none':
        this.#done = true;
        return i;
      case 'close':
        if (i < n) onBody?.(i, n);
        return -1;
      case 'length': {
        const take = Math.min(this.#left, n - i);
        if (take > 0) onBody?.(i, i + take);
        this.#left -= take;
        if (this.#left > 0) return -1;
        this.#done = true;
        return i + take;
      }
      case 'chunked':
        return this.#chunked(bytes, i, onBody);
    }
  }

  /** Reads head bytes from `bytes`; returns the index after the head (or `bytes.length` when it goes on). */
  #readHead(bytes: Uint8Array): number {
    for (let i = 0; i < bytes.length; i++) {
      const h = this.#headBytes;
      h.push(bytes[i] as number);
      const k = h.length;
      if (k >= 4 && h[k - 4] === CR && h[k - 3] === LF && h[k - 2] === CR && h[k - 1] === LF) {
        const head = parseHead(Buffer.from(h.slice(0, k - 4)).toString('latin1'));
        this.#headBytes = [];
        // An interim 1xx response (100 Continue) comes before the real one: read on.
        if (head.status >= 100 && head.status < 200) continue;
        this.#head = head;
        this.#framing = framingOf(head);
        if (this.#framing.kind === 'length') this.#left = this.#framing.length;
        return i + 1;
      }
      if (k > MAX_HEAD_BYTES)
        throw new FramingError(`no end of the response head within ${MAX_HEAD_BYTES} bytes`);
    }
    return bytes.length;
  }

  #chunked(bytes: Uint8Array, from: number, onBody?: (start: number, end: number) => void): number {
    const n = bytes.length;
    let i = from;
    while (i < n) {
      switch (this.#chunk) {
        case 'size': {
          const b = bytes[i++] as number;
          if (b !== LF) {
            this.#sizeLine += String.fromCharCode(b);
            if (this.#sizeLine.length > MAX_SIZE_LINE)
              throw new FramingError(`a chunk size line longer than ${MAX_SIZE_LINE} bytes`);
            break;
          }
          const hex = (this.#sizeLine.split(';')[0] ?? '').trim();
          if (!/^[0-9a-fA-F]{1,12}$/.test(hex))
            throw new FramingError(`bad chunk size: ${JSON.stringify(hex)}`);
          this.#left = Number.parseInt(hex, 16);
          this.#sizeLine = '';
          this.#chunk = this.#left === 0 ? 'trailer' : 'data';
          this.#trailerLine = 0;
          break;
        }
        case 'data': {
          const take = Math.min(this.#left, n - i);
          onBody?.(i, i + take);
          i += take;
          this.#left -= take;
          if (this.#left === 0) this.#chunk = 'data-end';
          break;
        }
        case 'data-end': {
          const b = bytes[i++] as number;
          if (b === LF) this.#chunk = 'size';
          else if (b !== CR) throw new FramingError('a chunk is not followed by CRLF');
          break;
        }
        case 'trailer': {
          // Trailer lines until an empty one (a line's length leaves out its CR).
          const b = bytes[i++] as number;
          if (b !== LF) {
            if (b !== CR) this.#trailerLine++;
            break;
          }
          if (this.#trailerLine === 0) {
            this.#done = true;
            return i;
          }
          this.#trailerLine = 0;
          break;
        }
      }
    }
    return -1;
  }
}

/** A piece of a response body and the arrival of the read that brought it, in ms. */
export interface BodyPiece {
  /** Arrival time of the read. */
  readonly atMs: number;
  /** The body bytes of that read (framing removed). */
  readonly bytes: Buffer;
}

/** A recorded response read back: its head and its body's pieces. */
export interface ResponseBody {
  /** The status line and headers. */
  readonly head: ResponseHead;
  /** The body, read by read. */
  readonly pieces: BodyPiece[];
}

/**
 * The head and body of a recorded response, read by read: the framing (head, chunk sizes, CRLFs, trailers)
 * removed, each read's body bytes kept with its arrival time (reads that brought no body byte are left out).
 *
 * @throws {@link FramingError} for bytes that are not an HTTP/1.1 response or have no complete head.
 */
export function bodyPieces(
  reads: readonly { readonly atMs: number; readonly bytes: Uint8Array }[],
): ResponseBody {
  const framer = new ResponseFramer();
  const pieces: BodyPiece[] = [];
  for (const read of reads) {
    const parts: Uint8Array[] = [];
    const end = framer.push(read.bytes, (start, stop) => parts.push(read.bytes.subarray(start, stop)));
    if (parts.length > 0) pieces.push({ atMs: read.atMs, bytes: Buffer.concat(parts) });
    if (end >= 0) break;
  }
  if (framer.head === undefined) throw new FramingError('no complete response head');
  return { head: framer.head, pieces };
}
