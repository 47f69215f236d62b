/**
 * `sendLoop`: the hot path of a load — sends one lane's requests at their planned times (or as slots free, in a
 * closed loop), at most `concurrency` in flight, and records each exchange as it happened; nothing is parsed here.
 * A load runs one lane in this thread, or several lanes, one per worker thread, each sending the requests whose
 * index falls to it. The pacer sleeps on a timer until just before a send time, then yields to the event loop
 * until it is due, so that sends are late by the event loop's turn, not by the timer's millisecond.
 *
 * @packageDocumentation
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep, setImmediate as yieldTurn } from 'node:timers/promises';
import { type ClientShare, clientSends } from './client-share.js';
import type { RawExchange } from './http-connection.js';

/** The clock a load runs on: a time in ms, a sleep, and a wait until a time (a manual clock in tests). */
export interface LoadClock {
  /** Current time in ms. */
  now(): number;
  /** Resolves after `ms` (or when `signal` aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Resolves at time `at` (ms), as closely as the clock can (or when `signal` aborts). @default sleep(at − now) */
  until?(at: number, signal?: AbortSignal): Promise<void>;
}

/** Time before a send when the pacer stops sleeping on a timer and yields turns until it is due, in ms. */
export const PACER_SPIN_MS = 2;

/** Milliseconds of a monotonic clock shared by every thread of the process (`process.hrtime`). */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  sleep(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);

/**
 * The clock of real loads: {@link monotonicMs}, the same in every worker thread; `until` sleeps on a timer to
 * {@link PACER_SPIN_MS} before the time (Node's timers fire late by up to a millisecond), then yields to the event
 * loop turn by turn until it is due.
 */
export const REAL_CLOCK: LoadClock = {
  now: monotonicMs,
  sleep: pause,
  until: async (at, signal) => {
    const early = at - monotonicMs() - PACER_SPIN_MS;
    if (early > 0) await pause(early, signal);
    while (monotonicMs() < at && signal?.aborted !== true) await yieldTurn();
  },
};

/** One exchange of what a lane sends for an index: a request, or one turn of a conversation. */
export interface TurnExchange {
  /** The exchange, as recorded. */
  readonly raw: RawExchange;
  /** Planned send time of a later turn of a conversation, in ms from the point's start (its first turn's is the lane's). */
  readonly plannedMs?: number;
}

/** One request a lane sent: its place in the point and what happened. */
export interface SentRequest {
  /** Position in the sweep point, from 0 (a conversation's: all its turns share it). */
  readonly index: number;
  /** Turn of the conversation, from 0 (0 for a single request). */
  readonly turn: number;
  /** Planned send time, in ms from the point's start. */
  readonly plannedMs: number;
  /** Time waiting for a free slot after the planned time, in ms (0 in a closed loop). */
  readonly queueMs: number;
  /** The exchange, as recorded. */
  readonly raw: RawExchange;
}

/** Why a lane stopped before its planned end: over-saturated, decided by a stop rule, or aborted. */
export type EarlyStop = 'saturated' | 'decided' | 'aborted';

/** What a lane sends and how. */
export interface SendLoopOptions {
  /** Sends request (or conversation) `index` and records its exchanges, one a turn, in order. */
  readonly send: (index: number, signal?: AbortSignal) => Promise<readonly TurnExchange[]>;
  /** Planned send time of each request, in ms from `originMs` (an open loop or a trace); absent for a closed loop. */
  readonly schedule?: readonly number[] | undefined;
  /** Requests in the point (all lanes); `Infinity` when only `durationMs` ends it. */
  readonly total: number;
  /** Stop sending after this long, in ms. */
  readonly durationMs: number;
  /** Most of this lane's requests in flight; `Infinity` for no limit. */
  readonly concurrency: number;
  /** Ramp a closed loop's concurrency linearly from 1 over this long, in ms. @default 0 */
  readonly rampMs?: number | undefined;
  /**
   * Send only client `share.client.index`'s requests of a point split over client processes (see
   * {@link clientSends}; `pointConcurrency` is the whole point's concurrency). @default every request
   */
  readonly share?:
    | {
        /** This client's place among the point's client processes. */
        readonly client: ClientShare;
        /** The whole point's concurrency (all clients). */
        readonly pointConcurrency: number;
      }
    | undefined;
  /** This lane sends every `lanes`-th of the requests it may send (its client's), from the `lane`-th. @default 0 of 1 */
  readonly lane?: number;
  /** Number of lanes. @default 1 */
  readonly lanes?: number;
  /** Stop when a request would go out later than planned (queue time included) by more than this (ms). */
  readonly maxLagMs?: number | undefined;
  /** Asked with each finished request (finish order): `true` stops sending. */
  readonly stopWhen?: ((finished: SentRequest) => boolean) | undefined;
  /** The point's start on `clock`, in ms. */
  readonly originMs: number;
  /** The clock. */
  readonly clock: LoadClock;
  /** Cancels the requests in flight and stops sending. */
  readonly signal?: AbortSignal | undefined;
}

/** What a lane sent, in send order, and why it stopped early (absent: it reached its planned end). */
export interface SendLoopResult {
  /** The requests sent. */
  readonly sent: readonly SentRequest[];
  /** Why sending stopped early. */
  readonly stoppedEarly?: EarlyStop;
}

/** Runs one lane of a sweep point (see the module comment). */
export async function sendLoop(options: SendLoopOptions): Promise<SendLoopResult> {
  const { schedule, clock, signal, originMs: origin } = options;
  const lane = options.lane ?? 0;
  const lanes = options.lanes ?? 1;
  const rampMs = options.rampMs ?? 0;
  const closedRamp = schedule === undefined && rampMs > 0 && Number.isFinite(options.concurrency);
  const limitAt = (t: number): number =>
    closedRamp ? Math.max(1, Math.ceil(options.concurrency * Math.min(1, t / rampMs))) : options.concurrency;
  const until = (at: number): Promise<void> =>
    clock.until === undefined ? clock.sleep(at - clock.now(), signal) : clock.until(at, signal);
  const last = schedule === undefined ? options.total : Math.min(options.total, schedule.length);
  const sent: SentRequest[] = [];
  const inFlight = new Set<Promise<void>>();
  let active = 0;
  let wake: (() => void) | undefined;
  let stoppedEarly: EarlyStop | undefined;
  let decided = false;
  const aborted = (): boolean => signal?.aborted === true;
  // Every request in flight listens to the signal: as many listeners as the concurrency is expected.
  if (signal !== undefined) setMaxListeners(0, signal);
  // A closed loop starts at the origin too (worker threads and client processes start together).
  if (clock.now() < origin) await until(origin);
  let rank = 0;
  for (let i = 0; i < last; i++) {
    const { share } = options;
    if (share !== undefined && !clientSends(i, share.pointConcurrency, schedule !== undefined, share.client))
      continue;
    if (rank++ % lanes !== lane) continue;
    if (aborted()) {
      stoppedEarly = 'aborted';
      break;
    }
    const planned = schedule?.[i];
    if (planned !== undefined && clock.now() < origin + planned) await until(origin + planned);
    let queuedAt: number | undefined;
    while (active >= limitAt(clock.now() - origin) && !aborted() && !decided) {
      queuedAt ??= clock.now() - origin;
      const step = closedRamp ? Math.max(1, rampMs / options.concurrency) : undefined;
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
    if (now >= options.durationMs || aborted()) break;
    const plannedMs = planned ?? now;
    // A planned request that found every slot taken waited from its planned time until one freed.
    const queueMs = planned === undefined || queuedAt === undefined ? 0 : Math.max(0, now - planned);
    // Over-saturated: requests wait (for a slot, or for the client) longer than the limit after their planned time.
    if (options.maxLagMs !== undefined && now - plannedMs > options.maxLagMs) {
      stoppedEarly = 'saturated';
      break;
    }
    active++;
    const index = i;
    const task = options.send(index, signal).then((turns) => {
      for (const [turn, exchange] of turns.entries()) {
        const record: SentRequest =
          turn === 0
            ? { index, turn, plannedMs, queueMs, raw: exchange.raw }
            : { index, turn, plannedMs: exchange.plannedMs ?? plannedMs, queueMs: 0, raw: exchange.raw };
        sent.push(record);
        if (options.stopWhen !== undefined && !decided) decided = options.stopWhen(record);
      }
      active--;
      inFlight.delete(task);
      wake?.();
    });
    inFlight.add(task);
  }
  await Promise.all(inFlight);
  if (aborted()) stoppedEarly ??= 'aborted';
  sent.sort((a, b) => a.index - b.index || a.turn - b.turn);
  return { sent, ...(stoppedEarly === undefined ? {} : { stoppedEarly }) };
}
