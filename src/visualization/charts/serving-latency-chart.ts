/**
 * TTFT and ITL percentiles against the offered load of a `dantinox load` sweep.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { distinct, FIXED_SIZE, vegaLiteFrame } from '../spec-frame.js';
import { loadAxis, loadScale, SERVING_PARAMS, SERVING_POINT_TASK, servingRows } from './serving-rows.js';

/** Options of {@link ServingLatencyChart}. */
export interface ServingLatencyChartOptions {
  /** Column that names each run's lines. @default `model` (qualified by `run` when needed) */
  readonly series?: string;
}

/** One drawn point: a percentile of TTFT or ITL (ms) at one sweep point of one series. */
export interface ServingLatencyPoint {
  /** Series (run) label. */
  readonly series: string;
  /** Sweep point id, e.g. `concurrency=4,rate=inf`. */
  readonly point: string;
  /** Offered load: the concurrency or rate of the point. */
  readonly load: number;
  /** `TTFT` or `ITL`. */
  readonly metric: string;
  /** `p50`, `p90` or `p99`. */
  readonly percentile: string;
  /** The percentile in milliseconds. */
  readonly value_ms: number;
}

const METRICS = [
  ['ttft', 'TTFT'],
  ['itl', 'ITL'],
] as const;
const PERCENTILES = ['p50', 'p90', 'p99'] as const;

/**
 * Latency (ms) against offered load: the p50, p90 and p99 of time to first token and of inter-token latency at
 * each sweep point of a load (rows of task `serving_point`), one panel per metric, one line per percentile (and
 * dash pattern per run when several). The x axis is the concurrency, or the rate when that is what the sweep varied.
 */
export class ServingLatencyChart extends Chart<ServingLatencyChartOptions> {
  static override readonly name: string = 'serving_latency';
  static override readonly description =
    'TTFT and ITL p50/p90/p99 (ms) vs offered load, one line per percentile.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['ttft_p50_ms', 'itl_p50_ms'], label: 'ttft_p50_ms | itl_p50_ms' },
      { anyOf: ['concurrency', 'rate'], label: 'concurrency | rate' },
    ],
    optional: [{ anyOf: ['model', 'run'], label: 'model | run' }],
  };
  static override readonly params: readonly ChartParam[] = SERVING_PARAMS;

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = ServingLatencyChart.name;
    const { rows: points, label } = servingRows(rows, SERVING_POINT_TASK, name, this.options.series);
    const axis = loadAxis(points);
    const values = servingLatencyPoints(points, label, axis.field);
    if (values.length === 0) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(name, 'no TTFT or ITL percentiles'),
      );
    }
    const series = distinct(values.map((v) => v.series));
    return servingFacetSpec(config, {
      title: 'Latency vs load',
      subtitle: series.length > 1 ? `One dash pattern per run (${series.length} runs)` : `Run: ${series[0]}`,
      values,
      facet: 'metric',
      facetSort: METRICS.map(([, m]) => m),
      x: axis.title,
      y: { field: 'value_ms', title: 'Latency (ms)' },
      color: { field: 'percentile', title: 'Percentile', domain: [...PERCENTILES] },
      series,
    });
  }
}

/** The percentile points of `rows` (sweep points), sorted by load; missing percentiles are left out. */
export function servingLatencyPoints(
  rows: readonly ChartRow[],
  label: (row: ChartRow) => string,
  load: 'concurrency' | 'rate',
): ServingLatencyPoint[] {
  return rows
    .flatMap((row) =>
      METRICS.flatMap(([key, metric]) =>
        PERCENTILES.flatMap((percentile) => {
          const value = numericCell(row, `${key}_${percentile}_ms`);
          return value === undefined
            ? []
            : [
                {
                  series: label(row),
                  point: textCell(row, 'point') ?? '',
                  load: numericCell(row, load) ?? 0,
                  metric,
                  percentile,
                  value_ms: value,
                },
              ];
        }),
      ),
    )
    .sort((a, b) => a.load - b.load);
}

/** What {@link servingFacetSpec} draws. */
export interface ServingFacetOptions {
  /** Chart title. */
  readonly title: string;
  /** Chart subtitle. */
  readonly subtitle: string;
  /** The points, each with `series`, `load` (the x axis ticks at their loads), the facet and colour fields and y. */
  readonly values: readonly { readonly load: number }[];
  /** Field naming each panel. */
  readonly facet: string;
  /** Panel order. */
  readonly facetSort: readonly string[];
  /** Title of the x (load) axis. */
  readonly x: string;
  /** The y field and its title. */
  readonly y: { readonly field: string; readonly title: string };
  /** The field naming each coloured line, and its order. */
  readonly color: { readonly field: string; readonly title: string; readonly domain: readonly string[] };
  /** Series labels: one dash pattern each when there are several. */
  readonly series: readonly string[];
  /**
   * A colour value drawn wide and translucent, so that a curve equal to it (goodput when every request met the
   * SLOs equals requests/s) is seen on top of it rather than hiding it.
   */
  readonly underlay?: string;
}

/** Lines (with points) against load, one panel per value of `facet`, each panel with its own y scale. */
export function servingFacetSpec(config: ResolvedRenderConfig, o: ServingFacetOptions): VegaLiteSpec {
  const { $schema, title, config: theme } = vegaLiteFrame(config, o.title, o.subtitle);
  const several = o.series.length > 1;
  const { scale, axis } = loadScale(o.values.map((v) => v.load));
  return {
    $schema,
    title,
    config: theme,
    usermeta: { ...FIXED_SIZE },
    data: { values: withStroke(o.values, o.color.field, o.underlay) as Record<string, unknown>[] },
    facet: { column: { field: o.facet, type: 'nominal', title: null, sort: [...o.facetSort] } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: Math.max(200, Math.round(config.width / 2) - 40),
      height: config.height,
      layer: [
        {
          mark: { type: 'line' },
          encoding: {
            size: { field: 'stroke_px', type: 'quantitative', scale: null, legend: null },
            opacity: { field: 'opacity', type: 'quantitative', scale: null, legend: null },
          },
        },
        { mark: { type: 'point', size: 50, filled: true, opacity: 1 } },
      ],
      encoding: {
        x: {
          field: 'load',
          type: 'quantitative',
          title: o.x,
          scale: { ...scale },
          axis: { ...axis, values: [...axis.values] },
        },
        y: { field: o.y.field, type: 'quantitative', title: o.y.title, scale: { zero: true } },
        color: {
          field: o.color.field,
          type: 'nominal',
          title: o.color.title,
          scale: { domain: [...o.color.domain] },
        },
        ...(several
          ? {
              strokeDash: {
                field: 'series',
                type: 'nominal',
                title: 'Run',
                scale: { domain: [...o.series] },
              },
            }
          : {}),
        detail: { field: 'series', type: 'nominal' },
        tooltip: [
          { field: 'series', type: 'nominal', title: 'Run' },
          { field: 'point', type: 'nominal', title: 'Sweep point' },
          { field: o.color.field, type: 'nominal', title: o.color.title },
          { field: o.y.field, type: 'quantitative', title: o.y.title, format: ',.2f' },
        ],
      },
    },
  };
}

/** Stroke width (px) and opacity of each value's line: the `underlay` colour's wide and translucent. */
function withStroke(values: readonly object[], field: string, underlay: string | undefined): object[] {
  return values.map((v) => {
    const under = underlay !== undefined && (v as Record<string, unknown>)[field] === underlay;
    return { ...v, stroke_px: under ? 8 : 2, opacity: under ? 0.45 : 1 };
  });
}
