/**
 * Request records for the serving metrics' tests: a successful request of three one-token chunks and a timed-out
 * one, each with every field set, to be overridden per test.
 */
import type { FailedRequest, SucceededRequest } from '../../../src/serving/client/token-accounting.js';

/** A measured successful request: TTFT 10 ms, 3 tokens (server-counted), E2E 100 ms; `over` replaces fields. */
export const okRecord = (over: Partial<SucceededRequest> = {}): SucceededRequest => ({
  status: 'ok',
  index: 0,
  turn: 0,
  plannedMs: 0,
  queueMs: 0,
  sentMs: 0,
  measured: true,
  ttftMs: 10,
  ttstMs: 12,
  ttfaMs: 10,
  e2eMs: 100,
  itlMs: [2, 2],
  tpotMs: 45,
  outputTokens: 3,
  clientTokens: 3,
  tokenSource: 'server',
  tokenSplit: 'tokenizer',
  reasoningTokens: 0,
  chunkTokens: [1, 1, 1],
  chunkAtMs: [10, 12, 14],
  plannedInputTokens: 5,
  serverTokens: 3,
  serverPromptTokens: 5,
  cachedTokens: null,
  serverPromptMs: null,
  serverTpotMs: null,
  ...over,
});

/** A measured request that timed out after 50 ms; `over` replaces fields. */
export const failedRecord = (over: Partial<FailedRequest> = {}): FailedRequest => ({
  status: 'failed',
  index: 0,
  turn: 0,
  plannedMs: 0,
  queueMs: 0,
  sentMs: 0,
  measured: true,
  kind: 'timeout',
  message: 'x',
  e2eMs: 50,
  ...over,
});
