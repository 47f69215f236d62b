/**
 * Token accounting of a streamed response, done after the request finished: how many tokens each chunk carried
 * (a chunk may carry several), counted with the served model's tokenizer on the growing text — tokens of chunk k
 * = count(text up to chunk k) − count(text up to chunk k − 1) — and the per-token timings that follow from it
 * (TTFT, time to second token, inter-token latency per token, TPOT, end-to-end).
 *
 * @packageDocumentation
 */
import type { Tokenizer } from '../../models/tokenizer.js';
import type { ExchangeFailed, ExchangeRead, RequestErrorKind, TextPiece } from './read-exchange.js';

/**
 * Tokens of each piece, in tokens: differences of the token counts of the growing text, so they add up to the
 * count of the whole text exactly. A piece whose text merges with the one before into fewer tokens can count 0
 * or, rarely, −1: kept as is so that the sum stays exact.
 */
export function pieceTokenCounts(
  pieces: readonly Pick<TextPiece, 'text'>[],
  tokenizer: Pick<Tokenizer, 'encode'>,
): number[] {
  const counts: number[] = [];
  let text = '';
  let before = 0;
  for (const piece of pieces) {
    text += piece.text;
    const now = tokenizer.encode(text).length;
    counts.push(now - before);
    before = now;
  }
  return counts;
}

/** Per-token timings of one successful request, in milliseconds from its send time. */
export interface TokenTimings {
  /** Time to first token: first piece carrying a token; `NaN` for a whole (not streamed) response or no token. */
  readonly ttftMs: number;
  /** Time to second token: arrival of the piece that carries token 2; `NaN` with fewer than 2 tokens or no stream. */
  readonly ttstMs: number;
  /** End-to-end latency: send to last byte. */
  readonly e2eMs: number;
  /**
   * Inter-token latencies, one per token after the first piece's: each later piece's gap since the piece before
   * (that carried tokens), spread evenly over its tokens.
   */
  readonly itlMs: readonly number[];
  /** Time per output token after the first: (e2e − TTFT) / (tokens − 1); `NaN` with fewer than 2 tokens. */
  readonly tpotMs: number;
  /** Output tokens counted by the client. */
  readonly outputTokens: number;
  /** Tokens of each piece, in order. */
  readonly chunkTokens: readonly number[];
}

/** Computes the {@link TokenTimings} of a successful exchange. */
export function tokenTimings(read: ExchangeRead, tokenizer: Pick<Tokenizer, 'encode'>): TokenTimings {
  const counts = pieceTokenCounts(read.pieces, tokenizer);
  const outputTokens = counts.reduce((a, b) => a + b, 0);
  const e2eMs = read.endedAtMs - read.sentAtMs;
  if (!read.streamed) {
    return {
      ttftMs: Number.NaN,
      ttstMs: Number.NaN,
      e2eMs,
      itlMs: [],
      tpotMs: Number.NaN,
      outputTokens,
      chunkTokens: counts,
    };
  }
  let ttftMs = Number.NaN;
  let ttstMs = Number.NaN;
  let seen = 0;
  let lastAt: number | undefined;
  const itlMs: number[] = [];
  for (const [i, piece] of read.pieces.entries()) {
    const n = counts[i] ?? 0;
    if (n <= 0) continue;
    if (lastAt === undefined) ttftMs = piece.atMs - read.sentAtMs;
    else {
      const gap = (piece.atMs - lastAt) / n;
      for (let k = 0; k < n; k++) itlMs.push(gap);
    }
    if (seen < 2 && seen + n >= 2) ttstMs = piece.atMs - read.sentAtMs;
    seen += n;
    lastAt = piece.atMs;
  }
  const tpotMs =
    outputTokens >= 2 && Number.isFinite(ttftMs) ? (e2eMs - ttftMs) / (outputTokens - 1) : Number.NaN;
  return { ttftMs, ttstMs, e2eMs, itlMs, tpotMs, outputTokens, chunkTokens: counts };
}

/** Where a request stood against the load's plan, in milliseconds from the start of its sweep point. */
export interface RequestPlacement {
  /** Position of the request in its sweep point, from 0. */
  readonly index: number;
  /** Planned send time. */
  readonly plannedMs: number;
  /** Actual send time. */
  readonly sentMs: number;
  /** Whether it counts in the statistics (outside the warm-up and cool-down windows). */
  readonly measured: boolean;
}

/** A request that ended normally, measured. */
export interface SucceededRequest extends RequestPlacement, TokenTimings {
  /** Always `ok`. */
  readonly status: 'ok';
  /** Completion tokens the server reported in `usage`, or `null` when it did not. */
  readonly serverTokens: number | null;
  /** Prompt tokens the server reported, or `null`. */
  readonly serverPromptTokens: number | null;
  /** Prefill time the server reported (llama-server's `timings.prompt_ms`), ms, or `null`. */
  readonly serverPromptMs: number | null;
  /** Time per generated token the server reported (`timings.predicted_per_token_ms`), ms, or `null`. */
  readonly serverTpotMs: number | null;
}

/** A request that failed, classified. */
export interface FailedRequest extends RequestPlacement {
  /** Always `failed`. */
  readonly status: 'failed';
  /** The kind of failure. */
  readonly kind: RequestErrorKind;
  /** HTTP status, when the server answered. */
  readonly httpStatus?: number;
  /** What was said (first 200 characters). */
  readonly message: string;
  /** Send to failure, in ms. */
  readonly e2eMs: number;
}

/** One request of a load, measured: a union on `status`. */
export type RequestRecord = SucceededRequest | FailedRequest;

/**
 * The {@link RequestRecord} of an exchange, given where it stood in the plan. `originMs` is the sweep point's start
 * on the exchange's clock.
 */
export function requestRecord(
  reading: ExchangeRead | ExchangeFailed,
  tokenizer: Pick<Tokenizer, 'encode'>,
  placement: Omit<RequestPlacement, 'sentMs'>,
  originMs: number,
): RequestRecord {
  const sentMs = reading.sentAtMs - originMs;
  if (reading.status === 'failed') {
    return {
      ...placement,
      sentMs,
      status: 'failed',
      kind: reading.kind,
      ...(reading.httpStatus === undefined ? {} : { httpStatus: reading.httpStatus }),
      message: reading.message,
      e2eMs: reading.endedAtMs - reading.sentAtMs,
    };
  }
  return {
    ...placement,
    sentMs,
    status: 'ok',
    ...tokenTimings(reading, tokenizer),
    serverTokens: reading.usage?.completion_tokens ?? null,
    serverPromptTokens: reading.usage?.prompt_tokens ?? null,
    serverPromptMs: reading.timings?.prompt_ms ?? null,
    serverTpotMs: reading.timings?.predicted_per_token_ms ?? null,
  };
}
