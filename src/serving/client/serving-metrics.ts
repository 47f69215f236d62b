/**
 * The metrics of one sweep point of a load, from its measured requests: TTFT, time to second token, inter-token
 * latency (per token), TPOT and end-to-end latency (mean, p50, p90, p99), output tokens/s, requests/s, goodput
 * under service-level objectives (share and rate of requests meeting every SLO, with a Wilson interval on the
 * share), errors by kind, schedule lag, tokens per chunk, and client-counted vs server-reported tokens.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { normalQuantile, quantileSorted } from '../../profiling/index.js';
import type { RequestRecord, SucceededRequest } from './token-accounting.js';

/** Service-level objectives, in milliseconds; a request meets them when each given one holds (≤). */
export interface Slo {
  /** Most time to first token. */
  readonly ttftMs?: number;
  /** Most time per output token. */
  readonly tpotMs?: number;
  /** Most end-to-end latency. */
  readonly e2eMs?: number;
}

/** The SLO names `--slo` accepts, and the field each one sets. */
const SLO_FIELDS = { ttft: 'ttftMs', tpot: 'tpotMs', e2e: 'e2eMs' } as const;

/** Parses a duration (`500ms`, `1.5s`, `2m`, or a bare number of milliseconds), in ms; `undefined` when it is none. */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min)?\s*$/.exec(text);
  if (m === null) return undefined;
  const value = Number(m[1]);
  const unit = m[2] ?? 'ms';
  return value * (unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000);
}

/**
 * Parses `--slo ttft=500ms,tpot=50ms,e2e=10s` (durations in ms, s or m).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for an unknown name, a bad duration or an empty list.
 */
export function parseSlo(text: string): Slo {
  const out: Record<string, number> = {};
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const [name = '', value = ''] = part.split('=').map((s) => s.trim());
    const field = (SLO_FIELDS as Record<string, string>)[name];
    const ms = parseDurationMs(value);
    if (field === undefined || ms === undefined)
      throw new DantinoxError('INVALID_OPTION', messages.loadBadSlo(text));
    out[field] = ms;
  }
  if (Object.keys(out).length === 0) throw new DantinoxError('INVALID_OPTION', messages.loadBadSlo(text));
  return out as Slo;
}

/** Whether a successful request meets every objective of `slo` (a metric it lacks, e.g. TPOT of one token, holds). */
export function meetsSlo(r: SucceededRequest, slo: Slo): boolean {
  const ok = (value: number, limit: number | undefined): boolean =>
    limit === undefined || !Number.isFinite(value) || value <= limit;
  return ok(r.ttftMs, slo.ttftMs) && ok(r.tpotMs, slo.tpotMs) && ok(r.e2eMs, slo.e2eMs);
}

/**
 * Wilson score interval of a proportion `successes / n` at `confidence` (two-sided): the interval on SLO
 * attainment. `[0, 1]` when n = 0.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): readonly [number, number] {
  if (n === 0) return [0, 1];
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Mean and linear-interpolation percentiles of a sample (`NaN` when empty). */
export interface Distribution {
  /** Arithmetic mean. */
  readonly mean: number;
  /** Median. */
  readonly p50: number;
  /** 90th percentile. */
  readonly p90: number;
  /** 99th percentile. */
  readonly p99: number;
  /** Number of samples. */
  readonly n: number;
}

/** The {@link Distribution} of `values` (finite ones only). */
export function distribution(values: readonly number[]): Distribution {
  const sorted = values.filter(Number.isFinite).sort((x, y) => x - y);
  const n = sorted.length;
  const mean = n === 0 ? Number.NaN : sorted.reduce((s, v) => s + v, 0) / n;
  return {
    mean,
    p50: quantileSorted(sorted, 0.5),
    p90: quantileSorted(sorted, 0.9),
    p99: quantileSorted(sorted, 0.99),
    n,
  };
}

/** The raw per-request samples behind {@link ServingMetrics}, in milliseconds (ITL: per token). */
export interface ServingSamples {
  /** TTFT of each measured successful streamed request. */
  readonly ttft_ms: readonly number[];
  /** Time to second token of each measured request with ≥ 2 tokens. */
  readonly ttst_ms: readonly number[];
  /** Time to first answer token of each measured streamed request with answer text. */
  readonly ttfa_ms: readonly number[];
  /** Inter-token latency of every token after each request's first chunk. */
  readonly itl_ms: readonly number[];
  /** TPOT of each measured request with ≥ 2 tokens. */
  readonly tpot_ms: readonly number[];
  /** End-to-end latency of each measured successful request. */
  readonly e2e_ms: readonly number[];
  /** End-to-end latency from the planned send (client queue and schedule lateness included). */
  readonly e2e_queue_ms: readonly number[];
  /** Client queue time (waiting for a free slot) of each measured request. */
  readonly queue_ms: readonly number[];
  /** Schedule lateness (send − planned − queue) of each measured request. */
  readonly lag_ms: readonly number[];
}

/** The metrics of one sweep point: scalar values keyed like the report's cell metrics, and their samples. */
export interface ServingMetrics {
  /** Scalar metrics (see `SERVING_METRICS` for units and definitions). */
  readonly metrics: Readonly<Record<string, number>>;
  /** Raw per-request samples. */
  readonly samples: ServingSamples;
  /** Measured requests by error kind (`http_500`, `timeout`, …). */
  readonly errors: Readonly<Record<string, number>>;
}

/** The error key of a failed request: `http_<status>` or its kind with `-` as `_`. */
const errorKey = (r: Extract<RequestRecord, { status: 'failed' }>): string =>
  r.kind === 'http' ? `http_${r.httpStatus ?? 0}` : r.kind.replace(/-/g, '_');

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

/** Schedule lateness of a request: how much later than planned it went out, beyond waiting for a slot, in ms. */
export const lateness = (r: RequestRecord): number => r.sentMs - r.plannedMs - r.queueMs;

/** The measurement window of measured requests, in seconds: first send to last end (`NaN` for none). */
export function measurementWindowS(measured: readonly RequestRecord[]): number {
  if (measured.length === 0) return Number.NaN;
  const start = Math.min(...measured.map((r) => r.sentMs));
  const end = Math.max(...measured.map((r) => r.sentMs + r.e2eMs));
  return (end - start) / 1000;
}

/** Options of {@link servingMetrics}. */
export interface ServingMetricsOptions {
  /** Objectives for goodput; with none, every successful request is good. */
  readonly slo?: Slo;
  /**
   * Whether the client's tokenizer is known to be the server's (checked against the server's `/tokenize`, or
   * given by the user): its counts are then exact where the server reported none. @default false
   */
  readonly tokenizerVerified?: boolean;
}

/**
 * Computes the metrics of a sweep point from its requests (only `measured` ones count). Rates are over the
 * measurement window: first measured send to last measured end.
 *
 * @param records - The point's requests.
 * @param options - SLOs, and whether the client's tokenizer is the server's.
 */
export function servingMetrics(
  records: readonly RequestRecord[],
  options: ServingMetricsOptions = {},
): ServingMetrics {
  const slo = options.slo ?? {};
  const measured = records.filter((r) => r.measured);
  const ok = measured.filter((r): r is SucceededRequest => r.status === 'ok');
  const failed = measured.filter((r) => r.status === 'failed');
  const errors: Record<string, number> = {};
  for (const r of failed) errors[errorKey(r)] = (errors[errorKey(r)] ?? 0) + 1;
  const windowS = measurementWindowS(measured);
  const finite = (xs: readonly number[]): number[] => xs.filter(Number.isFinite).map(round3);
  const samples: ServingSamples = {
    ttft_ms: finite(ok.map((r) => r.ttftMs)),
    ttst_ms: finite(ok.map((r) => r.ttstMs)),
    ttfa_ms: finite(ok.map((r) => r.ttfaMs)),
    itl_ms: ok.flatMap((r) => r.itlMs).map(round3),
    tpot_ms: finite(ok.map((r) => r.tpotMs)),
    e2e_ms: ok.map((r) => r.e2eMs).map(round3),
    e2e_queue_ms: ok.map((r) => r.sentMs + r.e2eMs - r.plannedMs).map(round3),
    queue_ms: measured.map((r) => r.queueMs).map(round3),
    lag_ms: measured.map(lateness).map(round3),
  };
  const good = ok.filter((r) => meetsSlo(r, slo)).length;
  const sum = (xs: readonly SucceededRequest[], f: (r: SucceededRequest) => number): number =>
    xs.reduce((s, r) => s + f(r), 0);
  const outputTokens = sum(ok, (r) => r.outputTokens);
  const chunks = sum(ok, (r) => r.chunkTokens.filter((n) => n > 0).length);
  const reported = ok.filter((r) => r.tokenSource === 'server');
  const prompted = ok.filter((r) => r.serverPromptTokens !== null);
  const cached = prompted.filter((r) => r.cachedTokens !== null);
  const timed = ok.filter((r) => r.serverPromptMs !== null);
  const mean = (xs: readonly number[]): number =>
    xs.length === 0 ? Number.NaN : xs.reduce((s, x) => s + x, 0) / xs.length;
  const [goodLow, goodHigh] = wilsonInterval(good, measured.length);
  const metrics: Record<string, number> = {};
  for (const key of ['ttft', 'ttst', 'ttfa', 'itl', 'tpot', 'e2e', 'e2e_queue'] as const) {
    const d = distribution(samples[`${key}_ms`]);
    metrics[`${key}_ms`] = d.mean;
    metrics[`${key}_p50_ms`] = d.p50;
    metrics[`${key}_p90_ms`] = d.p90;
    metrics[`${key}_p99_ms`] = d.p99;
  }
  const rate = (n: number): number => (windowS > 0 ? n / windowS : Number.NaN);
  const lag = distribution(samples.lag_ms);
  const queue = distribution(samples.queue_ms);
  const verified = options.tokenizerVerified === true;
  Object.assign(metrics, {
    output_tps: rate(outputTokens),
    requests_per_s: rate(ok.length),
    goodput_rps: rate(good),
    slo_attainment: measured.length === 0 ? Number.NaN : good / measured.length,
    slo_attainment_low: goodLow,
    slo_attainment_high: goodHigh,
    requests: measured.length,
    excluded_requests: records.length - measured.length,
    succeeded: ok.length,
    errors: failed.length,
    error_rate: measured.length === 0 ? Number.NaN : failed.length / measured.length,
    lag_ms: lag.mean,
    lag_p50_ms: lag.p50,
    lag_p99_ms: lag.p99,
    queue_ms: queue.mean,
    queue_p99_ms: queue.p99,
    output_tokens: outputTokens,
    reasoning_tokens: sum(ok, (r) => r.reasoningTokens),
    client_tokens: sum(ok, (r) => r.clientTokens),
    tokens_per_chunk: chunks === 0 ? Number.NaN : outputTokens / chunks,
    server_token_share: ok.length === 0 ? Number.NaN : reported.length / ok.length,
    tokens_exact: ok.length === 0 ? Number.NaN : reported.length === ok.length || verified ? 1 : 0,
    itl_exact: ok.length === 0 ? Number.NaN : ok.every((r) => r.tokenSplit !== 'proportional') ? 1 : 0,
    server_tokens: reported.length === 0 ? Number.NaN : sum(reported, (r) => r.outputTokens),
    token_count_diff:
      reported.length === 0 ? Number.NaN : sum(reported, (r) => r.clientTokens - r.outputTokens),
    prompt_tokens: prompted.length === 0 ? Number.NaN : sum(prompted, (r) => r.serverPromptTokens ?? 0),
    planned_prompt_tokens: sum(ok, (r) => r.plannedInputTokens),
    cache_hit_rate:
      cached.length === 0
        ? Number.NaN
        : sum(cached, (r) => r.cachedTokens ?? 0) /
          Math.max(
            1,
            sum(cached, (r) => r.serverPromptTokens ?? 0),
          ),
    server_prompt_ms: mean(timed.map((r) => r.serverPromptMs ?? 0)),
    server_tpot_ms: mean(ok.flatMap((r) => (r.serverTpotMs === null ? [] : [r.serverTpotMs]))),
    ttft_outside_prompt_ms: mean(
      timed.filter((r) => Number.isFinite(r.ttftMs)).map((r) => r.ttftMs - (r.serverPromptMs ?? 0)),
    ),
    window_s: windowS,
  });
  // A multi-turn load: TTFT by turn (1-based), which grows with the history a turn carries.
  const lastTurn = Math.max(0, ...ok.map((r) => r.turn));
  if (lastTurn > 0) {
    for (let t = 0; t <= lastTurn; t++)
      metrics[`ttft_turn_${t + 1}_p50_ms`] = distribution(
        ok.filter((r) => r.turn === t).map((r) => r.ttftMs),
      ).p50;
    metrics['turns_per_conversation'] = ok.length / new Set(ok.map((r) => r.index)).size;
  }
  for (const [key, n] of Object.entries(errors)) metrics[`errors_${key}`] = n;
  return { metrics, samples, errors };
}
