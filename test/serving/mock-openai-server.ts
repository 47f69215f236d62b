/**
 * A deterministic mock OpenAI server for the load generator's tests: node:http on 127.0.0.1, port 0. Known TTFT,
 * per-token delay and tokens per chunk; injected HTTP errors, stalls, broken streams and `event: error`; both
 * endpoints, streamed and whole, with a usage chunk (or none), a running usage on every chunk when asked
 * (`continuous_usage_stats`, as vLLM), thinking tokens streamed as `reasoning_content` before the answer, and a
 * `/tokenize` endpoint; an optional capacity (requests served at once, the rest wait). By default every token is a
 * common word after a space, one GPT-2 token each, so client counts are exact; `tokenText` makes tokens whose text
 * the client's tokenizer counts differently (` tok` is two GPT-2 tokens), as a server with another vocabulary.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A fault injected into one request. */
export type MockFault =
  | { readonly kind: 'http'; readonly status: number }
  | { readonly kind: 'stall' }
  | { readonly kind: 'break'; readonly afterTokens: number }
  | { readonly kind: 'event-error'; readonly afterTokens: number }
  | { readonly kind: 'error-chunk'; readonly afterTokens: number };

/** Options of the mock server. */
export interface MockOptions {
  /** Delay before the first chunk, ms. */
  readonly ttftMs?: number;
  /** Delay per token after the first chunk, ms (a chunk of k tokens waits k times this). */
  readonly perTokenMs?: number;
  /** Tokens per chunk. */
  readonly tokensPerChunk?: number;
  /** The fault of request n (0-based), if any. */
  readonly fault?: (n: number) => MockFault | undefined;
  /** Requests served at once; the rest queue. @default unlimited */
  readonly capacity?: number;
  /**
   * A batching server's capacity: with more than this many streams generating, each token takes
   * `perTokenMs × streams / batchCapacity` (decode steps share the machine). @default unlimited
   */
  readonly batchCapacity?: number;
  /** Send a usage chunk when asked. @default true */
  readonly usage?: boolean;
  /** Put the running usage on every chunk when `stream_options.continuous_usage_stats` asks. @default false */
  readonly continuousUsage?: boolean;
  /** Text of token `i` (the server's token). @default {@link mockToken} */
  readonly tokenText?: (i: number) => string;
  /** The first this many tokens of every response are thinking, streamed as `delta.reasoning_content`. @default 0 */
  readonly reasoningTokens?: number;
  /**
   * Answer `POST /tokenize` with this count of a text's tokens (ids 0…n−1, vLLM's `count` too); without it the route
   * is unknown (404).
   */
  readonly tokenize?: (text: string) => number;
  /**
   * Count prompts with this tokenizer (`usage.prompt_tokens`; 10 without it) and, with `prefixCache`, report the
   * tokens of the longest prefix a request shares with an earlier one as `prompt_tokens_details.cached_tokens`.
   */
  readonly promptTokens?: (text: string) => number;
  /** Report prefix-cache hits (needs `promptTokens`). @default false */
  readonly prefixCache?: boolean;
  /** Sees every completion request's body as parsed. */
  readonly onBody?: (body: unknown) => void;
  /**
   * Drop a connection that brings a second request, without answering (as llama-server does with the kept-alive
   * socket of a finished stream): the client finds its pooled socket closed. @default false
   */
  readonly oneRequestPerConnection?: boolean;
  /** Serve https with this PEM key and certificate (the URL is then `https://`). @default plain http */
  readonly tls?: { readonly key: string; readonly cert: string };
}

/** A running mock server. */
export interface MockServer {
  /** Base URL with `/v1`. */
  readonly url: string;
  /** Requests received so far. */
  readonly received: () => number;
  /** Stops it. */
  close(): Promise<void>;
}

const WORDS = [' the', ' of', ' and', ' to', ' in', ' is', ' that', ' for'];

/** Token `i` of every response. */
export const mockToken = (i: number): string => WORDS[i % WORDS.length] as string;

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Starts a mock server. */
export async function startMockServer(options: MockOptions = {}): Promise<MockServer> {
  const ttftMs = options.ttftMs ?? 20;
  const perTokenMs = options.perTokenMs ?? 5;
  const perChunk = options.tokensPerChunk ?? 1;
  const tokenText = options.tokenText ?? mockToken;
  const thinking = options.reasoningTokens ?? 0;
  let received = 0;
  const seenPrompts: string[] = [];
  let busy = 0;
  let generating = 0;
  const tokenDelay = (tokens: number): number =>
    perTokenMs * tokens * Math.max(1, generating / (options.batchCapacity ?? Number.POSITIVE_INFINITY));
  const queue: (() => void)[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const acquire = async (): Promise<void> => {
    if (options.capacity === undefined || busy < options.capacity) {
      busy++;
      return;
    }
    await new Promise<void>((r) => queue.push(r));
  };
  const release = (): void => {
    const next = queue.shift();
    if (next !== undefined) next();
    else busy--;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    if (req.url?.endsWith('/tokenize') === true) {
      const text = (JSON.parse(raw) as { prompt?: string }).prompt ?? '';
      if (options.tokenize === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const count = options.tokenize(text);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ count, tokens: Array.from({ length: count }, (_, i) => i), max_model_len: 4096 }),
      );
      return;
    }
    const n = received++;
    options.onBody?.(JSON.parse(raw));
    const body = JSON.parse(raw) as {
      max_tokens?: number;
      stream?: boolean;
      stream_options?: { include_usage?: boolean; continuous_usage_stats?: boolean };
      prompt?: string;
      messages?: { content: string }[];
    };
    const promptText = body.prompt ?? (body.messages ?? []).map((m) => m.content).join('\n');
    const promptTokens = options.promptTokens?.(promptText) ?? 10;
    let cached = 0;
    if (options.prefixCache === true && options.promptTokens !== undefined) {
      for (const earlier of seenPrompts) {
        let k = 0;
        while (k < earlier.length && k < promptText.length && earlier[k] === promptText[k]) k++;
        // Whole tokens of the shared text only (the text up to its last space).
        const shared = promptText.slice(0, k);
        const cut = k === promptText.length ? shared : shared.slice(0, Math.max(0, shared.lastIndexOf(' ')));
        cached = Math.max(cached, cut === '' ? 0 : options.promptTokens(cut));
      }
      seenPrompts.push(promptText);
    }
    const chat = req.url?.endsWith('/chat/completions') === true;
    const fault = options.fault?.(n);
    if (fault?.kind === 'http') {
      res.writeHead(fault.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `injected ${fault.status}`, type: 'server_error' } }));
      return;
    }
    await acquire();
    try {
      const tokens = body.max_tokens ?? 16;
      const object = chat ? 'chat.completion.chunk' : 'text_completion';
      // A chunk of tokens first … end − 1: thinking (chat only) then answer, each in its own field.
      const piece = (first: number, end: number) => {
        const words = (from: number, to: number): string =>
          Array.from({ length: Math.max(0, to - from) }, (_, k) => tokenText(from + k)).join('');
        const reasoning = chat ? words(first, Math.min(end, thinking)) : '';
        const answer = words(chat ? Math.max(first, thinking) : first, end);
        return chat
          ? {
              index: 0,
              delta: {
                ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
                ...(answer === '' ? {} : { content: answer }),
              },
              finish_reason: null,
            }
          : { index: 0, text: answer, finish_reason: null };
      };
      const usageAt = (done: number) => ({
        prompt_tokens: promptTokens,
        ...(options.prefixCache === true ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
        completion_tokens: done,
        total_tokens: promptTokens + done,
        ...(chat && thinking > 0
          ? { completion_tokens_details: { reasoning_tokens: Math.min(done, thinking) } }
          : {}),
      });
      const usage = usageAt(tokens);
      const running =
        options.continuousUsage === true && body.stream_options?.continuous_usage_stats === true;
      if (body.stream !== true) {
        await wait(ttftMs + perTokenMs * Math.max(0, tokens - 1));
        const text = Array.from({ length: tokens }, (_, i) => tokenText(i)).join('');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'x',
            object: chat ? 'chat.completion' : 'text_completion',
            created: 0,
            model: 'mock',
            choices: [
              chat
                ? { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'length' }
                : { index: 0, text, finish_reason: 'length' },
            ],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (data: string, event?: string): void => {
        res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`);
      };
      if (chat)
        send(JSON.stringify({ id: 'x', object, choices: [{ index: 0, delta: { role: 'assistant' } }] }));
      await wait(ttftMs);
      if (fault?.kind === 'stall') {
        await new Promise<void>((r) => res.on('close', r));
        return;
      }
      generating++;
      try {
        for (let i = 0; i < tokens; i += perChunk) {
          if (i > 0) await wait(tokenDelay(Math.min(perChunk, tokens - i)));
          if (fault !== undefined && 'afterTokens' in fault && i >= fault.afterTokens) {
            if (fault.kind === 'break') res.socket?.destroy();
            else if (fault.kind === 'event-error')
              send(JSON.stringify({ error: { message: 'injected event' } }), 'error');
            else send(JSON.stringify({ error: { message: 'injected chunk', type: 'server_error' } }));
            res.end();
            return;
          }
          const end = Math.min(tokens, i + perChunk);
          send(
            JSON.stringify({
              id: 'x',
              object,
              choices: [piece(i, end)],
              ...(running ? { usage: usageAt(end) } : {}),
            }),
          );
        }
      } finally {
        generating--;
      }
      if (options.usage !== false && body.stream_options?.include_usage === true)
        send(JSON.stringify({ id: 'x', object, choices: [], usage }));
      send('[DONE]');
      res.end();
    } finally {
      release();
    }
  };

  const served = new WeakSet<import('node:net').Socket>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (options.oneRequestPerConnection === true) {
      if (served.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
    }
    handle(req, res).catch(() => res.destroy());
  };
  const server: Server =
    options.tls === undefined ? createServer(listener) : createHttpsServer(options.tls, listener);
  // TCP sockets, also under TLS (closing one closes its TLS session), so close() ends every connection.
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/v1`,
    received: () => received,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
