/**
 * Output tokens/s, requests/s and goodput against the offered load of a `dantinox load` sweep.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { distinct } from '../spec-frame.js';
import { servingFacetSpec } from './serving-latency-chart.js';
import { loadAxis, SERVING_PARAMS, SERVING_POINT_TASK, servingRows } from './serving-rows.js';

/** Options of {@link ServingThroughputChart}. */
export interface ServingThroughputChartOptions {
  /** Column that names each run's lines. @default `model` (qualified by `run` when needed) */
  readonly series?: string;
}

/** One drawn point: a throughput of one sweep point of one series. */
export interface ServingThroughputPoint {
  /** Series (run) label. */
  readonly series: string;
  /** Sweep point id. */
  readonly point: string;
  /** Offered load: the concurrency or rate of the point. */
  readonly load: number;
  /** Panel: `Output tokens/s` or `Requests/s`. */
  readonly panel: string;
  /** Curve: `output tokens/s`, `requests/s` or `goodput (SLOs met)`. */
  readonly measure: string;
  /** The value, in tokens/s or requests/s as the panel says. */
  readonly value: number;
}

const TOKENS = 'Output tokens/s';
const REQUESTS = 'Requests/s';
const REQUESTS_CURVE = 'requests/s';
const CURVES = [
  ['output_tps', TOKENS, 'output tokens/s'],
  ['requests_per_s', REQUESTS, REQUESTS_CURVE],
  ['goodput_rps', REQUESTS, 'goodput (SLOs met)'],
] as const;

/**
 * Throughput (tokens/s, requests/s) against offered load: output tokens/s in one panel; requests/s and goodput
 * (requests/s meeting every SLO) as two curves of the other, requests/s wide and translucent beneath goodput (which
 * equals it when every request met the SLOs), from rows of task `serving_point`. One dash pattern per run when
 * several.
 */
export class ServingThroughputChart extends Chart<ServingThroughputChartOptions> {
  static override readonly name: string = 'serving_throughput';
  static override readonly description =
    'Output tokens/s and requests/s vs offered load, with goodput (requests/s meeting the SLOs) as its own curve.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['output_tps', 'requests_per_s'], label: 'output_tps | requests_per_s' },
      { anyOf: ['concurrency', 'rate'], label: 'concurrency | rate' },
    ],
    optional: [{ anyOf: ['goodput_rps'], label: 'goodput_rps' }],
  };
  static override readonly params: readonly ChartParam[] = SERVING_PARAMS;

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = ServingThroughputChart.name;
    const { rows: points, label } = servingRows(rows, SERVING_POINT_TASK, name, this.options.series);
    const axis = loadAxis(points);
    const values = servingThroughputPoints(points, label, axis.field);
    if (values.length === 0) {
      throw new DantinoxError('INVALID_INPUT', messages.chartNothingToDraw(name, 'no throughput values'));
    }
    const series = distinct(values.map((v) => v.series));
    return servingFacetSpec(config, {
      title: 'Throughput vs load',
      subtitle: series.length > 1 ? `One dash pattern per run (${series.length} runs)` : `Run: ${series[0]}`,
      values,
      facet: 'panel',
      facetSort: [TOKENS, REQUESTS],
      x: axis.title,
      y: { field: 'value', title: 'Throughput' },
      color: { field: 'measure', title: 'Curve', domain: CURVES.map(([, , m]) => m) },
      series,
      underlay: REQUESTS_CURVE,
    });
  }
}

/** The throughput points of `rows` (sweep points), sorted by load; missing values are left out. */
export function servingThroughputPoints(
  rows: readonly ChartRow[],
  label: (row: ChartRow) => string,
  load: 'concurrency' | 'rate',
): ServingThroughputPoint[] {
  return rows
    .flatMap((row) =>
      CURVES.flatMap(([key, panel, measure]) => {
        const value = numericCell(row, key);
        return value === undefined
          ? []
          : [
              {
                series: label(row),
                point: textCell(row, 'point') ?? '',
                load: numericCell(row, load) ?? 0,
                panel,
                measure,
                value,
              },
            ];
      }),
    )
    .sort((a, b) => a.load - b.load);
}
