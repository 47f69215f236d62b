/**
 * Token accounting of a streamed response, done after the request finished. A request's output tokens are the
 * server's whenever it reports them (`usage.completion_tokens`, or a count its `/tokenize` endpoint gave); the
 * client's tokenizer only decides how those tokens spread over the chunks that carried them, and stands in for the
 * server's count only when the server gave none. From the tokens of each piece follow the per-token timings: TTFT,
 * time to second token, time to first answer token, inter-token latency per token, TPOT and end-to-end.
 *
 * @packageDocumentation
 */
import type { Tokenizer } from '../../models/tokenizer.js';
import type {
  ExchangeFailed,
  ExchangeRead,
  RequestErrorKind,
  TextChannel,
  TextPiece,
} from './read-exchange.js';

/**
 * Tokens of each piece by `tokenizer`, in tokens: per channel, differences of the token counts of the channel's
 * growing text, so that a channel's pieces add up to the count of its whole text exactly. A piece whose text merges
 * with the one before into fewer tokens can count 0 or, rarely, −1: kept as is so that the sums stay exact.
 */
export function pieceTokenCounts(
  pieces: readonly Pick<TextPiece, 'text' | 'channel'>[],
  tokenizer: Pick<Tokenizer, 'encode'>,
): number[] {
  const text = new Map<TextChannel, string>();
  const before = new Map<TextChannel, number>();
  return pieces.map((piece) => {
    const grown = (text.get(piece.channel) ?? '') + piece.text;
    const now = tokenizer.encode(grown).length;
    const counted = now - (before.get(piece.channel) ?? 0);
    text.set(piece.channel, grown);
    before.set(piece.channel, now);
    return counted;
  });
}

/**
 * `total` whole units spread over slots in proportion to `weights` (negative weights count as 0; all-zero weights as
 * equal), by largest remainder: each slot gets the floor of its quota, then the units left go to the largest
 * fractional parts, the earlier slot first on a tie. The result adds up to `total` exactly.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const w = weights.map((x) => Math.max(0, x));
  let sum = w.reduce((a, b) => a + b, 0);
  if (sum === 0) {
    w.fill(1);
    sum = w.length;
  }
  const quotas = w.map((x) => (total * x) / sum);
  const out = quotas.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = quotas
    .map((q, i) => ({ i, frac: q - Math.floor(q) }))
    .sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    out[i] = (out[i] ?? 0) + 1;
    left--;
  }
  return out;
}

/** Where a request's output token count comes from: the server (`usage`, or its `/tokenize`) or the client's tokenizer. */
export const TOKEN_SOURCES = ['server', 'client'] as const;

/** One of {@link TOKEN_SOURCES}. */
export type TokenSource = (typeof TOKEN_SOURCES)[number];

/**
 * How a request's tokens can be placed on the chunks that carried them, which its per-token timings (ITL, time to
 * second token) rest on:
 * - `server`: every chunk carried the server's running count (`continuous_usage_stats`): exact;
 * - `tokenizer`: the client's tokenizer counted each chunk, and its total is the server's (or the server gave none);
 * - `one-per-chunk`: the server's total equals the number of chunks: one token each;
 * - `proportional`: the server's total spread over the chunks in proportion to the client's counts, because the
 *   client's tokenizer is not the server's: exact in total, approximate within a request.
 */
export const TOKEN_SPLITS = ['server', 'tokenizer', 'one-per-chunk', 'proportional'] as const;

/** One of {@link TOKEN_SPLITS}. */
export type TokenSplit = (typeof TOKEN_SPLITS)[number];

/** A request's output tokens: how many, whose count, and how they lie on its pieces. */
export interface TokenCounts {
  /** Output tokens (the server's when it gave a count). */
  readonly total: number;
  /** Whose count {@link TokenCounts.total} is. */
  readonly source: TokenSource;
  /** How the tokens were placed on the pieces. */
  readonly split: TokenSplit;
  /** Output tokens by the client's tokenizer (what it would have counted alone). */
  readonly clientTotal: number;
  /** Tokens of each piece, in order; they add up to {@link TokenCounts.total}. */
  readonly perPiece: readonly number[];
  /** Of the total, tokens of thinking (the server's `reasoning_tokens` when it gave them). */
  readonly reasoning: number;
}

/** Indices of the pieces of each stream event, in order. */
function eventGroups(pieces: readonly TextPiece[]): number[][] {
  const groups: number[][] = [];
  for (const [i, piece] of pieces.entries()) {
    const last = groups.at(-1);
    if (last !== undefined && pieces[last[0] as number]?.event === piece.event) last.push(i);
    else groups.push([i]);
  }
  return groups;
}

/**
 * The pieces' tokens from the server's running counts, when every event that carried text also carried one (and
 * they never fall); `undefined` otherwise. An event of two pieces (thinking and answer in one chunk) has its
 * tokens spread over them as the client counted them.
 */
function serverSplit(pieces: readonly TextPiece[], client: readonly number[]): number[] | undefined {
  const groups = eventGroups(pieces);
  const out = new Array<number>(pieces.length).fill(0);
  let before = 0;
  for (const group of groups) {
    const soFar = pieces[group.at(-1) as number]?.serverTokensSoFar;
    if (soFar === undefined || soFar < before) return undefined;
    const shares = apportion(
      soFar - before,
      group.map((i) => client[i] ?? 0),
    );
    for (const [k, i] of group.entries()) out[i] = shares[k] ?? 0;
    before = soFar;
  }
  return out;
}

/**
 * Counts a successful exchange's output tokens. `serverTotal` is a count the server gave outside the stream (its
 * `/tokenize` of the whole text) for a response without `usage`; `usage.completion_tokens` wins over it.
 */
export function countTokens(
  read: Pick<ExchangeRead, 'pieces' | 'usage'>,
  tokenizer: Pick<Tokenizer, 'encode'>,
  serverTotal?: number,
): TokenCounts {
  const { pieces } = read;
  const client = pieceTokenCounts(pieces, tokenizer);
  const clientTotal = client.reduce((a, b) => a + b, 0);
  const running = pieces.length > 0 ? serverSplit(pieces, client) : undefined;
  const reported = read.usage?.completion_tokens ?? running?.reduce((a, b) => a + b, 0) ?? serverTotal;
  let perPiece: readonly number[];
  let split: TokenSplit;
  if (reported === undefined) {
    perPiece = client;
    split = 'tokenizer';
  } else if (running !== undefined && running.reduce((a, b) => a + b, 0) === reported) {
    perPiece = running;
    split = 'server';
  } else if (clientTotal === reported) {
    perPiece = client;
    split = 'tokenizer';
  } else if (reported === pieces.length) {
    perPiece = pieces.map(() => 1);
    split = 'one-per-chunk';
  } else {
    perPiece = apportion(reported, client);
    split = 'proportional';
  }
  const total = reported ?? clientTotal;
  const thought = pieces.reduce((s, p, i) => s + (p.channel === 'reasoning' ? (perPiece[i] ?? 0) : 0), 0);
  const reasoning = read.usage?.completion_tokens_details?.reasoning_tokens ?? thought;
  return {
    total,
    source: reported === undefined ? 'client' : 'server',
    split,
    clientTotal,
    perPiece,
    reasoning,
  };
}

/** Per-token timings of one successful request, in milliseconds from its send time. */
export interface TokenTimings {
  /** Time to first token: the first piece of text of any channel (thinking too); `NaN` for a whole response. */
  readonly ttftMs: number;
  /** Time to second token: arrival of the piece that carries token 2; `NaN` with fewer than 2 tokens or no stream. */
  readonly ttstMs: number;
  /** Time to the first token of the answer (after any thinking); `NaN` without answer text or stream. */
  readonly ttfaMs: number;
  /** End-to-end latency: send to last byte. */
  readonly e2eMs: number;
  /**
   * Inter-token latencies, one per token after the first piece's: each later piece's gap since the piece before
   * (that carried tokens), spread evenly over its tokens.
   */
  readonly itlMs: readonly number[];
  /** Time per output token after the first: (e2e − TTFT) / (tokens − 1); `NaN` with fewer than 2 tokens. */
  readonly tpotMs: number;
  /** Output tokens (see {@link TokenCounts.total}). */
  readonly outputTokens: number;
  /** Output tokens by the client's tokenizer. */
  readonly clientTokens: number;
  /** Whose count `outputTokens` is. */
  readonly tokenSource: TokenSource;
  /** How the tokens were placed on the pieces. */
  readonly tokenSplit: TokenSplit;
  /** Of the output tokens, tokens of thinking. */
  readonly reasoningTokens: number;
  /** Tokens of each piece, in order. */
  readonly chunkTokens: readonly number[];
  /** Arrival time of each piece, in ms from the send: what the request timeline draws. */
  readonly chunkAtMs: readonly number[];
}

/** Computes the {@link TokenTimings} of a successful exchange; `serverTotal` as in {@link countTokens}. */
export function tokenTimings(
  read: ExchangeRead,
  tokenizer: Pick<Tokenizer, 'encode'>,
  serverTotal?: number,
): TokenTimings {
  const counts = countTokens(read, tokenizer, serverTotal);
  const e2eMs = read.endedAtMs - read.sentAtMs;
  const common = {
    e2eMs,
    outputTokens: counts.total,
    clientTokens: counts.clientTotal,
    tokenSource: counts.source,
    tokenSplit: counts.split,
    reasoningTokens: counts.reasoning,
    chunkTokens: counts.perPiece,
    chunkAtMs: read.pieces.map((p) => p.atMs - read.sentAtMs),
  };
  if (!read.streamed)
    return {
      ...common,
      ttftMs: Number.NaN,
      ttstMs: Number.NaN,
      ttfaMs: Number.NaN,
      itlMs: [],
      tpotMs: Number.NaN,
    };
  const first = read.pieces[0];
  const ttftMs = first === undefined ? Number.NaN : first.atMs - read.sentAtMs;
  const answer = read.pieces.find((p) => p.channel === 'answer');
  const ttfaMs = answer === undefined ? Number.NaN : answer.atMs - read.sentAtMs;
  let ttstMs = Number.NaN;
  let seen = 0;
  let lastAt: number | undefined;
  const itlMs: number[] = [];
  for (const [i, piece] of read.pieces.entries()) {
    const n = counts.perPiece[i] ?? 0;
    if (n <= 0) continue;
    if (lastAt !== undefined) {
      const gap = (piece.atMs - lastAt) / n;
      for (let k = 0; k < n; k++) itlMs.push(gap);
    }
    if (seen < 2 && seen + n >= 2) ttstMs = piece.atMs - read.sentAtMs;
    seen += n;
    lastAt = piece.atMs;
  }
  const tpotMs =
    counts.total >= 2 && Number.isFinite(ttftMs) ? (e2eMs - ttftMs) / (counts.total - 1) : Number.NaN;
  return { ...common, ttftMs, ttstMs, ttfaMs, itlMs, tpotMs };
}

/** Where a request stood against the load's plan, in milliseconds from the start of its sweep point. */
export interface RequestPlacement {
  /** Position of the request in its sweep point, from 0 (a conversation's: all its turns share it). */
  readonly index: number;
  /** Turn of its conversation, from 0 (0 for a single request). */
  readonly turn: number;
  /** Planned send time (a closed loop's request is planned when its virtual user is ready: when it is sent). */
  readonly plannedMs: number;
  /**
   * Time the request waited for a free slot after its planned time (`--concurrency` reached), in ms; 0 when a slot
   * was free, and always 0 in a closed loop, where a request is planned when a slot frees.
   */
  readonly queueMs: number;
  /** Actual send time. */
  readonly sentMs: number;
  /** Whether it counts in the statistics (outside the warm-up and cool-down windows). */
  readonly measured: boolean;
}

/** A request that ended normally, measured. */
export interface SucceededRequest extends RequestPlacement, TokenTimings {
  /** Always `ok`. */
  readonly status: 'ok';
  /** Prompt tokens the workload planned (by the client's tokenizer). */
  readonly plannedInputTokens: number;
  /** Completion tokens the server reported in `usage`, or `null` when it did not. */
  readonly serverTokens: number | null;
  /** Prompt tokens the server reported, or `null`. */
  readonly serverPromptTokens: number | null;
  /** Prompt tokens the server took from its prefix cache (`usage.prompt_tokens_details.cached_tokens`), or `null`. */
  readonly cachedTokens: number | null;
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

/** What {@link requestRecord} needs to know of a request besides its exchange. */
export interface RecordContext {
  /** Where it stood in the plan (its send time comes from the exchange). */
  readonly placement: Omit<RequestPlacement, 'sentMs'>;
  /** The sweep point's start on the exchange's clock, in ms. */
  readonly originMs: number;
  /** Prompt tokens the workload planned. */
  readonly plannedInputTokens: number;
  /** A count of the output the server gave outside the stream (its `/tokenize`), for a response without `usage`. */
  readonly serverTotal?: number | undefined;
}

/** The {@link RequestRecord} of an exchange. */
export function requestRecord(
  reading: ExchangeRead | ExchangeFailed,
  tokenizer: Pick<Tokenizer, 'encode'>,
  context: RecordContext,
): RequestRecord {
  const { placement, originMs } = context;
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
    ...tokenTimings(reading, tokenizer, context.serverTotal),
    plannedInputTokens: context.plannedInputTokens,
    serverTokens: reading.usage?.completion_tokens ?? null,
    serverPromptTokens: reading.usage?.prompt_tokens ?? null,
    cachedTokens: reading.usage?.prompt_tokens_details?.cached_tokens ?? null,
    serverPromptMs: reading.timings?.prompt_ms ?? null,
    serverTpotMs: reading.timings?.predicted_per_token_ms ?? null,
  };
}
