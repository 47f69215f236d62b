/**
 * `runLanes`: a sweep point's sending spread over worker threads when one event loop cannot keep up — lane w of W
 * sends the requests whose index ≡ w (mod W), with its share of the concurrency, over its own connections, on the
 * clock every thread shares ({@link monotonicMs}); the main thread waits and reads nothing until they end. With one
 * lane (or from the TypeScript sources, where no compiled worker exists) the lane runs in this thread.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Endpoint } from '../openai-protocol.js';
import { type ConversationPlan, runConversation } from './conversation.js';
import { OpenAiClient } from './openai-client.js';
import {
  type EarlyStop,
  REAL_CLOCK,
  type SendLoopOptions,
  type SendLoopResult,
  type SentRequest,
  sendLoop,
} from './send-loop.js';

/** How a worker builds its client (the same server and settings as the main thread's). */
export interface LaneClientOptions {
  /** Base URL of the API. */
  readonly baseUrl: string;
  /** Endpoint called. */
  readonly endpoint: Endpoint;
  /** Bearer key, when the server needs one. */
  readonly apiKey?: string | undefined;
  /** PEM of a private CA, when given. */
  readonly ca?: string | undefined;
  /** Time limit of one request, in ms. */
  readonly timeoutMs: number;
}

/** The plan of a sweep point's lanes: everything {@link sendLoop} needs but `send`, plus the prepared requests. */
export interface LanePlan
  extends Omit<SendLoopOptions, 'send' | 'lane' | 'lanes' | 'clock' | 'signal' | 'stopWhen'> {
  /** The prepared requests; request `index` sends `requests[index % requests.length]` (a conversation's first turn). */
  readonly requests: readonly Uint8Array[];
  /** How conversations go on after their first turn (a multi-turn load). */
  readonly conversations?: ConversationPlan | undefined;
}

/** What the main thread sends a lane's worker. */
export interface LaneWorkerData {
  /** The client to build. */
  readonly client: LaneClientOptions;
  /** The point's plan. */
  readonly plan: LanePlan;
  /** This worker's lane. */
  readonly lane: number;
  /** Number of lanes. */
  readonly lanes: number;
}

/** What a lane's worker answers: the requests it sent, or why it could not. */
export type LaneWorkerResult =
  | {
      /** The lane ran to its end. */
      readonly type: 'done';
      /** The requests it sent, in index order. */
      readonly sent: readonly SentRequest[];
      /** Why it stopped early, if it did. */
      readonly stoppedEarly?: EarlyStop;
    }
  | {
      /** The lane failed. */
      readonly type: 'error';
      /** Why. */
      readonly message: string;
    };

/** The compiled worker next to this module; absent when dantinox runs from its TypeScript sources. */
const WORKER = fileURLToPath(new URL('./lane-worker.js', import.meta.url));

/** Whether lanes can run in worker threads here (the package is built). */
export function canRunWorkers(): boolean {
  return existsSync(WORKER);
}

/** Requests in flight one event loop takes before a load spreads over more worker threads (see {@link defaultWorkers}). */
export const STREAMS_PER_WORKER = 64;

/**
 * The worker threads a load point uses unless told: one per {@link STREAMS_PER_WORKER} requests in flight, at most
 * one per CPU; one (this thread) for an unbounded open loop, whose concurrency is not known in advance.
 */
export function defaultWorkers(concurrency: number, cpus: number): number {
  if (!Number.isFinite(concurrency)) return 1;
  return Math.max(1, Math.min(cpus, Math.ceil(concurrency / STREAMS_PER_WORKER)));
}

/** The share of `concurrency` of lane `lane` of `lanes` (the first lanes take the remainder). */
export function laneConcurrency(concurrency: number, lane: number, lanes: number): number {
  if (!Number.isFinite(concurrency)) return concurrency;
  return Math.floor(concurrency / lanes) + (lane < concurrency % lanes ? 1 : 0);
}

/** Runs one lane in this thread over `client`. */
export function runLane(
  client: Pick<OpenAiClient, 'sendPrepared' | 'prepare'>,
  plan: LanePlan,
  lane: number,
  lanes: number,
  extra: Pick<SendLoopOptions, 'clock' | 'signal' | 'stopWhen'> = { clock: REAL_CLOCK },
): ReturnType<typeof sendLoop> {
  const { requests, conversations, ...rest } = plan;
  const clock = extra.clock;
  const first = (index: number) => ({ bytes: requests[index % requests.length] as Uint8Array });
  return sendLoop({
    ...rest,
    ...extra,
    concurrency: laneConcurrency(plan.concurrency, lane, lanes),
    lane,
    lanes,
    send: async (index, signal) =>
      conversations === undefined
        ? [{ raw: await client.sendPrepared(first(index), signal) }]
        : runConversation(
            index,
            first(index),
            conversations,
            client,
            { clock, originMs: plan.originMs, endMs: plan.durationMs },
            signal,
          ),
  });
}

/**
 * Runs the point's lanes in `workers` worker threads and merges what they sent, in index order (an early stop of
 * any lane is the point's).
 *
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` when the compiled worker is missing; `RUNTIME_ERROR` when
 *   a worker fails.
 */
export async function runLaneWorkers(
  client: LaneClientOptions,
  plan: LanePlan,
  workers: number,
  signal?: AbortSignal,
): Promise<SendLoopResult> {
  if (!canRunWorkers()) throw new DantinoxError('UNSUPPORTED', messages.loadWorkersNeedBuild());
  const lanes = Math.max(
    1,
    Math.min(workers, Number.isFinite(plan.concurrency) ? plan.concurrency : workers),
  );
  const results = await Promise.all(
    Array.from({ length: lanes }, (_, lane) => {
      const data: LaneWorkerData = { client, plan, lane, lanes };
      const worker = new Worker(WORKER, { workerData: data });
      const onAbort = (): void => worker.postMessage('abort');
      signal?.addEventListener('abort', onAbort, { once: true });
      return new Promise<LaneWorkerResult>((resolve) => {
        worker.once('message', (result: LaneWorkerResult) => resolve(result));
        worker.once('error', (error) => resolve({ type: 'error', message: error.message }));
        worker.once('exit', (code) =>
          resolve({ type: 'error', message: `the worker exited with code ${code}` }),
        );
      }).finally(() => {
        signal?.removeEventListener('abort', onAbort);
        void worker.terminate();
      });
    }),
  );
  const failed = results.find((r) => r.type === 'error');
  if (failed?.type === 'error')
    throw new DantinoxError('RUNTIME_ERROR', messages.loadWorkerFailed(failed.message));
  const done = results.filter((r): r is Extract<LaneWorkerResult, { type: 'done' }> => r.type === 'done');
  const sent = done.flatMap((r) => r.sent).sort((a, b) => a.index - b.index);
  const stoppedEarly = done.find((r) => r.stoppedEarly !== undefined)?.stoppedEarly;
  return { sent, ...(stoppedEarly === undefined ? {} : { stoppedEarly }) };
}

/** A {@link OpenAiClient} for one lane: `maxSockets` its share of the concurrency. */
export function laneClient(options: LaneClientOptions, maxSockets: number): OpenAiClient {
  return new OpenAiClient({
    baseUrl: options.baseUrl,
    endpoint: options.endpoint,
    apiKey: options.apiKey,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    timeoutMs: options.timeoutMs,
    maxSockets,
    now: REAL_CLOCK.now,
  });
}
