/**
 * `runLoadPoint`: one sweep point of a load against an OpenAI-compatible server — a closed loop (at most
 * `concurrency` requests in flight, the next sent as soon as one ends), an open loop (requests sent at planned
 * times, Poisson or gamma arrivals at `rate`), or both (planned times, but never more than `concurrency` in
 * flight: a late request's schedule lag says so). While the load runs, the client only stamps bytes; token
 * counting and every metric come after the last request ended.
 *
 * @packageDocumentation
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import type { Rng } from '../../rng.js';
import type { ChatCompletionRequest, CompletionRequest } from '../openai-protocol.js';
import { arrivalTimesMs } from './arrival-schedule.js';
import type { OpenAiClient, RawExchange } from './openai-client.js';
import { type ExchangeReading, readExchange } from './read-exchange.js';
import { type RequestRecord, requestRecord } from './token-accounting.js';
import type { WorkItem, Workload } from './workload.js';

/** One sweep point: the most requests in flight and the planned arrival rate (`Infinity` for either: no limit). */
export interface LoadPoint {
  /** Most requests in flight; `Infinity` for none. */
  readonly concurrency: number;
  /** Planned arrivals per second; `Infinity` sends as fast as the concurrency allows. */
  readonly rate: number;
}

/**
 * One client process's share of a sweep point whose requests are split over `count` processes (pods, array tasks)
 * that start together: this process is client `index` (0-based).
 */
export interface ClientShare {
  /** 0-based client index, `0 ≤ index < count`. */
  readonly index: number;
  /** Number of client processes. */
  readonly count: number;
}

/**
 * The concurrency slots of client `share.index` when a point's `concurrency` slots are dealt round-robin (slot s to
 * client s mod count): ⌈(concurrency − index) / count⌉, 0 when concurrency ≤ index; unbounded stays unbounded.
 */
export function shareSlots(concurrency: number, share: ClientShare): number {
  if (!Number.isFinite(concurrency)) return concurrency;
  return Math.max(0, Math.ceil((concurrency - share.index) / share.count));
}

/**
 * Whether request k of a point is client `share.index`'s: with planned send times (an open loop, a trace) every
 * count-th, k mod count = index; in a closed loop the requests of its slots, (k mod concurrency) mod count = index,
 * so that each client sends in proportion to its slots.
 */
export function clientSends(k: number, concurrency: number, scheduled: boolean, share: ClientShare): boolean {
  const slot = scheduled || !Number.isFinite(concurrency) ? k : k % concurrency;
  return slot % share.count === share.index;
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

/** The clock a load runs on: a time in ms and a sleep (a manual clock in tests). */
export interface LoadClock {
  /** Current time in ms. */
  now(): number;
  /** Resolves after `ms` (or when `signal` aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** `performance.now()` and timers: the clock of real loads. */
export const REAL_CLOCK: LoadClock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined),
};

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
  /** Requests to send. At least one of `requests` and `durationMs` must be given. */
  readonly requests?: number | undefined;
  /** Stop sending after this long, in ms. */
  readonly durationMs?: number | undefined;
  /** Leading requests left out of the statistics. */
  readonly warmup?: LoadWindow | undefined;
  /** Trailing requests left out of the statistics. */
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

/** The request body of one work item. */
export function requestBody(
  item: WorkItem,
  endpoint: 'completions' | 'chat',
  options: {
    model?: string | undefined;
    stream: boolean;
    exactLengths: boolean;
    continuousUsage?: boolean | undefined;
  },
): CompletionRequest | ChatCompletionRequest {
  const streamOptions = {
    include_usage: true,
    ...(options.continuousUsage === true ? { continuous_usage_stats: true } : {}),
  };
  const common = {
    ...(options.model === undefined ? {} : { model: options.model }),
    max_tokens: item.outputTokens,
    temperature: 0,
    stream: options.stream,
    ...(options.stream ? { stream_options: streamOptions } : {}),
    ...(options.exactLengths ? { ignore_eos: true, min_tokens: item.outputTokens } : {}),
  };
  return endpoint === 'chat'
    ? { ...common, messages: [{ role: 'user', content: item.prompt }] }
    : { ...common, prompt: item.prompt };
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
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when neither `requests` nor `durationMs` is given.
 */
export async function runLoadPoint(options: LoadPointOptions): Promise<LoadPointResult> {
  const { client, point, workload, signal } = options;
  const clock = options.clock ?? REAL_CLOCK;
  const stream = options.stream ?? true;
  const exactLengths = options.exactLengths ?? true;
  const rampMs = options.rampMs ?? 0;
  // A trace ends with its last row unless told to stop before.
  const total = Math.min(
    options.requests ?? Number.POSITIVE_INFINITY,
    workload.timed ? workload.size : Number.POSITIVE_INFINITY,
  );
  const durationMs = options.durationMs ?? Number.POSITIVE_INFINITY;
  if (!Number.isFinite(total) && !Number.isFinite(durationMs))
    throw new DantinoxError('INVALID_OPTION', messages.loadNeedsBound());
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
  const { share } = options;
  const concurrency = share === undefined ? point.concurrency : shareSlots(point.concurrency, share);
  const mine = (k: number): boolean =>
    share === undefined || clientSends(k, point.concurrency, schedule !== undefined, share);
  const closedRamp = schedule === undefined && rampMs > 0 && Number.isFinite(concurrency);
  const limitAt = (t: number): number =>
    closedRamp ? Math.max(1, Math.ceil(concurrency * Math.min(1, t / rampMs))) : concurrency;

  const sent: {
    index: number;
    plannedMs: number;
    queueMs: number;
    item: WorkItem;
    raw?: RawExchange;
    reading?: ExchangeReading;
  }[] = [];
  const inFlight = new Set<Promise<void>>();
  let active = 0;
  let wake: (() => void) | undefined;
  let stoppedEarly: LoadPointResult['stoppedEarly'];
  let decided = false;
  const aborted = (): boolean => signal?.aborted === true;
  // Every request in flight listens to the signal: as many listeners as the concurrency is expected.
  if (signal !== undefined) setMaxListeners(0, signal);
  let origin = clock.now();
  let originEpochMs = Date.now();
  if (options.startAtEpochMs !== undefined) {
    const wait = options.startAtEpochMs - originEpochMs;
    origin += wait;
    originEpochMs = options.startAtEpochMs;
    if (wait > 0) await clock.sleep(wait, signal);
  }
  const last = schedule === undefined ? total : Math.min(total, schedule.length);
  for (let i = 0; i < last; i++) {
    if (!mine(i)) continue;
    if (aborted()) {
      stoppedEarly = 'aborted';
      break;
    }
    const planned = schedule?.[i];
    if (planned !== undefined) {
      const wait = origin + planned - clock.now();
      if (wait > 0) await clock.sleep(wait, signal);
    }
    let queuedAt: number | undefined;
    while (active >= limitAt(clock.now() - origin) && !aborted() && !decided) {
      queuedAt ??= clock.now() - origin;
      const step = closedRamp ? Math.max(1, rampMs / point.concurrency) : undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (step !== undefined) void clock.sleep(step).then(resolve);
      });
    }
    if (decided) {
      stoppedEarly = 'decided';
      break;
    }
    const now = clock.now() - origin;
    if (now >= durationMs || aborted()) break;
    const plannedMs = planned ?? now;
    // A planned request that found every slot taken waited from its planned time until one freed.
    const queueMs = planned === undefined || queuedAt === undefined ? 0 : Math.max(0, now - planned);
    if (options.maxLagMs !== undefined && now - plannedMs > options.maxLagMs) {
      stoppedEarly = 'saturated';
      break;
    }
    const item = workload.item(first + i);
    const entry: (typeof sent)[number] = { index: i, plannedMs, queueMs, item };
    sent.push(entry);
    active++;
    const body = requestBody(item, client.endpoint, {
      model: options.model,
      stream,
      exactLengths,
      continuousUsage: options.continuousUsage,
    });
    const task = client.send(body, signal).then((raw) => {
      entry.raw = raw;
      if (options.stopWhen !== undefined && !decided) {
        entry.reading = readExchange(raw, client.endpoint, stream);
        const measured = inWindow(
          entry.index,
          Number.POSITIVE_INFINITY,
          raw.sentAtMs - origin,
          0,
          options.warmup,
        );
        decided = options.stopWhen(
          requestRecord(entry.reading, options.tokenizer, {
            placement: { index: entry.index, plannedMs, queueMs, measured },
            originMs: origin,
            plannedInputTokens: item.inputTokens,
          }),
        );
      }
      active--;
      inFlight.delete(task);
      wake?.();
    });
    inFlight.add(task);
  }
  await Promise.all(inFlight);
  if (aborted()) stoppedEarly ??= 'aborted';
  const end = clock.now();
  const lastSent = Math.max(0, ...sent.map((s) => (s.raw?.sentAtMs ?? origin) - origin));
  const readings = sent.map((s) => s.reading ?? readExchange(s.raw as RawExchange, client.endpoint, stream));
  const serverTotals = await countWithServer(readings, options.serverCount);
  // Requests counted from the point's first (index 0): a client's share has the indices of the whole point.
  const count = Math.max(0, ...sent.map((s) => s.index + 1));
  const records = sent.map((s, k) => {
    const reading = readings[k] as ExchangeReading;
    const sentMs = reading.sentAtMs - origin;
    const measured = inWindow(s.index, count, sentMs, lastSent, options.warmup, options.cooldown);
    return requestRecord(reading, options.tokenizer, {
      placement: { index: s.index, plannedMs: s.plannedMs, queueMs: s.queueMs, measured },
      originMs: origin,
      plannedInputTokens: s.item.inputTokens,
      serverTotal: serverTotals[k],
    });
  });
  return {
    point,
    records,
    wallMs: end - origin,
    scheduled: schedule !== undefined,
    originEpochMs,
    ...(stoppedEarly === undefined ? {} : { stoppedEarly }),
  };
}
