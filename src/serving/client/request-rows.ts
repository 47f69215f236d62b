/**
 * A load's requests on disk: `requests.jsonl`, one whole {@link RequestRecord} a line (with its sweep point and that
 * point's start on the wall clock) — what a merge of several client processes recomputes a point from — and
 * `requests.csv`, one row a request with its scalar figures, for people and spreadsheets.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { CsvValue } from '../../benchmarking/csv.js';
import { DantinoxError } from '../../errors.js';
import { parseJsonLines } from '../../json-lines.js';
import { messages } from '../../messages.js';
import { readTextFile } from '../../text-file.js';
import { REQUEST_ERROR_KINDS } from './read-exchange.js';
import { lateness } from './serving-metrics.js';
import { type RequestRecord, TOKEN_SOURCES, TOKEN_SPLITS } from './token-accounting.js';

/** One line of `requests.jsonl`: a request of a sweep point. */
export type RequestLine = RequestRecord & {
  /** The sweep point's cell id, e.g. `concurrency=4,rate=inf`. */
  readonly point: string;
  /** The point's start (its time 0) on the wall clock, in ms since the Unix epoch. */
  readonly originEpochMs: number;
};

/** The columns of `requests.csv`, in order (times in ms from the point's start; tokens in tokens). */
export const REQUEST_COLUMNS = [
  'point',
  'index',
  'turn',
  'status',
  'measured',
  'planned_ms',
  'queue_ms',
  'sent_ms',
  'lateness_ms',
  'ttft_ms',
  'ttst_ms',
  'ttfa_ms',
  'tpot_ms',
  'itl_mean_ms',
  'e2e_ms',
  'output_tokens',
  'reasoning_tokens',
  'client_tokens',
  'token_source',
  'token_split',
  'chunks',
  'planned_input_tokens',
  'server_prompt_tokens',
  'cached_tokens',
  'server_prompt_ms',
  'server_tpot_ms',
  'error_kind',
  'http_status',
  'error',
] as const;

/** The `requests.csv` row of a request of sweep point `point`. */
export function requestCsvRow(
  point: string,
  r: RequestRecord,
): Record<(typeof REQUEST_COLUMNS)[number], CsvValue> {
  const common = {
    point,
    index: r.index,
    turn: r.turn,
    status: r.status,
    measured: r.measured,
    planned_ms: r.plannedMs,
    queue_ms: r.queueMs,
    sent_ms: r.sentMs,
    lateness_ms: lateness(r),
    e2e_ms: r.e2eMs,
  };
  const none = {
    ttft_ms: undefined,
    ttst_ms: undefined,
    ttfa_ms: undefined,
    tpot_ms: undefined,
    itl_mean_ms: undefined,
    output_tokens: undefined,
    reasoning_tokens: undefined,
    client_tokens: undefined,
    token_source: undefined,
    token_split: undefined,
    chunks: undefined,
    planned_input_tokens: undefined,
    server_prompt_tokens: undefined,
    cached_tokens: undefined,
    server_prompt_ms: undefined,
    server_tpot_ms: undefined,
    error_kind: undefined,
    http_status: undefined,
    error: undefined,
  };
  if (r.status === 'failed')
    return { ...common, ...none, error_kind: r.kind, http_status: r.httpStatus, error: r.message };
  return {
    ...common,
    ...none,
    ttft_ms: r.ttftMs,
    ttst_ms: r.ttstMs,
    ttfa_ms: r.ttfaMs,
    tpot_ms: r.tpotMs,
    itl_mean_ms: r.itlMs.length === 0 ? Number.NaN : r.itlMs.reduce((a, b) => a + b, 0) / r.itlMs.length,
    output_tokens: r.outputTokens,
    reasoning_tokens: r.reasoningTokens,
    client_tokens: r.clientTokens,
    token_source: r.tokenSource,
    token_split: r.tokenSplit,
    chunks: r.chunkTokens.length,
    planned_input_tokens: r.plannedInputTokens,
    server_prompt_tokens: r.serverPromptTokens,
    cached_tokens: r.cachedTokens,
    server_prompt_ms: r.serverPromptMs,
    server_tpot_ms: r.serverTpotMs,
  };
}

/** `NaN` is written as `null` in JSON: read it back. */
const ms = z
  .number()
  .nullable()
  .transform((v) => v ?? Number.NaN);
const count = z.number().int();
const orNull = <T extends z.ZodType>(t: T) => t.nullable();

const placement = {
  point: z.string(),
  originEpochMs: z.number(),
  index: count.nonnegative(),
  turn: count.nonnegative(),
  plannedMs: ms,
  queueMs: ms,
  sentMs: ms,
  measured: z.boolean(),
};

/** Reads a line of `requests.jsonl` (a {@link RequestLine}). */
export const RequestLineSchema: z.ZodType<RequestLine> = z.discriminatedUnion('status', [
  z.looseObject({
    ...placement,
    status: z.literal('ok'),
    ttftMs: ms,
    ttstMs: ms,
    ttfaMs: ms,
    e2eMs: ms,
    itlMs: z.array(ms),
    tpotMs: ms,
    outputTokens: count,
    clientTokens: count,
    tokenSource: z.enum(TOKEN_SOURCES),
    tokenSplit: z.enum(TOKEN_SPLITS),
    reasoningTokens: count,
    chunkTokens: z.array(count),
    chunkAtMs: z.array(ms),
    plannedInputTokens: count,
    serverTokens: orNull(count),
    serverPromptTokens: orNull(count),
    cachedTokens: orNull(count),
    serverPromptMs: orNull(z.number()),
    serverTpotMs: orNull(z.number()),
  }),
  z.looseObject({
    ...placement,
    status: z.literal('failed'),
    kind: z.enum(REQUEST_ERROR_KINDS),
    httpStatus: z.exactOptional(count),
    message: z.string(),
    e2eMs: ms,
  }),
]);

/**
 * The requests of a load's `requests.jsonl` (`path`), in file order; none when the file does not exist (a run
 * written before dantinox kept its requests).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it cannot be read; `INVALID_INPUT` naming the first bad line.
 */
export function readRequestLines(path: string): RequestLine[] {
  if (!existsSync(path)) return [];
  return parseJsonLines(
    readTextFile(path, "a load's request records"),
    RequestLineSchema,
    (line, problem) =>
      new DantinoxError(
        'INVALID_INPUT',
        messages.requestsLineBad(
          path,
          line,
          problem.kind === 'not-json' ? 'not JSON' : `field ${problem.path}`,
        ),
      ),
  );
}
