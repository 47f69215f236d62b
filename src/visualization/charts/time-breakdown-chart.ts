/**
 * "Where the time goes": one stacked horizontal bar per run (or variant) and profiled call — prefill, decode —
 * split into the share of ONNX Runtime kernel time of each operator category, from the `profile` rows of
 * `dantinox bench --profile`.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { OP_CATEGORIES } from '../../profiling/op-time-breakdown.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, successfulRows } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { seriesLabeler } from '../series.js';
import { vegaLiteFrame } from '../spec-frame.js';

/** Options of {@link TimeBreakdownChart}. */
export interface TimeBreakdownChartOptions {
  /** Column that names each run or variant. @default `model` (qualified by `run`), else `run` */
  readonly series?: string;
}

/** Kernel-total columns of the profiled calls: `profile_prefill_kernels_ms`, `profile_decode_kernels_ms`. */
const KERNELS = /^profile_(prefill|decode)_kernels_ms$/;
const PHASES = ['prefill', 'decode'] as const;

/** Category colours (stable across runs): matrix products blue, attention orange, norm green, softmax red. */
const CATEGORY_COLORS = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#bab0ac'];

/** One segment of a bar. */
interface Segment {
  bar: string;
  category: string;
  order: number;
  ms: number;
  share: number;
}

/**
 * Stacked horizontal bars of the `profile_{phase}_{category}_ms` columns: one bar per row and phase, labelled
 * `series · phase`, each segment a category's share of the call's kernel time (`profile_{phase}_kernels_ms`), so
 * a prefill of 100 ms and a decode step of 2 ms are compared by their mix; the tooltip gives the milliseconds.
 */
export class TimeBreakdownChart extends Chart<TimeBreakdownChartOptions> {
  static override readonly name: string = 'time_breakdown';
  static override readonly description =
    'Where the time goes: share of ONNX Runtime kernel time per operator category of one prefill and one decode step (bench --profile).';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: [KERNELS], label: 'profile_{phase}_kernels_ms (+ profile_{phase}_{category}_ms)' }],
    optional: [{ anyOf: ['model', 'run', 'run_id'], label: 'model | run | run_id' }],
  };
  static override readonly params: readonly ChartParam[] = [
    {
      name: 'series',
      type: 'string',
      default: 'model',
      description: 'Column naming each run (one bar per phase).',
    },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const selected = successfulRows(rows);
    const label = seriesLabeler(rows, this.options.series);
    const segments: Segment[] = [];
    const bars: string[] = [];
    for (const row of selected) {
      for (const phase of PHASES) {
        const kernels = numericCell(row, `profile_${phase}_kernels_ms`);
        if (kernels === undefined || !(kernels > 0)) continue;
        const bar = `${label(row)} · ${phase}`;
        if (bars.includes(bar)) continue;
        bars.push(bar);
        for (const [order, category] of OP_CATEGORIES.entries()) {
          const ms = numericCell(row, `profile_${phase}_${category}_ms`) ?? 0;
          segments.push({ bar, category, order, ms, share: ms / kernels });
        }
      }
    }
    if (segments.length === 0) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(
          TimeBreakdownChart.name,
          'no row has a positive profile_{phase}_kernels_ms (run bench --profile on the ort engine)',
        ),
      );
    }
    const spec: VegaLiteSpec = {
      ...vegaLiteFrame(
        config,
        'Where the time goes',
        'ONNX Runtime kernel time per operator category, one prefill and one decode step (share of the call)',
      ),
      data: { values: segments },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'bar', type: 'nominal', title: null, sort: bars },
        x: {
          field: 'share',
          type: 'quantitative',
          title: 'Share of kernel time',
          stack: 'zero',
          scale: { domain: [0, 1] },
          axis: { format: '.0%' },
        },
        color: {
          field: 'category',
          type: 'nominal',
          title: 'Operators',
          scale: { domain: [...OP_CATEGORIES], range: CATEGORY_COLORS },
          legend: { orient: 'bottom' },
        },
        order: { field: 'order', type: 'quantitative' },
        tooltip: [
          { field: 'bar', type: 'nominal', title: 'Call' },
          { field: 'category', type: 'nominal', title: 'Operators' },
          { field: 'ms', type: 'quantitative', title: 'Kernel time (ms)', format: ',.3f' },
          { field: 'share', type: 'quantitative', title: 'Share', format: '.1%' },
        ],
      },
    };
    return spec;
  }
}
