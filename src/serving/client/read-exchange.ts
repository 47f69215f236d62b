/**
 * `readExchange`: what a recorded {@link RawExchange} says, read after the request finished (off the hot path):
 * the generated text piece by piece with each piece's arrival time, the server's `usage`, or why it failed —
 * HTTP status, timeout, connection, broken stream, an `event: error` or `{"error": …}` chunk, a body that is not
 * the API's.
 *
 * @packageDocumentation
 */

import type { Endpoint } from '../openai-protocol.js';
import {
  type ChatCompletionResponse,
  ChatCompletionResponseSchema,
  type CompletionResponse,
  CompletionResponseSchema,
  ErrorBodySchema,
  type ServerTimings,
  STREAM_DONE,
  type StreamChunk,
  StreamChunkSchema,
  type Usage,
} from '../openai-protocol.js';
import type { RawExchange } from './openai-client.js';
import { SseReader } from './sse-reader.js';

/** Why a request failed, as counted in the results. */
export type RequestErrorKind =
  /** The server answered with an HTTP error status. */
  | 'http'
  /** The per-request time limit passed. */
  | 'timeout'
  /** No connection (refused, unreachable, reset before the response). */
  | 'connection'
  /** The body was cut off, or a stream ended without `data: [DONE]`. */
  | 'broken-stream'
  /** The stream carried an `event: error` or a `{"error": …}` chunk. */
  | 'stream-error'
  /** The body is not an OpenAI response (bad JSON, wrong shape). */
  | 'invalid-response'
  /** The caller cancelled it. */
  | 'cancelled';

/** One piece of generated text and when its bytes arrived. */
export interface TextPiece {
  /** Arrival time of the chunk that completed the piece's event, in ms. */
  readonly atMs: number;
  /** The text. */
  readonly text: string;
}

/** A response that ended normally: its text pieces and the server's token counts. */
export interface ExchangeRead {
  /** Always `ok`. */
  readonly status: 'ok';
  /** When the request was sent, in ms. */
  readonly sentAtMs: number;
  /** When the last byte arrived, in ms. */
  readonly endedAtMs: number;
  /** Non-empty text pieces in order (one per SSE chunk; one for a whole response). */
  readonly pieces: readonly TextPiece[];
  /** What the server reported, when it did. */
  readonly usage?: Usage;
  /** The server's own timings (llama-server's `timings`), when it gave them. */
  readonly timings?: ServerTimings;
  /** Whether the response was streamed. */
  readonly streamed: boolean;
}

/** A request that failed, classified. */
export interface ExchangeFailed {
  /** Always `failed`. */
  readonly status: 'failed';
  /** When the request was sent, in ms. */
  readonly sentAtMs: number;
  /** When the failure was seen, in ms. */
  readonly endedAtMs: number;
  /** Its kind. */
  readonly kind: RequestErrorKind;
  /** HTTP status, for kind `http` (and when headers arrived). */
  readonly httpStatus?: number;
  /** What the server or socket said (first 200 characters). */
  readonly message: string;
}

/** What {@link readExchange} found: a union on `status`. */
export type ExchangeReading = ExchangeRead | ExchangeFailed;

const clip = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** The error message of a body that is an OpenAI error body, else the body's start. */
function errorMessage(text: string): string {
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) return clip(parsed.data.error.message);
  } catch {
    // not JSON: quote it
  }
  return clip(text.trim());
}

/** The new text of a streamed chunk (first choice; completions `text` or chat `delta.content`). */
function chunkText(chunk: StreamChunk): string {
  const choice = chunk.choices[0];
  return choice?.text ?? choice?.delta?.content ?? '';
}

/**
 * Reads a recorded exchange: a streamed body as Server-Sent Events, a whole body as the endpoint's JSON response.
 *
 * @param raw - What the client recorded.
 * @param endpoint - Which endpoint answered (decides the whole-response schema).
 * @param streamed - Whether the request asked for a stream.
 */
export function readExchange(raw: RawExchange, endpoint: Endpoint, streamed: boolean): ExchangeReading {
  const base = { sentAtMs: raw.sentAtMs, endedAtMs: raw.endedAtMs };
  const status = raw.httpStatus;
  const failed = (kind: RequestErrorKind, message: string, at = raw.endedAtMs): ExchangeFailed => ({
    status: 'failed',
    sentAtMs: raw.sentAtMs,
    endedAtMs: at,
    kind,
    message,
    ...(status === undefined ? {} : { httpStatus: status }),
  });
  if (status !== undefined && (status < 200 || status >= 300)) {
    return failed('http', errorMessage(Buffer.concat(raw.chunks).toString('utf8')));
  }
  if (!streamed) {
    if (raw.status === 'failed') return failed(raw.failure, raw.message);
    return readWhole(raw, endpoint, base, failed);
  }
  const reader = new SseReader();
  const pieces: TextPiece[] = [];
  let usage: Usage | undefined;
  let timings: ServerTimings | undefined;
  let done = false;
  const events = raw.chunks.flatMap((c, i) => reader.push(c, raw.chunkTimesMs[i] ?? raw.endedAtMs));
  events.push(...reader.end(raw.endedAtMs));
  for (const event of events) {
    if (event.event === 'error') return failed('stream-error', errorMessage(event.data), event.atMs);
    if (event.data.trim() === STREAM_DONE) {
      done = true;
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      return failed('invalid-response', `a chunk is not JSON: ${clip(event.data)}`, event.atMs);
    }
    if (typeof json === 'object' && json !== null && 'error' in json)
      return failed('stream-error', errorMessage(event.data), event.atMs);
    const chunk = StreamChunkSchema.safeParse(json);
    if (!chunk.success)
      return failed('invalid-response', `a chunk is not a stream chunk: ${clip(event.data)}`, event.atMs);
    const text = chunkText(chunk.data);
    if (text !== '') pieces.push({ atMs: event.atMs, text });
    if (chunk.data.usage) usage = chunk.data.usage;
    if (chunk.data.timings) timings = chunk.data.timings;
  }
  if (raw.status === 'failed') return failed(raw.failure, raw.message);
  if (!done) return failed('broken-stream', 'the stream ended without data: [DONE]');
  return {
    status: 'ok',
    ...base,
    pieces,
    ...(usage === undefined ? {} : { usage }),
    ...(timings === undefined ? {} : { timings }),
    streamed: true,
  };
}

function readWhole(
  raw: RawExchange,
  endpoint: Endpoint,
  base: { sentAtMs: number; endedAtMs: number },
  failed: (kind: RequestErrorKind, message: string) => ExchangeFailed,
): ExchangeReading {
  const body = Buffer.concat(raw.chunks).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return failed('invalid-response', `the body is not JSON: ${clip(body)}`);
  }
  if (typeof json === 'object' && json !== null && 'error' in json)
    return failed('stream-error', errorMessage(body));
  let text: string;
  let usage: Usage | undefined;
  let timings: ServerTimings | undefined;
  if (endpoint === 'chat') {
    const r = ChatCompletionResponseSchema.safeParse(json);
    if (!r.success) return failed('invalid-response', `not a chat completion: ${clip(body)}`);
    const response: ChatCompletionResponse = r.data;
    text = response.choices[0]?.message.content ?? '';
    usage = response.usage;
    timings = response.timings;
  } else {
    const r = CompletionResponseSchema.safeParse(json);
    if (!r.success) return failed('invalid-response', `not a completion: ${clip(body)}`);
    const response: CompletionResponse = r.data;
    text = response.choices[0]?.text ?? '';
    usage = response.usage;
    timings = response.timings;
  }
  const last = raw.chunkTimesMs.at(-1) ?? raw.endedAtMs;
  return {
    status: 'ok',
    ...base,
    pieces: text === '' ? [] : [{ atMs: last, text }],
    ...(usage === undefined ? {} : { usage }),
    ...(timings === undefined ? {} : { timings }),
    streamed: false,
  };
}
