/**
 * The rows the serving charts read, and what they share: a load's sweep points (`task: serving_point`, one row
 * per point with its metrics), its per-request samples (`task: serving_sample`, one row per sample) and its
 * requests' timelines (`task: serving_timeline`, one row per segment), and which offered load (concurrency or rate)
 * the x axis shows.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { ChartParam } from '../chart.js';
import { type ChartRow, numericCell, successfulRows, textCell } from '../chart-data.js';
import { seriesLabeler } from '../series.js';
import { distinct } from '../spec-frame.js';

/** `task` of a sweep point's row: `point`, `concurrency`, `rate` and the point's metrics (`ttft_p50_ms`, …). */
export const SERVING_POINT_TASK = 'serving_point';
/** `task` of a per-request sample's row: `point`, `concurrency`, `rate`, `metric` (`ttft_ms`, `itl_ms`) and `value_ms`. */
export const SERVING_SAMPLE_TASK = 'serving_sample';

/**
 * `task` of a request timeline's row: one segment of one request — `point`, `request`, `lane`, `measured`, `part`,
 * `start_ms`, `end_ms` (ms from the point's start), `itl_ms` and `tokens` for decode, and the point's `requests`,
 * `shown` and `every`.
 */
export const SERVING_TIMELINE_TASK = 'serving_timeline';

/**
 * The parts of a request on its timeline: client queue (planned → sent), time to first token (sent → first chunk),
 * decode (one segment per chunk after the first), a whole (not streamed) response, a failure (sent → failed).
 */
export const TIMELINE_PARTS = ['queue', 'ttft', 'decode', 'response', 'failed'] as const;

/** One of {@link TIMELINE_PARTS}. */
export type TimelinePart = (typeof TIMELINE_PARTS)[number];

/** The option every serving chart takes: the column naming each run. */
export const SERVING_PARAMS: readonly ChartParam[] = [
  { name: 'series', type: 'string', default: 'model', description: 'Column naming each run.' },
];

/** The offered-load column the serving charts put on x, and its axis title. */
export interface LoadAxis {
  /** `concurrency` (requests in flight) or `rate` (planned arrivals per second). */
  readonly field: 'concurrency' | 'rate';
  /** Axis title with unit. */
  readonly title: string;
}

/** Rows of `task` that did not fail, each labelled with its series (`model`, or `model (run)` across runs). */
export function servingRows(
  rows: readonly ChartRow[],
  task: string,
  chart: string,
  series: string | undefined,
): { readonly rows: readonly ChartRow[]; readonly label: (row: ChartRow) => string } {
  const selected = successfulRows(rows).filter((r) => textCell(r, 'task') === task);
  if (selected.length === 0) {
    throw new DantinoxError('INVALID_INPUT', messages.chartNothingToDraw(chart, `no ${task} rows`));
  }
  return { rows: selected, label: seriesLabeler(selected, series) };
}

/**
 * The load axis of `rows`: the column that varies (concurrency first); when neither does, `rate` for an open
 * loop (a rate above 0), else `concurrency`.
 */
export function loadAxis(rows: readonly ChartRow[]): LoadAxis {
  const values = (c: string) => distinct(rows.map((r) => numericCell(r, c) ?? 0));
  const concurrency: LoadAxis = { field: 'concurrency', title: 'Concurrency (requests in flight)' };
  const rate: LoadAxis = { field: 'rate', title: 'Offered rate (requests/s)' };
  if (values('concurrency').length > 1) return concurrency;
  if (values('rate').length > 1) return rate;
  return values('rate').some((v) => v > 0) ? rate : concurrency;
}

/** The x scale and axis of a load sweep's points: ticks at the points themselves, never between them. */
export interface LoadScale {
  /** Vega-Lite scale: `log` base 2 for a doubling sweep (1, 2, 4, …), else linear without zero. */
  readonly scale: { readonly type: 'linear' | 'log'; readonly base?: number; readonly zero: false };
  /** Vega-Lite axis: one tick and label per point (`values`), integers without decimals (`format`). */
  readonly axis: { readonly values: readonly number[]; readonly format: string };
}

/**
 * The scale and axis for an offered-load x axis whose points are `loads` (concurrency or rate): one tick per sweep
 * point, so that a sweep of 1 and 4 reads 1 and 4 rather than 1.0, 1.5, 2.0 …; a log-2 scale when every point
 * doubles the one before (three points or more), so that 1, 2, 4, 8, 16 are evenly spaced. Infinite and
 * non-positive values (an unbounded rate) get no tick.
 */
export function loadScale(loads: readonly number[]): LoadScale {
  const points = distinct(loads.filter((v) => Number.isFinite(v) && v > 0)).sort((a, b) => a - b);
  const doubling =
    points.length >= 3 && points.every((v, i) => i === 0 || v === 2 * (points[i - 1] as number));
  return {
    scale: doubling ? { type: 'log', base: 2, zero: false } : { type: 'linear', zero: false },
    axis: { values: points, format: points.every(Number.isInteger) ? 'd' : '~g' },
  };
}
