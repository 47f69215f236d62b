/**
 * Latency vs throughput scatter with p50–p99 ranges and the Pareto frontier.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, columnsWithValues, numericCell, successfulRows, textCell } from '../chart-data.js';
import { paretoFrontier } from '../pareto-frontier.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { seriesLabeler } from '../series.js';
import { distinct, seriesColor, vegaLiteFrame } from '../spec-frame.js';
import { themeSubtle } from '../theme.js';

/** Which latency a {@link LatencyChart} plots. */
export type LatencyPhase = 'prefill' | 'decode' | 'profiling';

/** Options of {@link LatencyChart}. */
export interface LatencyChartOptions {
  /**
   * What is plotted, always from the same row so the two axes describe the same measurement:
   * - *prefill*: `prefill_mean_ms` (range `prefill_p50_ms`–`prefill_p99_ms`) vs that row's `throughput_tps`
   *   (the latency task's prefill throughput);
   * - *decode*: `decode_mean_ms` (range `decode_p50_ms`–`decode_p99_ms`) vs `decode_tps`;
   * - *profiling*: `latency_mean_ms` (range to `latency_p99_ms`) vs `throughput_tps`.
   * @default 'prefill' when `prefill_mean_ms` has values, else 'profiling'
   */
  readonly phase?: LatencyPhase;
  /** Use only rows whose `task` equals this, when a `task` column exists. @default 'latency' */
  readonly task?: string;
  /** Column naming each model. @default automatic (`model`, `run`, `type`, `name`) */
  readonly series?: string;
}

interface PhaseColumns {
  readonly mean: string;
  readonly p50: string | undefined;
  readonly p99: string;
  readonly tps: string;
  readonly what: string;
  readonly xTitle: string;
  readonly yTitle: string;
}

const PHASES: Readonly<Record<LatencyPhase, PhaseColumns>> = {
  prefill: {
    mean: 'prefill_mean_ms',
    p50: 'prefill_p50_ms',
    p99: 'prefill_p99_ms',
    tps: 'throughput_tps',
    what: 'Prefill latency vs prefill throughput',
    xTitle: 'Prefill latency per forward pass (ms)',
    yTitle: 'Prefill throughput (tokens/s)',
  },
  decode: {
    mean: 'decode_mean_ms',
    p50: 'decode_p50_ms',
    p99: 'decode_p99_ms',
    tps: 'decode_tps',
    what: 'Decode step latency vs decode throughput',
    xTitle: 'Decode latency per step (ms)',
    yTitle: 'Decode throughput (tokens/s)',
  },
  profiling: {
    mean: 'latency_mean_ms',
    p50: undefined,
    p99: 'latency_p99_ms',
    tps: 'throughput_tps',
    what: 'Latency vs throughput',
    xTitle: 'Latency per call (ms)',
    yTitle: 'Throughput (tokens/s)',
  },
};

const PHASE_NAMES = Object.keys(PHASES) as LatencyPhase[];

/**
 * Latency (x, ms) against throughput (y, tokens/s), one point per measurement row at the mean latency, a
 * horizontal bar from p50 to p99 (mean to p99 when p50 is absent), and the Pareto frontier (lower latency,
 * higher throughput) as a dashed line. Both coordinates come from the same row of the same task (the seed mixed
 * the throughput task's last configuration with the latency task's prefill); the title says which. A single
 * point (one model, one row) is not drawn (`INVALID_INPUT` says why), as the Pareto chart with one variant.
 */
export class LatencyChart extends Chart<LatencyChartOptions> {
  static override readonly name: string = 'latency';
  static override readonly description =
    'Latency (mean, p50–p99) vs throughput per model, with the Pareto frontier (low latency, high throughput).';
  static override readonly accepts: ChartAccepts = {
    required: [
      {
        anyOf: ['prefill_mean_ms', 'decode_mean_ms', 'latency_mean_ms'],
        label: 'prefill_mean_ms | latency_mean_ms',
      },
      { anyOf: ['throughput_tps', 'decode_tps'], label: 'throughput_tps | decode_tps' },
    ],
    optional: [
      { anyOf: ['prefill_p50_ms', 'prefill_p99_ms', 'latency_p99_ms'], label: 'p50 / p99 columns' },
      { anyOf: ['task'], label: 'task' },
    ],
  };
  static override readonly params: readonly ChartParam[] = [
    {
      name: 'phase',
      type: "'prefill' | 'decode' | 'profiling'",
      default: "'prefill' if present",
      description: 'Which latency and throughput columns are plotted.',
    },
    {
      name: 'task',
      type: 'string',
      default: 'latency',
      description: 'Rows of this task only (if `task` exists).',
    },
    { name: 'series', type: 'string', default: 'model', description: 'Column naming each model.' },
  ];

  constructor(options?: LatencyChartOptions) {
    super(options);
    if (options?.phase !== undefined && !PHASE_NAMES.includes(options.phase)) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.badChartOption(LatencyChart.name, 'phase', options.phase, PHASE_NAMES.join(', ')),
      );
    }
  }

  override requirements(): ChartAccepts {
    const phase = this.options.phase;
    if (phase === undefined) return LatencyChart.accepts;
    const c = PHASES[phase];
    return {
      required: [
        { anyOf: [c.mean], label: c.mean },
        { anyOf: [c.tps], label: c.tps },
      ],
      optional: [],
    };
  }

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = LatencyChart.name;
    const task = this.options.task ?? 'latency';
    let selected = successfulRows(rows);
    if (selected.some((r) => textCell(r, 'task') !== undefined)) {
      selected = selected.filter((r) => textCell(r, 'task') === task);
    }
    const phase =
      this.options.phase ??
      (columnsWithValues(selected, 'prefill_mean_ms').length > 0
        ? 'prefill'
        : columnsWithValues(selected, 'latency_mean_ms').length > 0
          ? 'profiling'
          : 'decode');
    const c = PHASES[phase];
    const label = seriesLabeler(rows, this.options.series);
    const points = [];
    for (const row of selected) {
      const mean = numericCell(row, c.mean);
      const tps = numericCell(row, c.tps);
      if (mean === undefined || tps === undefined) continue;
      const p50 = c.p50 === undefined ? undefined : numericCell(row, c.p50);
      const p99 = numericCell(row, c.p99);
      points.push({
        series: label(row),
        x: mean,
        y: tps,
        lo: p50 ?? mean,
        hi: p99 ?? mean,
        ...(p50 === undefined ? {} : { p50 }),
        ...(p99 === undefined ? {} : { p99 }),
      });
    }
    if (points.length === 0) {
      const where = selected.length === rows.length ? '' : ` in rows with task = "${task}"`;
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(name, `no row has both ${c.mean} and ${c.tps}${where}`),
      );
    }
    if (points.length === 1) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartSingleSeries(name, points[0]!.series, 'a latency–throughput trade-off'),
      );
    }
    const frontier = paretoFrontier(points, { x: 'min', y: 'max' }).map((p) => ({ fx: p.x, fy: p.y }));
    const labels = distinct(points.map((p) => p.series));
    const hasP50 = points.some((p) => p.p50 !== undefined);
    const hasRange = points.some((p) => p.hi !== p.lo);
    const range = hasP50 ? 'p50–p99' : 'mean–p99';
    const subtitle = [
      `${selected.length === rows.length ? '' : `"${task}" task rows: `}points at the mean${hasRange ? `, bars span ${range}` : ''}`,
      frontier.length >= 2 ? 'dashed line: Pareto frontier (lower latency, higher throughput)' : '',
    ]
      .filter((s) => s !== '')
      .join('; ');
    const xTitle = `${c.xTitle}${hasRange ? `: mean, ${range}` : ''}`;
    const tooltip = [
      { field: 'series', type: 'nominal' as const, title: 'Model' },
      { field: 'x', type: 'quantitative' as const, title: `${c.mean}`, format: ',.3f' },
      ...(hasP50
        ? [{ field: 'p50', type: 'quantitative' as const, title: c.p50 ?? 'p50', format: ',.3f' }]
        : []),
      { field: 'p99', type: 'quantitative' as const, title: c.p99, format: ',.3f' },
      { field: 'y', type: 'quantitative' as const, title: c.tps, format: ',.1f' },
    ];
    // Every layer repeats the same axis definition: Vega-Lite would otherwise join differing titles.
    const xAxis = (field: string) => ({
      field,
      type: 'quantitative' as const,
      title: xTitle,
      scale: { zero: true },
    });
    const yAxis = (field: string) => ({
      field,
      type: 'quantitative' as const,
      title: c.yTitle,
      scale: { zero: true },
    });
    return {
      ...vegaLiteFrame(config, c.what, subtitle),
      layer: [
        ...(frontier.length >= 2
          ? [
              {
                data: { values: frontier },
                mark: {
                  type: 'line' as const,
                  strokeDash: [6, 4],
                  color: themeSubtle(config.theme),
                  strokeWidth: 1.5,
                },
                encoding: {
                  x: xAxis('fx'),
                  y: yAxis('fy'),
                  order: { field: 'fx', type: 'quantitative' as const },
                },
              },
            ]
          : []),
        {
          data: { values: points },
          layer: [
            {
              mark: { type: 'rule' as const, strokeWidth: 2.5, opacity: 0.55 },
              encoding: {
                x: xAxis('lo'),
                x2: { field: 'hi' },
                y: yAxis('y'),
                color: seriesColor(labels),
              },
            },
            {
              mark: { type: 'point' as const, size: 80, filled: true, opacity: 1 },
              encoding: {
                x: xAxis('x'),
                y: yAxis('y'),
                color: seriesColor(labels),
                tooltip,
              },
            },
          ],
        },
      ],
    };
  }
}
