/**
 * A load's report as the rows the serving charts read: one row per sweep point (task `serving_point`) and one per
 * TTFT or ITL sample (task `serving_sample`), from the {@link SERVING_PHASE} cells `dantinox load` writes.
 *
 * @packageDocumentation
 */
import { SERVING_PHASE, type SuiteReport } from '../benchmarking/index.js';
import type { RequestLine } from '../serving/index.js';
import { type ChartRow, SERVING_POINT_TASK, SERVING_SAMPLE_TASK } from '../visualization/index.js';
import { operatorChartRows } from './operator-result.js';
import { servingTimelineRows } from './serving-timeline-rows.js';

/** The samples the distribution chart draws. */
const SAMPLE_METRICS = ['ttft_ms', 'itl_ms'] as const;
/** Most samples kept per metric and sweep point: report.html embeds them, and ITL has one per token. */
export const MAX_CHART_SAMPLES = 2000;

/**
 * At most `max` of `values`: all of them when they fit, else `max` evenly spaced order statistics (minimum and
 * maximum included), so the quartiles and range of the box plot are those of all the samples within one step.
 */
export function thinSamples(values: readonly number[], max = MAX_CHART_SAMPLES): number[] {
  if (values.length <= max) return [...values];
  const sorted = [...values].sort((a, b) => a - b);
  return Array.from({ length: max }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (max - 1))]!);
}

/**
 * The chart rows of `report`'s serving sweep points: per completed point, a `serving_point` row (`point` = the
 * cell id, its metrics, the model identity columns) and a `serving_sample` row per TTFT (ms, per request) and ITL
 * (ms, per token) sample, at most {@link MAX_CHART_SAMPLES} of each per point ({@link thinSamples}). Empty for a
 * report without serving cells.
 */
export function servingChartRows(report: SuiteReport): ChartRow[] {
  const out: ChartRow[] = [];
  for (const result of report.results) {
    for (const cell of result.cells ?? []) {
      if (cell.status !== 'completed' || cell.phase !== SERVING_PHASE) continue;
      const at = {
        point: cell.cell,
        concurrency: cell.metrics?.['concurrency'] ?? 0,
        rate: cell.metrics?.['rate'] ?? 0,
      };
      out.push({ task: SERVING_POINT_TASK, ...cell.metrics, ...at, ...report.modelMeta });
      for (const metric of SAMPLE_METRICS) {
        for (const value of thinSamples(cell.metricSamples?.[metric] ?? [])) {
          out.push({ task: SERVING_SAMPLE_TASK, ...at, metric, value_ms: value, ...report.modelMeta });
        }
      }
    }
  }
  return out;
}

/**
 * `{ chartRows }` when `report` has rows only charts read — serving sweep points and samples, the request timeline
 * of its `requests` (a load's requests.jsonl), the per-operator table of `bench --trace` — else nothing: spread it
 * into a run.
 */
export function chartRowsField(
  report: SuiteReport,
  requests: readonly RequestLine[] = [],
): { readonly chartRows?: readonly ChartRow[] } {
  const rows = [
    ...servingChartRows(report),
    ...servingTimelineRows(requests, report.modelMeta),
    ...operatorChartRows(report),
  ];
  return rows.length === 0 ? {} : { chartRows: rows };
}
