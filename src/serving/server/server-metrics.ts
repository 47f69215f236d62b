/**
 * The metrics `dantinox serve` exposes on `/metrics`, named after what they count, with units in the name.
 *
 * @packageDocumentation
 */
import type { BatchScheduler } from './batch-scheduler.js';
import { type Counter, type Histogram, PrometheusRegistry } from './prometheus-metrics.js';

/** Buckets of the time histograms, in seconds. */
export const TIME_BUCKETS_SECONDS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** Buckets of the batch size histogram, in rows. */
export const BATCH_BUCKETS: readonly number[] = [1, 2, 4, 8, 16, 32, 64];

/** The server's metrics and the registry that writes them. */
export interface ServerMetrics {
  /** Writes every metric. */
  readonly registry: PrometheusRegistry;
  /** `dantinox_requests_total{endpoint,status}`: HTTP requests answered, by path and status code. */
  readonly requests: Counter;
  /** `dantinox_prompt_tokens_total`: prompt tokens of the generations run. */
  readonly promptTokens: Counter;
  /** `dantinox_generation_tokens_total`: tokens generated. */
  readonly generationTokens: Counter;
  /**
   * `dantinox_batch_size`: rows of each batch the engine ran — of each decode step with continuous batching, of
   * each batch with static batching.
   */
  readonly batchSize: Histogram;
  /** `dantinox_queue_time_seconds`: time each generation waited in the queue. */
  readonly queueTime: Histogram;
  /** `dantinox_time_to_first_token_seconds`: from queueing to the first generated token. */
  readonly timeToFirstToken: Histogram;
  /** `dantinox_request_duration_seconds`: from the request's arrival to its last byte. */
  readonly requestDuration: Histogram;
}

/** The metrics of a server whose queue is `scheduler`'s. */
export function createServerMetrics(scheduler: () => BatchScheduler): ServerMetrics {
  const registry = new PrometheusRegistry();
  const requests = registry.counter(
    'dantinox_requests_total',
    'HTTP requests answered, by endpoint and status code.',
  );
  const promptTokens = registry.counter(
    'dantinox_prompt_tokens_total',
    'Prompt tokens of the generations run.',
  );
  const generationTokens = registry.counter('dantinox_generation_tokens_total', 'Tokens generated.');
  registry.gauge('dantinox_requests_waiting', 'Generations waiting in the queue.', () => scheduler().waiting);
  registry.gauge(
    'dantinox_requests_running',
    'Generations in the batch the engine is running.',
    () => scheduler().running,
  );
  const batchSize = registry.histogram(
    'dantinox_batch_size',
    'Rows of each batch the engine ran: of each decode step (continuous batching) or of each batch (static batching).',
    BATCH_BUCKETS,
  );
  const queueTime = registry.histogram(
    'dantinox_queue_time_seconds',
    'Time each generation waited in the queue, in seconds.',
    TIME_BUCKETS_SECONDS,
  );
  const timeToFirstToken = registry.histogram(
    'dantinox_time_to_first_token_seconds',
    'Time from queueing a generation to its first token, in seconds.',
    TIME_BUCKETS_SECONDS,
  );
  const requestDuration = registry.histogram(
    'dantinox_request_duration_seconds',
    'Time from the arrival of a completion request to its last byte, in seconds.',
    TIME_BUCKETS_SECONDS,
  );
  return {
    registry,
    requests,
    promptTokens,
    generationTokens,
    batchSize,
    queueTime,
    timeToFirstToken,
    requestDuration,
  };
}
