/**
 * A load's requests as the rows the request timeline draws (task `serving_timeline`): per request, its client queue
 * (planned → sent), its time to first token (sent → first chunk), its decode chunk by chunk (each segment from one
 * chunk's arrival to the next, with that gap per token: the ITL), a whole response's span, or a failure's — at
 * most {@link MAX_TIMELINE_REQUESTS} requests and {@link MAX_TIMELINE_SEGMENTS} segments per sweep point, every
 * k-th in send order.
 *
 * @packageDocumentation
 */
import type { MetaValue } from '../benchmarking/index.js';
import type { RequestLine, SucceededRequest } from '../serving/index.js';
import { type ChartRow, SERVING_TIMELINE_TASK, type TimelinePart } from '../visualization/index.js';

/** Most requests drawn per sweep point: each is a bar of its own. */
export const MAX_TIMELINE_REQUESTS = 60;
/** Most segments drawn per sweep point (a streamed request has one per chunk): report.html embeds them. */
export const MAX_TIMELINE_SEGMENTS = 2000;

/** One drawn segment of a request, before the point's and the run's columns are added. */
export interface TimelineSegmentRow {
  /** Which part of the request. */
  readonly part: TimelinePart;
  /** Start, in ms from the point's start. */
  readonly start_ms: number;
  /** End, in ms from the point's start. */
  readonly end_ms: number;
  /** Decode: the gap per token of the segment's chunk (its tokens' ITL), in ms. */
  readonly itl_ms?: number;
  /** Decode: tokens of the segment's chunk. */
  readonly tokens?: number;
}

/** The decode of a streamed request: one segment per later chunk with tokens, its gap spread over its tokens. */
function decodeSegments(r: SucceededRequest): TimelineSegmentRow[] {
  const out: TimelineSegmentRow[] = [];
  let lastAt: number | undefined;
  for (const [i, at] of r.chunkAtMs.entries()) {
    const n = r.chunkTokens[i] ?? 0;
    if (n <= 0) continue;
    if (lastAt !== undefined)
      out.push({
        part: 'decode',
        start_ms: r.sentMs + lastAt,
        end_ms: r.sentMs + at,
        itl_ms: (at - lastAt) / n,
        tokens: n,
      });
    lastAt = at;
  }
  return out;
}

/** The segments of one request, in time order, in ms from its point's start. */
export function requestSegments(r: RequestLine): TimelineSegmentRow[] {
  const queue: TimelineSegmentRow[] =
    r.sentMs > r.plannedMs ? [{ part: 'queue', start_ms: r.plannedMs, end_ms: r.sentMs }] : [];
  if (r.status === 'failed')
    return [...queue, { part: 'failed', start_ms: r.sentMs, end_ms: r.sentMs + r.e2eMs }];
  if (!Number.isFinite(r.ttftMs))
    return [...queue, { part: 'response', start_ms: r.sentMs, end_ms: r.sentMs + r.e2eMs }];
  return [...queue, { part: 'ttft', start_ms: r.sentMs, end_ms: r.sentMs + r.ttftMs }, ...decodeSegments(r)];
}

/**
 * The step k of a point's timeline: the smallest with at most `maxRequests` of every k-th request (the first, the
 * (k+1)-th, …) whose segments number at most `maxSegments`.
 */
export function timelineStep(
  segmentCounts: readonly number[],
  maxRequests = MAX_TIMELINE_REQUESTS,
  maxSegments = MAX_TIMELINE_SEGMENTS,
): number {
  const n = segmentCounts.length;
  for (let k = Math.max(1, Math.ceil(n / maxRequests)); k < n; k++) {
    let segments = 0;
    for (let i = 0; i < n; i += k) segments += segmentCounts[i] ?? 0;
    if (segments <= maxSegments) return k;
  }
  return Math.max(1, n);
}

/**
 * The `serving_timeline` rows of a load's requests (its `requests.jsonl` lines): per sweep point (in order of first
 * appearance), every k-th request in send order ({@link timelineStep}), each segment a row with `point`, `request`
 * (its index in the point), `turn` (0, or a conversation's later turn), `lane` (its place among the drawn ones, from 0), `measured`, `part`, `start_ms`,
 * `end_ms` (ms from the point's start), `itl_ms` and `tokens` (decode), and the point's `requests`, `shown` and
 * `every`; then `identity` (the run's model columns). Empty for no requests.
 */
export function servingTimelineRows(
  lines: readonly RequestLine[],
  identity: Readonly<Record<string, MetaValue>> = {},
): ChartRow[] {
  const byPoint = new Map<string, RequestLine[]>();
  for (const line of lines) {
    const list = byPoint.get(line.point);
    if (list === undefined) byPoint.set(line.point, [line]);
    else list.push(line);
  }
  const out: ChartRow[] = [];
  for (const [point, requests] of byPoint) {
    const sent = [...requests].sort((a, b) => a.sentMs - b.sentMs || a.index - b.index);
    const segments = sent.map(requestSegments);
    const every = timelineStep(segments.map((s) => s.length));
    const drawn = sent.flatMap((r, i) => (i % every === 0 ? [{ r, segments: segments[i] ?? [] }] : []));
    const common = { task: SERVING_TIMELINE_TASK, point, requests: sent.length, shown: drawn.length, every };
    for (const [lane, { r, segments: parts }] of drawn.entries())
      for (const segment of parts)
        out.push({
          ...common,
          request: r.index,
          turn: r.turn,
          lane,
          measured: r.measured,
          ...segment,
          ...identity,
        });
  }
  return out;
}
