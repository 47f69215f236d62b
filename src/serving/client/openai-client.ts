/**
 * `OpenAiClient`: sends one request to an OpenAI-compatible server over `node:http`/`node:https` with a keep-alive
 * agent sized to the load's concurrency, and records the response exactly as it arrived: the HTTP status and every
 * body chunk with its arrival time, stamped in the socket's `data` handler before anything is parsed. Reading the
 * bytes (SSE, JSON) happens later, off the hot path ({@link readExchange}).
 *
 * @packageDocumentation
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import {
  type ChatCompletionRequest,
  type CompletionRequest,
  ENDPOINT_PATHS,
  type Endpoint,
} from '../openai-protocol.js';

/** Options of {@link OpenAiClient}. */
export interface OpenAiClientOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8080/v1` (a URL without a path gets `/v1`). */
  readonly baseUrl: string;
  /** Which endpoint to call. @default 'completions' */
  readonly endpoint?: Endpoint;
  /** Sent as `Authorization: Bearer <key>`; never recorded. */
  readonly apiKey?: string | undefined;
  /** Most requests in flight, which sizes the keep-alive socket pool. @default 1 */
  readonly maxSockets?: number;
  /** Time limit of one request, in milliseconds (connection to last byte). @default 600000 */
  readonly timeoutMs?: number;
  /** The clock every time of a {@link RawExchange} is read from, in ms (the load's clock). @default performance.now */
  readonly now?: () => number;
  /**
   * PEM certificate(s) of a private CA (or a server's self-signed certificate) an `https` server's certificate may
   * be signed by, trusted besides Node's bundled root CAs (see {@link readCaFile}). @default none
   */
  readonly ca?: string;
}

/** Whether a TLS error is a certificate the client does not accept (untrusted, self-signed, expired, wrong name). */
export function isCertificateError(error: Error): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  return /CERT|SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY/.test(code);
}

/** How a request that got no complete response ended. */
export type TransportFailure =
  /** No connection could be made (refused, unreachable, reset before the response). */
  | 'connection'
  /** The per-request time limit passed. */
  | 'timeout'
  /** The response started but its body was cut off (socket closed, reset). */
  | 'broken-stream'
  /** The caller's signal cancelled it. */
  | 'cancelled';

/**
 * One request/response as it happened, before any parsing: times in milliseconds on the client's clock
 * (`performance.now()` unless {@link OpenAiClientOptions.now} says otherwise), body
 * chunks as received. A union on `status`.
 */
export type RawExchange =
  | {
      /** The whole body arrived. */
      readonly status: 'complete';
      /** When the request was handed to the socket, in ms. */
      readonly sentAtMs: number;
      /** HTTP status code. */
      readonly httpStatus: number;
      /** Arrival time of each body chunk, in ms. */
      readonly chunkTimesMs: readonly number[];
      /** The body chunks, in order. */
      readonly chunks: readonly Buffer[];
      /** When the body ended, in ms. */
      readonly endedAtMs: number;
    }
  | {
      /** The exchange failed in transport. */
      readonly status: 'failed';
      /** Why. */
      readonly failure: TransportFailure;
      /** What the socket or timer said. */
      readonly message: string;
      /** When the request was handed to the socket, in ms. */
      readonly sentAtMs: number;
      /** HTTP status code, when headers arrived. */
      readonly httpStatus?: number;
      /** Arrival time of each body chunk received before the failure, in ms. */
      readonly chunkTimesMs: readonly number[];
      /** The body chunks received before the failure. */
      readonly chunks: readonly Buffer[];
      /** When the failure was seen, in ms. */
      readonly endedAtMs: number;
    };

/** The API's base URL with `/v1` appended when it has no path. */
export function apiBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new DantinoxError('INVALID_OPTION', messages.loadBadBaseUrl(baseUrl));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new DantinoxError('INVALID_OPTION', messages.loadBadBaseUrl(baseUrl));
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1';
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/**
 * A client of one OpenAI-compatible endpoint. Reuse one client for a whole load: its agent keeps `maxSockets`
 * connections alive, so no request pays a TCP handshake after the first ones. Call {@link OpenAiClient.close} at
 * the end.
 */
export class OpenAiClient {
  /** The endpoint called. */
  readonly endpoint: Endpoint;
  /** The full URL requests go to. */
  readonly url: URL;
  readonly #agent: http.Agent;
  readonly #module: typeof http | typeof https;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  /** TLS options of every request and of {@link OpenAiClient.checkCertificate}: the trusted CAs, when given. */
  readonly #tls: tls.ConnectionOptions;
  readonly #caGiven: boolean;

  constructor(options: OpenAiClientOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.endpoint = options.endpoint ?? 'completions';
    const base = apiBaseUrl(options.baseUrl);
    this.url = new URL(`${base.pathname}${ENDPOINT_PATHS[this.endpoint]}`, base);
    this.url.search = base.search;
    const maxSockets = options.maxSockets ?? 1;
    this.#module = this.url.protocol === 'https:' ? https : http;
    this.#caGiven = options.ca !== undefined;
    // A given CA is trusted besides the bundled roots, not instead of them (Node's `ca` replaces the default list).
    this.#tls = options.ca === undefined ? {} : { ca: [...tls.rootCertificates, options.ca] };
    const agentOptions = {
      ...this.#tls,
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      scheduling: 'fifo' as const,
    };
    this.#agent =
      this.url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.#timeoutMs = options.timeoutMs ?? 600_000;
    this.#headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      ...(options.apiKey === undefined || options.apiKey === ''
        ? {}
        : { authorization: `Bearer ${options.apiKey}` }),
    };
  }

  /**
   * Sends one request body (to the endpoint, or to another `url` of the same server) and records the exchange.
   * Never rejects: transport failures are a `failed` {@link RawExchange}.
   */
  send(
    body: CompletionRequest | ChatCompletionRequest | object,
    signal?: AbortSignal,
    url = this.url,
  ): Promise<RawExchange> {
    const payload = Buffer.from(JSON.stringify(body));
    const chunkTimesMs: number[] = [];
    const chunks: Buffer[] = [];
    return new Promise<RawExchange>((resolve) => {
      let settled = false;
      let httpStatus: number | undefined;
      let sentAtMs = this.#now();
      const finish = (exchange: RawExchange): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(exchange);
      };
      const fail = (failure: TransportFailure, message: string): void => {
        const endedAtMs = this.#now();
        finish({
          status: 'failed',
          failure,
          message,
          sentAtMs,
          ...(httpStatus === undefined ? {} : { httpStatus }),
          chunkTimesMs,
          chunks,
          endedAtMs,
        });
        request?.destroy();
      };
      let request: http.ClientRequest | undefined;
      const timer = setTimeout(
        () => fail('timeout', `no complete response within ${this.#timeoutMs} ms`),
        this.#timeoutMs,
      );
      const onAbort = (): void => fail('cancelled', 'cancelled');
      if (signal?.aborted === true) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const attempt = (fresh: boolean): void => {
        const current = this.#module.request(url, {
          ...this.#tls,
          method: 'POST',
          // A resend goes on a connection of its own: the pool may hold more sockets the server has closed.
          agent: fresh ? false : this.#agent,
          headers: { ...this.#headers, 'content-length': String(payload.length) },
        });
        request = current;
        current.on('error', (error: Error) => {
          // A kept-alive socket the server had already closed (llama-server closes it after a streamed response):
          // nothing reached the server, so the request goes out again, once, on a new connection, sent from then.
          if (httpStatus === undefined && current.reusedSocket && !fresh && !settled) {
            attempt(true);
            return;
          }
          fail(httpStatus === undefined ? 'connection' : 'broken-stream', error.message);
        });
        current.on('response', (response) => {
          httpStatus = response.statusCode ?? 0;
          response.on('data', (chunk: Buffer) => {
            chunkTimesMs.push(this.#now());
            chunks.push(chunk);
          });
          response.on('error', (error: Error) => fail('broken-stream', error.message));
          response.on('aborted', () =>
            fail('broken-stream', 'the server closed the connection mid-response'),
          );
          response.on('end', () =>
            finish({
              status: 'complete',
              sentAtMs,
              httpStatus: httpStatus ?? 0,
              chunkTimesMs,
              chunks,
              endedAtMs: this.#now(),
            }),
          );
          response.on('close', () => {
            if (!response.complete) fail('broken-stream', 'the server closed the connection mid-response');
          });
        });
        sentAtMs = this.#now();
        current.end(payload);
      };
      attempt(false);
    });
  }

  /**
   * For an `https` URL, makes one TLS handshake with the server, verified as every request will be, so that a
   * certificate the client does not trust stops the load before it starts instead of failing each request. Any other
   * failure (refused, unreachable, no answer within 10 s or the request time limit) is left to the requests.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming `--ca-file` when the server's certificate is rejected.
   */
  async checkCertificate(): Promise<void> {
    if (this.url.protocol !== 'https:') return;
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    const error = await new Promise<Error | undefined>((resolve) => {
      const socket = tls.connect({
        ...this.#tls,
        host,
        port: Number(this.url.port === '' ? 443 : this.url.port),
        ...(isIP(host) === 0 ? { servername: host } : {}),
      });
      const done = (e?: Error): void => {
        socket.destroy();
        resolve(e);
      };
      socket.once('secureConnect', () => done());
      socket.once('error', done);
      socket.setTimeout(Math.min(this.#timeoutMs, 10_000), () => done());
    });
    if (error !== undefined && isCertificateError(error))
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.loadCertificateRejected(this.url.origin, error.message, this.#caGiven),
        { cause: error },
      );
  }

  /**
   * Posts a JSON body to `path` of the server (absolute, e.g. `/tokenize`) and reads a JSON answer: `undefined`
   * when the server does not answer 2xx with JSON (no such endpoint, an error, no connection).
   */
  async postJson(path: string, body: object, signal?: AbortSignal): Promise<unknown> {
    const url = new URL(path, this.url);
    const raw = await this.send(body, signal, url);
    if (raw.status !== 'complete' || raw.httpStatus < 200 || raw.httpStatus >= 300) return undefined;
    try {
      return JSON.parse(Buffer.concat(raw.chunks).toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#agent.destroy();
  }
}
