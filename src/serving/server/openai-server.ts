/**
 * `dantinox serve`'s HTTP server: an already opened {@link Model} behind the OpenAI API — `POST /v1/completions`
 * and `POST /v1/chat/completions` (whole or streamed as Server-Sent Events), `GET /v1/models`, `GET /health`,
 * `GET /metrics` (Prometheus text format), and vLLM's `POST /tokenize` and `POST /detokenize`. Generations go through a {@link BatchScheduler}; errors are OpenAI
 * error bodies (400 naming the field, 404 unknown route or model, 429 queue full, 503 shutting down, 500 engine
 * failure). It listens on loopback unless told otherwise and opens no model itself.
 *
 * @packageDocumentation
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Model } from '../../models/model.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import { Rng } from '../../rng.js';
import type { Endpoint } from '../openai-protocol.js';
import { type ApiFailure, apiFailure, badRequest, isApiFailure, notFound } from './api-failure.js';
import { BatchScheduler, type BatchSchedulerOptions } from './batch-scheduler.js';
import { generationTimings, streamGeneration, wholeResponse } from './completion-writer.js';
import { readGenerationRequest, type ServedModel } from './generation-request.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus-metrics.js';
import { createServerMetrics, type ServerMetrics } from './server-metrics.js';
import { StopTextStream } from './stop-text-stream.js';
import { detokenizeRoute, tokenizeRoute } from './tokenize-route.js';

/** Options of {@link OpenAiServer}. */
export interface OpenAiServerOptions {
  /** The model to serve (opened by the caller, who also disposes it). */
  readonly model: Model;
  /** Its tokenizer. @default model.tokenizer */
  readonly tokenizer?: Tokenizer;
  /** The name clients pass as `model` and `/v1/models` lists. @default model.info.name */
  readonly name?: string;
  /** Most requests batched into one engine call. @default 8 */
  readonly maxBatch?: number;
  /**
   * `continuous` (requests join and leave a running batch, on engines that take rows of different lengths; static
   * on the others) or `static` (batches of equal-length prompts): see {@link BatchSchedulerOptions.batching}.
   * @default 'continuous'
   */
  readonly batching?: 'continuous' | 'static';
  /** Most requests waiting; more get HTTP 429. @default 64 */
  readonly maxQueue?: number;
  /** The end-of-sequence token id, when the model has one (generation stops there unless `ignore_eos`). */
  readonly eosTokenId?: number;
  /** Seed of the seeds given to requests that send none (the n-th such request gets the same seed every run). @default 0 */
  readonly seed?: number;
  /** Largest request body read, in bytes; larger ones get HTTP 413. @default 1 MiB */
  readonly maxBodyBytes?: number;
  /** The clock of the timings, in ms. @default performance.now */
  readonly now?: () => number;
}

/** Where {@link OpenAiServer.listen} listens. */
export interface ListenOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface address. @default '127.0.0.1' */
  readonly host?: string;
}

/** The largest request body read by default, in bytes. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const ROUTES: Readonly<Record<string, string>> = {
  '/v1/completions': 'POST',
  '/v1/chat/completions': 'POST',
  '/v1/models': 'GET',
  '/health': 'GET',
  '/metrics': 'GET',
  '/tokenize': 'POST',
  '/detokenize': 'POST',
};

/** The OpenAI-compatible HTTP server of one model (see the module comment). */
export class OpenAiServer {
  /** The queue and batcher of generations. */
  readonly scheduler: BatchScheduler;
  /** The metrics `/metrics` writes. */
  readonly metrics: ServerMetrics;
  readonly #served: ServedModel;
  readonly #eosTokenId: number | undefined;
  readonly #maxQueue: number;
  readonly #maxBodyBytes: number;
  readonly #now: () => number;
  readonly #seeds: Rng;
  readonly #http: Server;
  #requestCount = 0;
  #inFlight = 0;
  #shuttingDown = false;
  #url: string | undefined;

  constructor(options: OpenAiServerOptions) {
    const tokenizer = options.tokenizer ?? options.model.tokenizer;
    const name = options.name ?? options.model.info.name;
    if (tokenizer === undefined) throw new DantinoxError('UNSUPPORTED', messages.serveNoTokenizer(name));
    this.#served = {
      name,
      tokenizer,
      vocabSize: options.model.config.vocabSize,
      maxContext: options.model.config.maxContext,
    };
    this.#eosTokenId = options.eosTokenId;
    this.#maxQueue = options.maxQueue ?? 64;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#now = options.now ?? (() => performance.now());
    this.#seeds = new Rng(options.seed ?? 0);
    this.metrics = createServerMetrics(() => this.scheduler);
    this.scheduler = new BatchScheduler(options.model, {
      maxBatch: options.maxBatch ?? 8,
      ...(options.batching === undefined ? {} : { batching: options.batching }),
      maxQueue: this.#maxQueue,
      now: this.#now,
      onBatch: (rows) => this.metrics.batchSize.observe(rows),
    });
    this.#http = createServer((req, res) => void this.#handle(req, res));
  }

  /** The served model's name. */
  get name(): string {
    return this.#served.name;
  }

  /** `http://host:port` once listening. */
  get url(): string | undefined {
    return this.#url;
  }

  /** Generation requests accepted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Starts listening and resolves the server's URL (with the port picked when `port` is 0). */
  listen(options: ListenOptions = {}): Promise<string> {
    const host = options.host ?? '127.0.0.1';
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.#http.once('error', onError);
      this.#http.listen(options.port ?? 0, host, () => {
        this.#http.off('error', onError);
        const address = this.#http.address() as AddressInfo;
        const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
        this.#url = `http://${shown}:${address.port}`;
        resolve(this.#url);
      });
    });
  }

  /**
   * Graceful shutdown: from now on new generation requests and `/health` get 503 (with `Connection: close`) while
   * queued and running generations finish (cancelled after `graceMs`); then the server stops listening and closes
   * every connection. Resolves `true` when every generation finished, `false` when some were cancelled.
   */
  async shutdown(graceMs: number): Promise<boolean> {
    this.#shuttingDown = true;
    this.#http.closeIdleConnections();
    const drained = await this.scheduler.drain(graceMs);
    // The last responses are written in the same turn their outcome resolves; give them that turn.
    await new Promise((resolve) => setImmediate(resolve));
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#http.closeAllConnections();
    await closed;
    return drained;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startMs = this.#now();
    const path = (req.url ?? '/').split('?')[0] as string;
    const method = req.method ?? 'GET';
    const route = Object.hasOwn(ROUTES, path) ? path : undefined;
    res.on('finish', () =>
      this.metrics.requests.inc({ endpoint: route ?? 'other', status: String(res.statusCode) }),
    );
    if (this.#shuttingDown) res.setHeader('Connection', 'close');
    if (route === undefined) return sendFailure(res, notFound(messages.serveUnknownPath(method, path)));
    if (method !== ROUTES[route]) {
      res.setHeader('Allow', ROUTES[route] as string);
      return sendFailure(
        res,
        apiFailure(
          405,
          'invalid_request_error',
          'method_not_allowed',
          messages.serveWrongMethod(method, path, ROUTES[route] as string),
        ),
      );
    }
    if (route === '/health') {
      if (this.#shuttingDown) return sendFailure(res, shuttingDown());
      return sendJson(res, 200, { status: 'ok' });
    }
    if (route === '/metrics') {
      res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE });
      res.end(this.metrics.registry.render());
      return;
    }
    if (route === '/v1/models') return sendJson(res, 200, this.#modelList());
    if (route === '/tokenize' || route === '/detokenize') {
      const body = await readJsonBody(req, this.#maxBodyBytes);
      const answer = isApiFailure(body)
        ? body
        : (route === '/tokenize' ? tokenizeRoute : detokenizeRoute)(body, this.#served);
      return isApiFailure(answer) ? sendFailure(res, answer) : sendJson(res, 200, answer.body);
    }
    try {
      await this.#generate(route === '/v1/chat/completions' ? 'chat' : 'completions', req, res);
    } finally {
      this.metrics.requestDuration.observe((this.#now() - startMs) / 1000);
    }
  }

  #modelList(): unknown {
    return {
      object: 'list',
      data: [
        {
          id: this.#served.name,
          object: 'model',
          created: 0,
          owned_by: 'dantinox',
          max_model_len: this.#served.maxContext,
        },
      ],
    };
  }

  async #generate(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#shuttingDown) return sendFailure(res, shuttingDown());
    const body = await readJsonBody(req, this.#maxBodyBytes);
    if (isApiFailure(body)) {
      res.setHeader('Connection', 'close');
      return sendFailure(res, body);
    }
    const request = readGenerationRequest(endpoint, body, this.#served);
    if (isApiFailure(request)) return sendFailure(res, request);
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const text = new StopTextStream(this.#served.tokenizer, request.stops, this.#eosTokenId);
    this.#requestCount += 1;
    const id = `${endpoint === 'chat' ? 'chatcmpl' : 'cmpl'}-${this.#requestCount}`;
    const meta = { id, created: Math.floor(Date.now() / 1000), model: this.#served.name };
    const stream = request.stream ? streamGeneration(res, endpoint, meta, request.includeUsage) : undefined;
    const submitted = this.scheduler.submit({
      promptIds: request.promptIds,
      maxTokens: request.maxTokens,
      minTokens: request.minTokens,
      temperature: request.temperature,
      topP: request.topP,
      seed: request.seed ?? this.#seeds.int(2 ** 32),
      eosTokenId: request.ignoreEos ? undefined : this.#eosTokenId,
      signal: gone.signal,
      onToken: (token) => {
        const piece = text.push(token);
        stream?.text(piece);
        return text.stopped;
      },
    });
    if (submitted.status === 'rejected') {
      return sendFailure(
        res,
        submitted.reason === 'closed'
          ? shuttingDown()
          : apiFailure(429, 'server_overloaded', 'queue_full', messages.serveQueueFull(this.#maxQueue)),
      );
    }
    this.#inFlight += 1;
    try {
      stream?.start();
      const outcome = await submitted.outcome;
      this.metrics.queueTime.observe(outcome.queueMs / 1000);
      if (outcome.ttftMs !== undefined) this.metrics.timeToFirstToken.observe(outcome.ttftMs / 1000);
      this.metrics.promptTokens.inc({}, outcome.batchSize > 0 ? request.promptIds.length : 0);
      this.metrics.generationTokens.inc({}, outcome.tokens.length);
      if (outcome.finishReason === 'cancelled') {
        res.destroy();
        return;
      }
      const rest = text.flush();
      const usage = {
        prompt_tokens: request.promptIds.length,
        completion_tokens: outcome.tokens.length,
        total_tokens: request.promptIds.length + outcome.tokens.length,
      };
      const timings = generationTimings(outcome, request.promptIds.length);
      if (stream !== undefined) stream.end(rest, outcome.finishReason, usage, timings);
      else sendJson(res, 200, wholeResponse(endpoint, meta, text.text, outcome.finishReason, usage, timings));
    } catch (error) {
      const failure = apiFailure(500, 'server_error', 'engine_error', messages.serveEngineFailed(error));
      if (stream !== undefined) stream.fail(failure);
      else sendFailure(res, failure);
    } finally {
      this.#inFlight -= 1;
    }
  }
}

function shuttingDown(): ApiFailure {
  return apiFailure(503, 'server_error', 'shutting_down', messages.serveShuttingDown());
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendFailure(res: ServerResponse, failure: ApiFailure): void {
  sendJson(res, failure.status, failure.body);
}

/** The request's body parsed as a JSON object, or the failure to send (413 too large, 400 not JSON). */
async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end even past the limit: leaving the loop early would destroy the socket the 413 goes out on.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= maxBytes) chunks.push(chunk as Buffer);
  }
  if (size > maxBytes)
    return apiFailure(
      413,
      'invalid_request_error',
      'request_too_large',
      messages.serveBodyTooLarge(maxBytes),
    );
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return badRequest(
        messages.serveBodyNotJson(`received ${Array.isArray(value) ? 'an array' : typeof value}`),
      );
    return value;
  } catch (error) {
    return badRequest(messages.serveBodyNotJson(error instanceof Error ? error.message : String(error)));
  }
}
