/**
 * `HttpConnection` and `ConnectionPool`: the load generator's HTTP/1.1 transport, written for its hot path. A
 * connection is a plain TCP (or TLS) socket; a request goes out as bytes prepared beforehand; every read of the
 * response is stamped with the clock in the socket's `data` handler and kept as it arrived, framing included —
 * nothing is parsed then but the response's framing, to know where it ends ({@link ResponseFramer}). Node's own
 * HTTP client parses every read (headers, chunk framing, stream events) before the caller sees it, so its stamps
 * come after that work; `npm run bench:serving-client` measures what it costs per chunk against this transport.
 *
 * @packageDocumentation
 */
import net from 'node:net';
import tls from 'node:tls';
import { ResponseFramer } from './response-framer.js';

/** The one buffer every plain-TCP socket of a thread reads into (64 KiB, libuv's own read size); copied out per read. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** One read of a socket: when it arrived (ms on the client's clock) and its bytes as received. */
export interface SocketRead {
  /** Arrival time, in ms. */
  readonly atMs: number;
  /** The bytes, framing included. */
  readonly bytes: Uint8Array;
}

/** How a request that got no complete response ended. */
export type TransportFailure =
  /** No connection could be made (refused, unreachable, reset before the response). */
  | 'connection'
  /** The per-request time limit passed. */
  | 'timeout'
  /** The response started but was cut off (socket closed or reset), or its bytes were not HTTP. */
  | 'broken-stream'
  /** The caller's signal cancelled it. */
  | 'cancelled';

/**
 * One request/response as it happened, before any parsing: times in milliseconds on the client's clock, the
 * socket's reads as received (framing included; see `bodyPieces`). A union on `status`.
 */
export type RawExchange =
  | {
      /** The whole response arrived. */
      readonly status: 'complete';
      /** When the request's bytes were handed to the socket, in ms. */
      readonly sentAtMs: number;
      /** HTTP status code. */
      readonly httpStatus: number;
      /** The reads of the response, in order. */
      readonly reads: readonly SocketRead[];
      /** When the response ended, in ms. */
      readonly endedAtMs: number;
    }
  | {
      /** The exchange failed in transport. */
      readonly status: 'failed';
      /** Why. */
      readonly failure: TransportFailure;
      /** What the socket or timer said. */
      readonly message: string;
      /** When the request's bytes were handed to the socket (or the connection was tried), in ms. */
      readonly sentAtMs: number;
      /** HTTP status code, when the response's head arrived. */
      readonly httpStatus?: number;
      /** The reads received before the failure. */
      readonly reads: readonly SocketRead[];
      /** When the failure was seen, in ms. */
      readonly endedAtMs: number;
    };

/** Where connections go: the URL's host and port, over TLS for `https:`, with these TLS options. */
export interface ConnectionTarget {
  /** The URL (its protocol, host and port are used). */
  readonly url: URL;
  /** TLS options of an `https:` URL (trusted CAs). */
  readonly tls: tls.ConnectionOptions;
}

/** A connection's socket, as the pool sees it. */
type SocketState = 'connecting' | 'open' | 'closed';

/**
 * One kept-alive HTTP/1.1 connection: one request at a time. Opened lazily by the first request.
 */
export class HttpConnection {
  readonly #target: ConnectionTarget;
  readonly #now: () => number;
  #socket: net.Socket | undefined;
  #state: SocketState = 'closed';
  #served = 0;
  /** The exchange in progress: where a read, an end or an error goes. */
  #onRead: ((bytes: Buffer) => void) | undefined;
  #onEnd: ((error?: Error) => void) | undefined;

  constructor(target: ConnectionTarget, now: () => number) {
    this.#target = target;
    this.#now = now;
  }

  /** Whether the socket is open (a request may reuse it). */
  get open(): boolean {
    return this.#state !== 'closed';
  }

  /** Responses this connection has completed. */
  get served(): number {
    return this.#served;
  }

  /** Closes the socket. */
  close(): void {
    this.#state = 'closed';
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #connect(): net.Socket {
    const { url } = this.#target;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const https = url.protocol === 'https:';
    const port = Number(url.port === '' ? (https ? 443 : 80) : url.port);
    const socket = https
      ? tls.connect({
          ...this.#target.tls,
          host,
          port,
          ALPNProtocols: ['http/1.1'],
          ...(net.isIP(host) === 0 ? { servername: host } : {}),
        })
      : net.connect({
          host,
          port,
          // Reads land in one shared buffer and reach `#onRead` straight from libuv, without the stream
          // machinery of a `data` event (a third of the client's CPU per chunk); the bytes are copied out at once.
          onread: {
            buffer: READ_BUFFER,
            callback: (length, buffer) => {
              if (this.#socket === socket) this.#onRead?.(Buffer.from(buffer.subarray(0, length)));
              return true;
            },
          },
        });
    socket.setNoDelay(true);
    this.#state = 'connecting';
    socket.once(https ? 'secureConnect' : 'connect', () => {
      if (this.#state === 'connecting') this.#state = 'open';
    });
    // Events of a socket this connection already closed (a late `close`) belong to no exchange.
    if (https)
      socket.on('data', (bytes: Buffer) => {
        if (this.#socket === socket) this.#onRead?.(bytes);
      });
    const ended = (error?: Error): void => {
      if (this.#socket !== socket) return;
      this.#state = 'closed';
      this.#socket = undefined;
      const onEnd = this.#onEnd;
      this.#onEnd = undefined;
      onEnd?.(error);
    };
    socket.on('error', (error) => ended(error));
    socket.on('close', () => ended());
    this.#socket = socket;
    return socket;
  }

  /**
   * Sends `request` (the whole request's bytes) and records the response until it ends. Never rejects. A reused
   * connection the server had already closed fails with `connection` and nothing received: the caller may send
   * again on a new one ({@link ConnectionPool} does, once).
   */
  exchange(request: Uint8Array, timeoutMs: number, signal?: AbortSignal): Promise<RawExchange> {
    return new Promise<RawExchange>((resolve) => {
      const reads: SocketRead[] = [];
      const framer = new ResponseFramer();
      let sentAtMs = this.#now();
      let settled = false;
      const finish = (exchange: RawExchange): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#onRead = undefined;
        this.#onEnd = undefined;
        resolve(exchange);
      };
      const fail = (failure: TransportFailure, message: string): void => {
        const status = framer.head?.status;
        finish({
          status: 'failed',
          failure,
          message,
          sentAtMs,
          ...(status === undefined ? {} : { httpStatus: status }),
          reads,
          endedAtMs: this.#now(),
        });
        this.close();
      };
      const timer = setTimeout(
        () => fail('timeout', `no complete response within ${timeoutMs} ms`),
        timeoutMs,
      );
      const onAbort = (): void => fail('cancelled', 'cancelled');
      if (signal?.aborted === true) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#onRead = (bytes) => {
        const atMs = this.#now();
        reads.push({ atMs, bytes });
        let end: number;
        try {
          end = framer.push(bytes);
        } catch (error) {
          fail('broken-stream', (error as Error).message);
          return;
        }
        if (end < 0) return;
        const head = framer.head;
        this.#served++;
        finish({ status: 'complete', sentAtMs, httpStatus: head?.status ?? 0, reads, endedAtMs: atMs });
        // Bytes past the response, or a server that closes after it: the connection is not reused.
        if (end < bytes.length || head?.keepAlive !== true) this.close();
      };
      this.#onEnd = (error) => {
        if (framer.head !== undefined && framer.endsAtClose && error === undefined) {
          this.#served++;
          finish({
            status: 'complete',
            sentAtMs,
            httpStatus: framer.head.status,
            reads,
            endedAtMs: this.#now(),
          });
          return;
        }
        const message = error?.message ?? 'the server closed the connection';
        if (framer.head === undefined && reads.length === 0) fail('connection', message);
        else
          fail(
            'broken-stream',
            reads.length === 0 ? message : `the server closed the connection mid-response (${message})`,
          );
      };
      const socket = this.#state === 'closed' ? this.#connect() : (this.#socket as net.Socket);
      sentAtMs = this.#now();
      socket.write(request);
    });
  }
}

/**
 * Up to `maxSockets` kept-alive {@link HttpConnection}s to one server, handed to requests first come, first
 * served; a request beyond them waits for one to free.
 */
export class ConnectionPool {
  readonly #target: ConnectionTarget;
  readonly #now: () => number;
  readonly #max: number;
  readonly #idle: HttpConnection[] = [];
  readonly #waiting: ((connection: HttpConnection) => void)[] = [];
  #count = 0;

  constructor(target: ConnectionTarget, maxSockets: number, now: () => number) {
    this.#target = target;
    this.#max = Math.max(1, maxSockets);
    this.#now = now;
  }

  /**
   * Sends `request` on a free connection and records its exchange (see {@link HttpConnection.exchange}). When a
   * reused connection turns out closed by the server before anything came back (llama-server closes a kept-alive
   * socket after a streamed response), the request goes out again, once, on a new connection, timed from then.
   */
  send(request: Uint8Array, timeoutMs: number, signal?: AbortSignal): Promise<RawExchange> {
    // A free connection sends at once, in this turn: the request is stamped and written before the caller goes on.
    const free = this.#acquire();
    if (free !== undefined) return this.#sendOn(free, request, timeoutMs, signal);
    return new Promise<HttpConnection>((resolve) => this.#waiting.push(resolve)).then((connection) =>
      this.#sendOn(connection, request, timeoutMs, signal),
    );
  }

  async #sendOn(
    connection: HttpConnection,
    request: Uint8Array,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RawExchange> {
    const reused = connection.open && connection.served > 0;
    let exchange = await connection.exchange(request, timeoutMs, signal);
    const closedIdle = exchange.status === 'failed' && exchange.failure === 'connection';
    if (reused && closedIdle && signal?.aborted !== true) {
      connection.close();
      exchange = await connection.exchange(request, timeoutMs, signal);
    }
    this.#release(connection);
    return exchange;
  }

  /** Closes every connection. */
  close(): void {
    for (const connection of this.#idle) connection.close();
    this.#idle.length = 0;
  }

  /** A free connection, or `undefined` when all `maxSockets` are busy. */
  #acquire(): HttpConnection | undefined {
    // The most recently used connection first: its socket is the least likely to have been closed while idle (a
    // closed one opens a new socket for its next request).
    const idle = this.#idle.pop();
    if (idle !== undefined) return idle;
    if (this.#count >= this.#max) return undefined;
    this.#count++;
    return new HttpConnection(this.#target, this.#now);
  }

  #release(connection: HttpConnection): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(connection);
    else this.#idle.push(connection);
  }
}
