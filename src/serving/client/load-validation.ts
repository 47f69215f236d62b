/**
 * `validateLoadPoint`: the self-checks every sweep point of a load runs on its own numbers — a request's parts add
 * up to its whole, throughput recomputed from the per-request rows agrees with the stated one, requests went out
 * at the planned rate and on time, client and server agree on output and prompt tokens, and output tokens were
 * counted by the server (or a tokenizer known to be its). Each check is a {@link ValidationCheck}: written to the
 * results, and a failed one is a warning line in the summary, the report and `compare`.
 *
 * @packageDocumentation
 */
import type { ValidationCheck } from '../../benchmarking/task.js';
import { messages } from '../../messages.js';
import { quantileSorted } from '../../profiling/index.js';
import { lateness, measurementWindowS } from './serving-metrics.js';
import type { RequestRecord, SucceededRequest } from './token-accounting.js';

/** The bounds of a load's self-checks, in one place. */
export const LOAD_CHECK_LIMITS = Object.freeze({
  /** Most a request's TTFT + inter-token gaps may exceed its end-to-end latency, in ms (rounding only). */
  e2eExcessMs: 0.001,
  /** Most relative gap between the stated output tokens/s and the one recomputed from the rows. */
  throughputRelative: 1e-9,
  /** Most relative gap between the achieved send rate and the planned schedule's rate. */
  rateRelative: 0.01,
  /** Most schedule lateness at p99, in ms. */
  latenessP99Ms: 2,
  /** Most relative gap between client and server token counts (at least `tokenAbsolute` tokens are allowed). */
  tokenRelative: 0.01,
  /** Token gap always allowed, in tokens. */
  tokenAbsolute: 1,
});

/** What the checks need to know besides the records. */
export interface LoadCheckContext {
  /** The sweep point's cell id, which every message starts with. */
  readonly point: string;
  /**
   * Whether requests had planned send times (an open loop, or a trace replayed at its times); a closed loop plans
   * each request when a slot frees, so its schedule is not checked.
   */
  readonly scheduled: boolean;
  /** The asked arrival rate, in requests/s; `undefined` for a trace (its own times). */
  readonly rate?: number | undefined;
  /** The output tokens/s the point's metrics state. */
  readonly outputTps: number;
  /** The client's tokenizer, by name. */
  readonly tokenizer: string;
  /**
   * How the client's tokenizer is known to be the server's (`checked against the server's /tokenize`, `given with
   * --tokenizer`), or `undefined` when it is not.
   */
  readonly tokenizerVerifiedBy?: string | undefined;
}

/** Whether `a` and `b` differ by more than the token limits allow. */
const tokensDiffer = (a: number, b: number): boolean =>
  Math.abs(a - b) > Math.max(LOAD_CHECK_LIMITS.tokenAbsolute, LOAD_CHECK_LIMITS.tokenRelative * b);

const check = (
  name: string,
  ok: boolean,
  value: number,
  limit: number,
  message: string,
): ValidationCheck => ({
  name,
  ok,
  value,
  limit,
  message,
});

/** `e2e_parts`: TTFT + inter-token gaps ≤ end-to-end latency, per streamed request. */
function e2eParts(ok: readonly SucceededRequest[], point: string): ValidationCheck {
  const streamed = ok.filter((r) => Number.isFinite(r.ttftMs));
  const excess = streamed.map((r) => r.ttftMs + r.itlMs.reduce((a, b) => a + b, 0) - r.e2eMs);
  const worst = Math.max(0, ...excess);
  const bad = excess.filter((x) => x > LOAD_CHECK_LIMITS.e2eExcessMs).length;
  return check(
    'e2e_parts',
    bad === 0,
    streamed.length === 0 ? Number.NaN : worst,
    LOAD_CHECK_LIMITS.e2eExcessMs,
    messages.checkE2eParts(point, streamed.length, bad, worst),
  );
}

/** `throughput_recomputed`: the stated output tokens/s equals Σ output tokens of the rows / their window. */
function throughput(measured: readonly RequestRecord[], context: LoadCheckContext): ValidationCheck {
  const tokens = measured.reduce((s, r) => s + (r.status === 'ok' ? r.outputTokens : 0), 0);
  const recomputed = tokens / measurementWindowS(measured);
  const gap = Math.abs(recomputed - context.outputTps) / Math.max(Math.abs(recomputed), Number.MIN_VALUE);
  const ok = Number.isNaN(recomputed)
    ? Number.isNaN(context.outputTps)
    : gap <= LOAD_CHECK_LIMITS.throughputRelative;
  return check(
    'throughput_recomputed',
    ok,
    recomputed,
    LOAD_CHECK_LIMITS.throughputRelative,
    messages.checkThroughput(context.point, context.outputTps, recomputed, ok),
  );
}

/** `rate_achieved` and `schedule_lateness`, for a point with planned send times (an open loop or a trace). */
function schedule(records: readonly RequestRecord[], context: LoadCheckContext): ValidationCheck[] {
  // The schedule plans first turns; a conversation's later turns follow its answers.
  const first = records.filter((r) => r.turn === 0);
  if (!context.scheduled || first.length < 2) return [];
  const sent = first.map((r) => r.sentMs).sort((a, b) => a - b);
  const planned = first.map((r) => r.plannedMs).sort((a, b) => a - b);
  const span = (xs: readonly number[]): number => (xs.at(-1) ?? 0) - (xs[0] ?? 0);
  const achieved = ((first.length - 1) * 1000) / span(sent);
  const plannedRate = ((first.length - 1) * 1000) / span(planned);
  const ratio = achieved / plannedRate - 1;
  const queued = records.some((r) => r.queueMs > 0);
  const late = records.map(lateness).sort((a, b) => a - b);
  const p99 = quantileSorted(late, 0.99);
  return [
    check(
      'rate_achieved',
      Math.abs(ratio) <= LOAD_CHECK_LIMITS.rateRelative,
      ratio,
      LOAD_CHECK_LIMITS.rateRelative,
      messages.checkRate(context.point, achieved, plannedRate, context.rate, queued),
    ),
    check(
      'schedule_lateness',
      p99 <= LOAD_CHECK_LIMITS.latenessP99Ms,
      p99,
      LOAD_CHECK_LIMITS.latenessP99Ms,
      messages.checkLateness(context.point, quantileSorted(late, 0.5), p99, LOAD_CHECK_LIMITS.latenessP99Ms),
    ),
  ];
}

/** `token_counts`, `prompt_tokens` and `tokens_confirmed`. */
function tokens(ok: readonly SucceededRequest[], context: LoadCheckContext): ValidationCheck[] {
  const out: ValidationCheck[] = [];
  const { point, tokenizer } = context;
  const reported = ok.filter((r) => r.tokenSource === 'server');
  if (reported.length > 0) {
    const client = reported.reduce((s, r) => s + r.clientTokens, 0);
    const server = reported.reduce((s, r) => s + r.outputTokens, 0);
    const agree = !tokensDiffer(client, server);
    out.push(
      check(
        'token_counts',
        agree,
        client - server,
        Math.max(LOAD_CHECK_LIMITS.tokenAbsolute, LOAD_CHECK_LIMITS.tokenRelative * server),
        messages.checkTokenCounts(point, client, server, tokenizer, agree),
      ),
    );
  }
  // A later turn's prompt carries its history, which the workload cannot plan: first turns only.
  const prompted = ok.filter((r) => r.serverPromptTokens !== null && r.turn === 0);
  if (prompted.length > 0) {
    const server = prompted.reduce((s, r) => s + (r.serverPromptTokens ?? 0), 0);
    const planned = prompted.reduce((s, r) => s + r.plannedInputTokens, 0);
    const agree = !tokensDiffer(server, planned);
    const perRequest = (n: number): number => Math.round(n / prompted.length);
    out.push(
      check(
        'prompt_tokens',
        agree,
        server - planned,
        Math.max(LOAD_CHECK_LIMITS.tokenAbsolute, LOAD_CHECK_LIMITS.tokenRelative * planned),
        messages.checkPromptTokens(point, perRequest(server), perRequest(planned), tokenizer, agree),
      ),
    );
  }
  if (ok.length > 0) {
    const all = reported.length === ok.length;
    const confirmed = all || context.tokenizerVerifiedBy !== undefined;
    const by = all ? "the server's counts" : `the client tokenizer's, ${context.tokenizerVerifiedBy ?? ''}`;
    out.push(
      check(
        'tokens_confirmed',
        confirmed,
        reported.length / ok.length,
        1,
        messages.checkTokensConfirmed(point, tokenizer, confirmed, by),
      ),
    );
  }
  return out;
}

/**
 * The self-checks of one sweep point, from its records (every request sent; the measured ones for the numbers)
 * and the output tokens/s its metrics state.
 */
export function validateLoadPoint(
  records: readonly RequestRecord[],
  context: LoadCheckContext,
): ValidationCheck[] {
  const measured = records.filter((r) => r.measured);
  const ok = measured.filter((r): r is SucceededRequest => r.status === 'ok');
  return [
    e2eParts(ok, context.point),
    throughput(measured, context),
    ...schedule(records, context),
    ...tokens(ok, context),
  ];
}
