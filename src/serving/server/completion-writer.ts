/**
 * Writes a generation as the OpenAI API does: one whole JSON response, or Server-Sent Events — `data: {json}`
 * chunks (chat: a first chunk with the assistant role), a last chunk with the `finish_reason`, with
 * `stream_options.include_usage` a chunk with empty `choices` and the `usage` (every other chunk then says
 * `"usage": null`), and `data: [DONE]`.
 *
 * @packageDocumentation
 */
import type { ServerResponse } from 'node:http';
import type { Endpoint } from '../openai-protocol.js';
import {
  type ChatCompletionResponse,
  type CompletionResponse,
  type ServerTimings,
  STREAM_DONE,
  type StreamChoice,
  type StreamChunk,
  type Usage,
} from '../openai-protocol.js';
import type { ApiFailure } from './api-failure.js';
import type { GenerationOutcome } from './batch-scheduler.js';

/** The fields every response and chunk of one request shares. */
export interface ResponseMeta {
  /** Response id (`cmpl-…`, `chatcmpl-…`). */
  readonly id: string;
  /** Creation time, in seconds since the Unix epoch. */
  readonly created: number;
  /** The served model's name. */
  readonly model: string;
}

/**
 * A generation's {@link ServerTimings}, in llama-server's format so that one client reads both servers: the
 * prompt's tokens and the time of the prefill it ran in (shared with the prompts batched with it), the generated
 * tokens and the time from the end of that prefill to the last of them, all rounded to 1 µs.
 */
export function generationTimings(
  outcome: Pick<GenerationOutcome, 'tokens' | 'prefillMs' | 'decodeMs'>,
  promptTokens: number,
): ServerTimings {
  const n = outcome.tokens.length;
  const us = (ms: number): number => Math.round(ms * 1000) / 1000;
  return {
    prompt_n: promptTokens,
    prompt_ms: us(outcome.prefillMs),
    predicted_n: n,
    predicted_ms: us(outcome.decodeMs),
    predicted_per_token_ms: n === 0 ? 0 : us(outcome.decodeMs / n),
  };
}

/** The whole (non-streamed) response of `endpoint`. */
export function wholeResponse(
  endpoint: Endpoint,
  meta: ResponseMeta,
  text: string,
  finishReason: string,
  usage: Usage,
  timings: ServerTimings,
): CompletionResponse | ChatCompletionResponse {
  if (endpoint === 'chat') {
    return {
      ...meta,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }],
      usage,
      timings,
    };
  }
  return {
    ...meta,
    object: 'text_completion',
    choices: [{ index: 0, text, finish_reason: finishReason }],
    usage,
    timings,
  };
}

/** A streamed response being written (see {@link streamGeneration}). */
export interface GenerationStream {
  /** Sends the headers (and, for chat, the role chunk); called once, before the first token. */
  start(): void;
  /** Sends `piece` of generated text as a chunk (nothing when it is empty). */
  text(piece: string): void;
  /**
   * Sends the text held back, the finish chunk (with the `timings`), the usage chunk when asked, `[DONE]`, and
   * ends the response.
   */
  end(rest: string, finishReason: string, usage: Usage, timings: ServerTimings): void;
  /** Sends `failure`'s error body as a chunk, then `[DONE]`, and ends the response. */
  fail(failure: ApiFailure): void;
}

/** A Server-Sent Events writer of one generation on `res`. */
export function streamGeneration(
  res: ServerResponse,
  endpoint: Endpoint,
  meta: ResponseMeta,
  includeUsage: boolean,
): GenerationStream {
  const object = endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  const send = (data: string): void => {
    if (!res.writableEnded && !res.destroyed) res.write(`data: ${data}\n\n`);
  };
  const chunk = (choices: StreamChoice[], usage?: Usage, timings?: ServerTimings): void => {
    const value: StreamChunk = {
      ...meta,
      object,
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
      ...(timings === undefined ? {} : { timings }),
    };
    send(JSON.stringify(value));
  };
  const choice = (text: string, finishReason: string | null, role?: string): StreamChoice =>
    endpoint === 'chat'
      ? {
          index: 0,
          delta: role === undefined ? (text === '' ? {} : { content: text }) : { role, content: '' },
          finish_reason: finishReason,
        }
      : { index: 0, text, finish_reason: finishReason };
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    if (endpoint === 'chat') chunk([choice('', null, 'assistant')]);
    else res.flushHeaders();
  };
  const finish = (): void => {
    send(STREAM_DONE);
    res.end();
  };
  return {
    start,
    text(piece) {
      start();
      if (piece !== '') chunk([choice(piece, null)]);
    },
    end(rest, finishReason, usage, timings) {
      start();
      if (rest !== '') chunk([choice(rest, null)]);
      chunk([choice('', finishReason)], undefined, timings);
      if (includeUsage) chunk([], usage);
      finish();
    },
    fail(failure) {
      start();
      send(JSON.stringify(failure.body));
      finish();
    },
  };
}
