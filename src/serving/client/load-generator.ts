/**
 * `runLoadPoint`: one sweep point of a load against an OpenAI-compatible server — a closed loop (at most
 * `concurrency` requests in flight, the next sent as soon as one ends), an open loop (requests sent at planned
 * times, Poisson or gamma arrivals at `rate`), or both (planned times, but never more than `concurrency` in
 * flight: a request that waits for a slot records its queue time). While the load runs, the client only stamps
 * bytes — in this thread, or spread over worker threads (`workers`) when one event loop cannot keep up; token
 * counting and every metric come after the last request ended.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import type { Rng } from '../../rng.js';
import { arrivalTimesMs } from './arrival-schedule.js';
import { type ClientShare, shareSlots } from './client-share.js';
import {
  canRunWorkers,
  type LaneClientOptions,
  type LanePlan,
  runLane,
  runLaneWorkers,
} from './load-lanes.js';
import type { OpenAiClient } from './openai-client.js';
import { type ExchangeReading, readExchange } from './read-exchange.js';
import { requestBody } from './request-body.js';
import { type LoadClock, REAL_CLOCK, type SentRequest } from './send-loop.js';
import { type RequestRecord, requestRecord } from './token-accounting.js';
import type { WorkItem, Workload } from './workload.js';

export { requestBody } from './request-body.js';

/** One sweep point: the most requests in flight and the planned arrival rate (`Infinity` for either: no limit). */
export interface LoadPoint {
  /** Most requests in flight; `Infinity` for none. */
  readonly concurrency: number;
  /** Planned arrivals per second; `Infinity` sends as fast as the concurrency allows. */
  readonly rate: number;
}

/** A window counted in requests. */
export interface RequestWindow {
  /** Number of requests. */
  readonly requests: number;
}

/** A window counted in time. */
export interface TimeWindow {
  /** Length in ms. */
  readonly ms: number;
}

/** A warm-up or cool-down window: a number of requests, or a time in ms. */
export type LoadWindow = RequestWindow | TimeWindow;

/**
 * Whether a sweep point's outcome is decided (true: stop sending), asked with each request as it finishes, in
 * finish order. A rule may keep counts between calls: make a fresh one per point.
 */
export type StopRule = (finished: RequestRecord) => boolean;

/** Options of {@link runLoadPoint}. */
export interface LoadPointOptions {
  /** The client (its agent should allow `concurrency` sockets). */
  readonly client: OpenAiClient;
  /** The sweep point. */
  readonly point: LoadPoint;
  /** What the requests ask. */
  readonly workload: Workload;
  /** The served model's tokenizer, for token accounting after the load. */
  readonly tokenizer: Pick<Tokenizer, 'encode'>;
  /** Random source of the arrival schedule. */
  readonly rng: Rng;
  /** The served model's name (`model` field). */
  readonly model?: string | undefined;
  /** Stream responses (SSE). @default true */
  readonly stream?: boolean;
  /** Ask for exact output lengths: `ignore_eos: true` and `min_tokens` = `max_tokens`. @default true */
  readonly exactLengths?: boolean;
  /** Measured requests to send. At least one of `requests` and `durationMs` must be given. */
  readonly requests?: number | undefined;
  /** Stop sending after this long of measured requests, in ms. */
  readonly durationMs?: number | undefined;
  /**
   * Leading requests sent before the measured ones and left out of the statistics: a count (added to `requests`)
   * or a time (added to `durationMs`). A trace is replayed as recorded: its first rows are the warm-up.
   */
  readonly warmup?: LoadWindow | undefined;
  /** Trailing requests sent after the measured ones and left out of the statistics, counted as `warmup` is. */
  readonly cooldown?: LoadWindow | undefined;
  /** Ramp the rate (open loop) or the concurrency (closed loop) linearly from 0 over this long, in ms. @default 0 */
  readonly rampMs?: number | undefined;
  /** Gamma shape of the arrival gaps (1: Poisson). @default 1 */
  readonly burstiness?: number | undefined;
  /** Stop sending when a request goes out later than planned by more than this (ms): over-saturated. */
  readonly maxLagMs?: number | undefined;
  /**
   * Stop sending once this returns true: called with each request as it finishes (in finish order; `measured`
   * leaves out the warm-up only), it says whether the point's outcome is already decided. Each finished request is
   * then read as it ends, on the hot path, so give it only when stopping early is worth that (a search's probes).
   */
  readonly stopWhen?: StopRule | undefined;
  /** The clock. @default {@link REAL_CLOCK} */
  readonly clock?: LoadClock;
  /** Cancels the requests in flight and stops sending. */
  readonly signal?: AbortSignal | undefined;
  /** Index of the workload's first item (so that consecutive points send different prompts). @default 0 */
  readonly firstItem?: number;
  /**
   * The server's count of a text's tokens (its `/tokenize` endpoint), asked after the point for each response that
   * reported no `usage`, so that its output tokens are the server's; `undefined` when it cannot say.
   */
  readonly serverCount?: ((text: string) => Promise<number | undefined>) | undefined;
  /** `stream_options.continuous_usage_stats` on streamed requests (vLLM, SGLang). @default false */
  readonly continuousUsage?: boolean | undefined;
  /**
   * The point's time 0 on the wall clock, in ms since the Unix epoch: the load waits until then, and every planned
   * time counts from it, so that client processes started for the same instant plan the same schedule. @default now
   */
  readonly startAtEpochMs?: number | undefined;
  /**
   * Send only this client's share of the point (see {@link clientSends}), with its share of the concurrency
   * ({@link shareSlots}); the requests keep their index in the whole point. @default every request
   */
  readonly share?: ClientShare | undefined;
  /**
   * Worker threads that send the point's requests, each with its share of the concurrency and its own connections
   * (1: this thread). Only the real clock runs in workers: with an injected `clock`, a `stopWhen` rule, or from the
   * TypeScript sources (no compiled worker), the point runs in this thread whatever this says. @default 1
   */
  readonly workers?: number | undefined;
  /** Time between a conversation's answer and its next turn, in ms. @default 0 */
  readonly turnDelayMs?: number | undefined;
  /** How workers build their clients (the same server and settings as `client`); needed for `workers` > 1. */
  readonly laneClient?: LaneClientOptions | undefined;
}

/** What {@link runLoadPoint} measured. */
export interface LoadPointResult {
  /** The sweep point. */
  readonly point: LoadPoint;
  /** Every request sent, in send order. */
  readonly records: readonly RequestRecord[];
  /** Wall time of the point, from the first send to the last end, in ms. */
  readonly wallMs: number;
  /** Whether requests had planned send times (an open loop or a trace), rather than a closed loop's. */
  readonly scheduled: boolean;
  /** The point's start (time 0 of its records) on the wall clock, in ms since the Unix epoch. */
  readonly originEpochMs: number;
  /**
   * Why sending stopped before the planned end: `saturated` (lag beyond `maxLagMs`), `decided` (`stopWhen` held)
   * or `aborted`; else absent.
   */
  readonly stoppedEarly?: 'saturated' | 'decided' | 'aborted';
}

/**
 * The warm-up a point gets unless told: as many requests as it keeps in flight (its concurrency), one second of
 * arrivals for an open loop without a concurrency cap, one request when both are unbounded — so that no measured
 * request meets a cold connection, cache or batch.
 */
export function defaultWarmup(point: LoadPoint): LoadWindow {
  if (Number.isFinite(point.concurrency)) return { requests: Math.max(1, point.concurrency) };
  if (Number.isFinite(point.rate)) return { requests: Math.max(1, Math.ceil(point.rate)) };
  return { requests: 1 };
}

/**
 * Whether request `i` of `n` (sent at `sentMs`, the last at `lastSentMs`, in ms from the point's start) is outside
 * both windows: it counts in the point's statistics.
 */
export function inWindow(
  i: number,
  n: number,
  sentMs: number,
  lastSentMs: number,
  warmup?: LoadWindow,
  cooldown?: LoadWindow,
): boolean {
  if (warmup !== undefined && ('requests' in warmup ? i < warmup.requests : sentMs < warmup.ms)) return false;
  if (
    cooldown !== undefined &&
    ('requests' in cooldown ? i >= n - cooldown.requests : sentMs > lastSentMs - cooldown.ms)
  )
    return false;
  return true;
}

/** Time between creating a point's worker threads and its start, in ms: enough for them to load and connect. */
export const WORKER_START_MS = 300;

/** Requests to the server's `/tokenize` at once while counting responses without `usage`. */
const COUNT_CONCURRENCY = 8;

/**
 * The server's count of each successful response's text that came without `usage` (after the point, off the
 * measured window), a few requests at a time; `undefined` for the others or when the server cannot say.
 */
async function countWithServer(
  readings: readonly ExchangeReading[],
  serverCount: LoadPointOptions['serverCount'],
): Promise<(number | undefined)[]> {
  const out = new Array<number | undefined>(readings.length).fill(undefined);
  if (serverCount === undefined) return out;
  const todo = readings.flatMap((r, k) => (r.status === 'ok' && r.usage === undefined ? [k] : []));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      const k = todo[next++] as number;
      const reading = readings[k];
      if (reading?.status !== 'ok') continue;
      out[k] = await serverCount(reading.pieces.map((p) => p.text).join(''));
    }
  };
  await Promise.all(Array.from({ length: COUNT_CONCURRENCY }, worker));
  return out;
}

/**
 * Runs one sweep point and measures every request.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when neither `requests` nor `durationMs` is given;
 *   `RUNTIME_ERROR` when a worker thread fails.
 */
export async function runLoadPoint(options: LoadPointOptions): Promise<LoadPointResult> {
  const { client, point, workload, signal } = options;
  const clock = options.clock ?? REAL_CLOCK;
  const stream = options.stream ?? true;
  const exactLengths = options.exactLengths ?? true;
  const rampMs = options.rampMs ?? 0;
  if (options.requests === undefined && options.durationMs === undefined && !workload.timed)
    throw new DantinoxError('INVALID_OPTION', messages.loadNeedsBound());
  // The warm-up and cool-down windows come on top of the measured requests (or time); a trace ends with its last row
  // unless told to stop before, its first and last rows being the windows.
  const extra = (unit: 'requests' | 'ms'): number =>
    workload.timed
      ? 0
      : [options.warmup, options.cooldown].reduce(
          (sum, w) => sum + (w !== undefined && unit in w ? (w as Record<typeof unit, number>)[unit] : 0),
          0,
        );
  const total = Math.min(
    (options.requests ?? Number.POSITIVE_INFINITY) + extra('requests'),
    workload.timed ? workload.size : Number.POSITIVE_INFINITY,
  );
  const durationMs = (options.durationMs ?? Number.POSITIVE_INFINITY) + extra('ms');
  const first = options.firstItem ?? 0;
  let schedule: readonly number[] | undefined;
  if (workload.timed) {
    const n = Math.min(total, workload.size);
    schedule = Array.from({ length: n }, (_, i) => workload.item(first + i).atMs ?? 0).filter(
      (t) => t <= durationMs,
    );
  } else if (Number.isFinite(point.rate)) {
    schedule = arrivalTimesMs({
      rate: point.rate,
      burstiness: options.burstiness ?? 1,
      rampMs,
      rng: options.rng,
      ...(Number.isFinite(total) ? { count: total } : {}),
      ...(Number.isFinite(durationMs) ? { durationMs } : {}),
    });
  }
  // Every distinct request prepared before the first send: sending is then one socket write.
  const items = Array.from(
    { length: Math.min(workload.size, Number.isFinite(total) ? total : workload.size) },
    (_, j) => workload.item(first + j),
  );
  const body = { model: options.model, stream, exactLengths, continuousUsage: options.continuousUsage };
  const prepared = items.map((item) => client.prepare(requestBody(item, client.endpoint, body)));
  const conversational = items.some((item) => (item.followUps?.length ?? 0) > 0);
  /** Prompt tokens the workload planned for a turn (its message; a later turn's history comes on top). */
  const plannedTokens = (index: number, turn: number): number => {
    const item = items[index % items.length] as WorkItem;
    return turn === 0 ? item.inputTokens : (item.followUps?.[turn - 1]?.inputTokens ?? 0);
  };
  // Requests are read as they finish only for a stop rule (a search's probes), which then decides in this thread.
  const readings = new Map<string, ExchangeReading>();
  const key = (s: SentRequest): string => `${s.index}/${s.turn}`;
  let originMs = clock.now();
  const stopWhen =
    options.stopWhen === undefined
      ? undefined
      : (finished: SentRequest): boolean => {
          const reading = readExchange(finished.raw, client.endpoint, stream);
          readings.set(key(finished), reading);
          const measured = inWindow(
            finished.index,
            Number.POSITIVE_INFINITY,
            reading.sentAtMs - originMs,
            0,
            options.warmup,
          );
          const { queueMs, plannedMs, index, turn } = finished;
          return (options.stopWhen as StopRule)(
            requestRecord(reading, options.tokenizer, {
              placement: { index, turn, plannedMs, queueMs, measured },
              originMs,
              plannedInputTokens: plannedTokens(index, turn),
            }),
          );
        };
  const workers = options.workers ?? 1;
  const inWorkers =
    workers > 1 &&
    options.clock === undefined &&
    stopWhen === undefined &&
    options.laneClient !== undefined &&
    canRunWorkers();
  // Workers start a few milliseconds after they are created, all at the same origin; client processes started
  // together at the wall-clock instant they were given.
  const { share, startAtEpochMs } = options;
  originMs =
    startAtEpochMs === undefined
      ? clock.now() + (inWorkers ? WORKER_START_MS : 0)
      : clock.now() + (startAtEpochMs - Date.now());
  const originEpochMs = startAtEpochMs ?? Date.now() + (originMs - clock.now());
  const plan: LanePlan = {
    requests: prepared.map((p) => p.bytes),
    ...(conversational
      ? {
          conversations: {
            first: items,
            followUps: items.map((item) => item.followUps ?? []),
            endpoint: client.endpoint,
            body,
            turnDelayMs: options.turnDelayMs ?? 0,
          },
        }
      : {}),
    schedule,
    total,
    durationMs,
    concurrency: share === undefined ? point.concurrency : shareSlots(point.concurrency, share),
    ...(share === undefined ? {} : { share: { client: share, pointConcurrency: point.concurrency } }),
    rampMs,
    maxLagMs: options.maxLagMs,
    originMs,
  };
  const lanes = inWorkers
    ? await runLaneWorkers(options.laneClient as LaneClientOptions, plan, workers, signal)
    : await runLane(client, plan, 0, 1, { clock, signal, stopWhen });
  const end = clock.now();
  const sent = lanes.sent;
  const lastSent = sent.reduce((t, s) => Math.max(t, s.raw.sentAtMs - originMs), 0);
  const read = sent.map((s) => readings.get(key(s)) ?? readExchange(s.raw, client.endpoint, stream));
  const serverTotals = await countWithServer(read, options.serverCount);
  // Requests counted from the point's first (index 0): a client's share has the indices of the whole point.
  const count = sent.reduce((n, s) => Math.max(n, s.index + 1), 0);
  const records = sent.map((s, k) => {
    const reading = read[k] as ExchangeReading;
    const sentMs = reading.sentAtMs - originMs;
    const measured = inWindow(s.index, count, sentMs, lastSent, options.warmup, options.cooldown);
    return requestRecord(reading, options.tokenizer, {
      placement: { index: s.index, turn: s.turn, plannedMs: s.plannedMs, queueMs: s.queueMs, measured },
      originMs,
      plannedInputTokens: plannedTokens(s.index, s.turn),
      serverTotal: serverTotals[k],
    });
  });
  const stoppedEarly = lanes.stoppedEarly ?? (signal?.aborted === true ? 'aborted' : undefined);
  return {
    point,
    records,
    wallMs: end - originMs,
    scheduled: schedule !== undefined,
    originEpochMs,
    ...(stoppedEarly === undefined ? {} : { stoppedEarly }),
  };
}
