/**
 * `OpenAiClient`: sends requests to an OpenAI-compatible server over kept-alive HTTP/1.1 connections (a
 * {@link ConnectionPool} sized to the load's concurrency) and records each response exactly as it arrived: every
 * socket read with its arrival time, stamped in the socket's `data` handler before anything is parsed. Reading the
 * bytes (HTTP framing, SSE, JSON) happens later, off the hot path ({@link readExchange}). A request's bytes can be
 * prepared ahead of its send time ({@link OpenAiClient.prepare}), so that sending is one socket write.
 *
 * @packageDocumentation
 */
import { isIP } from 'node:net';
import tls from 'node:tls';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import {
  type ChatCompletionRequest,
  type CompletionRequest,
  ENDPOINT_PATHS,
  type Endpoint,
} from '../openai-protocol.js';
import { ConnectionPool, type RawExchange } from './http-connection.js';
import { bodyPieces } from './response-framer.js';
import { monotonicMs } from './send-loop.js';

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
  /** The clock every time of a {@link RawExchange} is read from, in ms (the load's clock). @default {@link monotonicMs} */
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

/** A request ready to go: its bytes, method line and headers included. */
export interface PreparedRequest {
  /** The whole HTTP/1.1 request. */
  readonly bytes: Uint8Array;
}

/**
 * A client of one OpenAI-compatible endpoint. Reuse one client for a whole load: it keeps `maxSockets`
 * connections alive, so no request pays a TCP handshake after the first ones. Call {@link OpenAiClient.close} at
 * the end.
 */
export class OpenAiClient {
  /** The endpoint called. */
  readonly endpoint: Endpoint;
  /** The full URL requests go to. */
  readonly url: URL;
  readonly #pool: ConnectionPool;
  readonly #headers: string;
  readonly #timeoutMs: number;
  /** TLS options of every request and of {@link OpenAiClient.checkCertificate}: the trusted CAs, when given. */
  readonly #tls: tls.ConnectionOptions;
  readonly #caGiven: boolean;

  constructor(options: OpenAiClientOptions) {
    const now = options.now ?? monotonicMs;
    this.endpoint = options.endpoint ?? 'completions';
    const base = apiBaseUrl(options.baseUrl);
    this.url = new URL(`${base.pathname}${ENDPOINT_PATHS[this.endpoint]}`, base);
    this.url.search = base.search;
    this.#caGiven = options.ca !== undefined;
    // A given CA is trusted besides the bundled roots, not instead of them (Node's `ca` replaces the default list).
    this.#tls = options.ca === undefined ? {} : { ca: [...tls.rootCertificates, options.ca] };
    this.#pool = new ConnectionPool({ url: this.url, tls: this.#tls }, options.maxSockets ?? 1, now);
    this.#timeoutMs = options.timeoutMs ?? 600_000;
    const auth =
      options.apiKey === undefined || options.apiKey === ''
        ? ''
        : `Authorization: Bearer ${options.apiKey}\r\n`;
    this.#headers = `Host: ${this.url.host}\r\nContent-Type: application/json\r\nAccept: text/event-stream, application/json\r\nConnection: keep-alive\r\n${auth}`;
  }

  /** The bytes of a request with `body` to the endpoint, or to `path` (absolute, with its query) of the server. */
  prepare(
    body: CompletionRequest | ChatCompletionRequest | object,
    path = this.url.pathname + this.url.search,
  ): PreparedRequest {
    const payload = Buffer.from(JSON.stringify(body));
    const head = `POST ${path} HTTP/1.1\r\n${this.#headers}Content-Length: ${payload.length}\r\n\r\n`;
    return { bytes: Buffer.concat([Buffer.from(head, 'latin1'), payload]) };
  }

  /**
   * Sends a prepared request and records the exchange. Never rejects: transport failures are a `failed`
   * {@link RawExchange}.
   */
  sendPrepared(request: PreparedRequest, signal?: AbortSignal): Promise<RawExchange> {
    return this.#pool.send(request.bytes, this.#timeoutMs, signal);
  }

  /** Prepares and sends one request body (see {@link OpenAiClient.prepare}). */
  send(body: CompletionRequest | ChatCompletionRequest | object, signal?: AbortSignal): Promise<RawExchange> {
    return this.sendPrepared(this.prepare(body), signal);
  }

  /**
   * Posts a JSON body to `path` of the server (absolute, e.g. `/tokenize`) and reads a JSON answer: `undefined`
   * when the server does not answer 2xx with JSON (no such endpoint, an error, no connection).
   */
  async postJson(path: string, body: object, signal?: AbortSignal): Promise<unknown> {
    const raw = await this.sendPrepared(this.prepare(body, path), signal);
    if (raw.status !== 'complete' || raw.httpStatus < 200 || raw.httpStatus >= 300) return undefined;
    try {
      return JSON.parse(
        Buffer.concat(bodyPieces(raw.reads).pieces.map((p) => p.bytes)).toString('utf8'),
      ) as unknown;
    } catch {
      return undefined;
    }
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

  /** Closes the kept-alive connections. */
  close(): void {
    this.#pool.close();
  }
}
