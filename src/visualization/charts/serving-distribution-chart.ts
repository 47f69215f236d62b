/**
 * The distribution of per-request TTFT and per-token ITL at each sweep point of a `dantinox load`.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { distinct, FIXED_SIZE, vegaLiteFrame } from '../spec-frame.js';
import { loadAxis, SERVING_PARAMS, SERVING_SAMPLE_TASK, servingRows } from './serving-rows.js';

/** Options of {@link ServingDistributionChart}. */
export interface ServingDistributionChartOptions {
  /** Column that names each run. @default `model` (qualified by `run` when needed) */
  readonly series?: string;
}

/** One drawn sample: a TTFT (per request) or ITL (per token) in milliseconds at one sweep point of one series. */
export interface ServingSamplePoint {
  /** Series (run) label. */
  readonly series: string;
  /** Sweep point id. */
  readonly point: string;
  /** Offered load: the concurrency or rate of the point. */
  readonly load: number;
  /** `TTFT` or `ITL`. */
  readonly metric: string;
  /** The sample in milliseconds. */
  readonly value_ms: number;
}

const METRICS: Readonly<Record<string, string>> = { ttft_ms: 'TTFT', itl_ms: 'ITL' };

/**
 * Latency samples (ms) per sweep point: a box plot (quartiles, whiskers at the minimum and maximum) of the per-request
 * TTFT and of the per-token ITL at each offered load, from rows of task `serving_sample`; one panel per metric,
 * one row of panels per run when several.
 */
export class ServingDistributionChart extends Chart<ServingDistributionChartOptions> {
  static override readonly name: string = 'serving_distribution';
  static override readonly description =
    'Box plot of per-request TTFT and per-token ITL (ms) at each sweep point.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['value_ms'], label: 'value_ms' },
      { anyOf: ['metric'], label: 'metric' },
    ],
    optional: [{ anyOf: ['concurrency', 'rate'], label: 'concurrency | rate' }],
  };
  static override readonly params: readonly ChartParam[] = SERVING_PARAMS;

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = ServingDistributionChart.name;
    const { rows: samples, label } = servingRows(rows, SERVING_SAMPLE_TASK, name, this.options.series);
    const axis = loadAxis(samples);
    const values = servingSamplePoints(samples, label, axis.field);
    if (values.length === 0) {
      throw new DantinoxError('INVALID_INPUT', messages.chartNothingToDraw(name, 'no TTFT or ITL samples'));
    }
    const series = distinct(values.map((v) => v.series));
    const loads = distinct(values.map((v) => v.load)).sort((a, b) => a - b);
    const {
      $schema,
      title,
      config: theme,
    } = vegaLiteFrame(
      config,
      'Latency distribution per sweep point',
      `TTFT per request, ITL per token; ${series.length > 1 ? `one row per run (${series.length} runs)` : `run: ${series[0]}`}`,
    );
    return {
      $schema,
      title,
      config: theme,
      usermeta: { ...FIXED_SIZE },
      data: { values: values as unknown as Record<string, unknown>[] },
      facet: {
        column: { field: 'metric', type: 'nominal', title: null, sort: ['TTFT', 'ITL'] },
        ...(series.length > 1
          ? { row: { field: 'series', type: 'nominal', title: null, sort: [...series] } }
          : {}),
      },
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: Math.max(200, Math.round(config.width / 2) - 40),
        height: config.height,
        mark: { type: 'boxplot', extent: 'min-max' },
        encoding: {
          x: { field: 'load', type: 'ordinal', title: axis.title, sort: loads },
          y: { field: 'value_ms', type: 'quantitative', title: 'Latency (ms)', scale: { zero: true } },
        },
      },
    };
  }
}

/** The samples of `rows`, sorted by load; rows of other metrics and non-numeric values are left out. */
export function servingSamplePoints(
  rows: readonly ChartRow[],
  label: (row: ChartRow) => string,
  load: 'concurrency' | 'rate',
): ServingSamplePoint[] {
  return rows
    .flatMap((row) => {
      const metric = METRICS[textCell(row, 'metric') ?? ''];
      const value = numericCell(row, 'value_ms');
      return metric === undefined || value === undefined
        ? []
        : [
            {
              series: label(row),
              point: textCell(row, 'point') ?? '',
              load: numericCell(row, load) ?? 0,
              metric,
              value_ms: value,
            },
          ];
    })
    .sort((a, b) => a.load - b.load);
}
