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
import type { RawExchange } from './http-connection.js';
import { type BodyPiece, bodyPieces, FramingError } from './response-framer.js';
import { SseReader } from './sse-reader.js';

/**
 * Why a request failed, as counted in the results: `http` (the server answered with an HTTP error status),
 * `timeout` (the per-request time limit passed), `connection` (no connection: refused, unreachable, reset before the
 * response), `broken-stream` (the body was cut off, or a stream ended without `data: [DONE]`), `stream-error` (the
 * stream carried an `event: error` or a `{"error": …}` chunk), `invalid-response` (the body is not an OpenAI
 * response: bad JSON, wrong shape), `cancelled` (the caller cancelled it).
 */
export const REQUEST_ERROR_KINDS = [
  'http',
  'timeout',
  'connection',
  'broken-stream',
  'stream-error',
  'invalid-response',
  'cancelled',
] as const;

/** Why a request failed: one of {@link REQUEST_ERROR_KINDS}. */
export type RequestErrorKind = (typeof REQUEST_ERROR_KINDS)[number];

/** Which part of a reasoning model's output a piece of text belongs to: its thinking or its answer. */
export type TextChannel = 'reasoning' | 'answer';

/** One piece of generated text and when its bytes arrived. */
export interface TextPiece {
  /** Arrival time of the chunk that completed the piece's event, in ms. */
  readonly atMs: number;
  /** The text. */
  readonly text: string;
  /** Thinking (`reasoning_content` / `reasoning`) or answer (`text` / `content`). */
  readonly channel: TextChannel;
  /** Index of the stream event (SSE `data:` chunk) that carried it, from 0; a chunk may carry one piece a channel. */
  readonly event: number;
  /**
   * Tokens generated so far by the server's count, when the chunk carried a running `usage` (vLLM's and SGLang's
   * `continuous_usage_stats`): set on the last piece of its event.
   */
  readonly serverTokensSoFar?: number;
}

/** A response that ended normally: its text pieces and the server's token counts. */
export interface ExchangeRead {
  /** Always `ok`. */
  readonly status: 'ok';
  /** When the request was sent, in ms. */
  readonly sentAtMs: number;
  /** When the last byte arrived, in ms. */
  readonly endedAtMs: number;
  /** Non-empty text pieces in order (one per SSE chunk and channel; one per channel for a whole response). */
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

/** The new text of a streamed chunk's first choice by channel: thinking first, as servers send it. */
function chunkTexts(chunk: StreamChunk): { channel: TextChannel; text: string }[] {
  const choice = chunk.choices[0];
  const delta = choice?.delta;
  const out: { channel: TextChannel; text: string }[] = [];
  const reasoning = delta?.reasoning_content ?? delta?.reasoning ?? '';
  if (reasoning !== '') out.push({ channel: 'reasoning', text: reasoning });
  const answer = choice?.text ?? delta?.content ?? '';
  if (answer !== '') out.push({ channel: 'answer', text: answer });
  return out;
}

/**
 * The body of a recorded exchange, piece by piece with arrival times: what arrived of it when the exchange failed
 * (nothing when even the response's head did not).
 */
function recordedBody(raw: RawExchange): BodyPiece[] {
  try {
    return bodyPieces(raw.reads).pieces;
  } catch (error) {
    if (error instanceof FramingError) return [];
    throw error;
  }
}

/** The body as UTF-8 text. */
const bodyText = (pieces: readonly BodyPiece[]): string =>
  Buffer.concat(pieces.map((p) => p.bytes)).toString('utf8');

/**
 * Reads a recorded exchange: a streamed body as Server-Sent Events, a whole body as the endpoint's JSON response.
 *
 * @param raw - What the client recorded.
 * @param endpoint - Which endpoint answered (decides the whole-response schema).
 * @param streamed - Whether the request asked for a stream.
 */
export function readExchange(raw: RawExchange, endpoint: Endpoint, streamed: boolean): ExchangeReading {
  const base = { sentAtMs: raw.sentAtMs, endedAtMs: raw.endedAtMs };
  const body = recordedBody(raw);
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
    return failed('http', errorMessage(bodyText(body)));
  }
  if (!streamed) {
    if (raw.status === 'failed') return failed(raw.failure, raw.message);
    return readWhole(body, endpoint, base, failed);
  }
  const reader = new SseReader();
  const pieces: TextPiece[] = [];
  let usage: Usage | undefined;
  let timings: ServerTimings | undefined;
  let done = false;
  const events = body.flatMap((piece) => reader.push(piece.bytes, piece.atMs));
  events.push(...reader.end(raw.endedAtMs));
  for (const [index, event] of events.entries()) {
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
    const texts = chunkTexts(chunk.data);
    const soFar = chunk.data.choices.length > 0 ? chunk.data.usage?.completion_tokens : undefined;
    for (const [k, { channel, text }] of texts.entries())
      pieces.push({
        atMs: event.atMs,
        text,
        channel,
        event: index,
        ...(soFar === undefined || k < texts.length - 1 ? {} : { serverTokensSoFar: soFar }),
      });
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
  pieces: readonly BodyPiece[],
  endpoint: Endpoint,
  base: { sentAtMs: number; endedAtMs: number },
  failed: (kind: RequestErrorKind, message: string) => ExchangeFailed,
): ExchangeReading {
  const body = bodyText(pieces);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return failed('invalid-response', `the body is not JSON: ${clip(body)}`);
  }
  if (typeof json === 'object' && json !== null && 'error' in json)
    return failed('stream-error', errorMessage(body));
  let text: string;
  let reasoning = '';
  let usage: Usage | undefined;
  let timings: ServerTimings | undefined;
  if (endpoint === 'chat') {
    const r = ChatCompletionResponseSchema.safeParse(json);
    if (!r.success) return failed('invalid-response', `not a chat completion: ${clip(body)}`);
    const response: ChatCompletionResponse = r.data;
    const message = response.choices[0]?.message;
    text = message?.content ?? '';
    reasoning = message?.reasoning_content ?? message?.reasoning ?? '';
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
  const last = pieces.at(-1)?.atMs ?? base.endedAtMs;
  return {
    status: 'ok',
    ...base,
    pieces: [
      ...(reasoning === '' ? [] : [{ atMs: last, text: reasoning, channel: 'reasoning' as const, event: 0 }]),
      ...(text === '' ? [] : [{ atMs: last, text, channel: 'answer' as const, event: 0 }]),
    ],
    ...(usage === undefined ? {} : { usage }),
    ...(timings === undefined ? {} : { timings }),
    streamed: false,
  };
}
