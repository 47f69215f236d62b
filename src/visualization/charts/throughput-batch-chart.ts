/**
 * Tokens/s vs batch size on a log-2 axis, one line per model.
 *
 * @packageDocumentation
 */

import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import type { ChartRow } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { sweepSpec } from './sweep.js';

/** Options of {@link ThroughputBatchChart}. */
export interface ThroughputBatchChartOptions {
  /** Column that names each line. @default `model` (qualified by `run` when needed), else `run`, `type`, `name` */
  readonly series?: string;
  /** Use only rows whose `task` equals this, when a `task` column exists. @default 'throughput' */
  readonly task?: string;
}

/** Matches the batch sweep columns `tps_bs{B}`. */
export const TPS_BATCH_PATTERN = /^tps_bs(\d+)$/;

/**
 * Throughput (tokens/s) against batch size from the `tps_bs{B}` columns: one line per model, x on a log-2
 * scale with every power of two in the range labelled, y from zero. A run of one batch size is drawn as one bar
 * per model.
 */
export class ThroughputBatchChart extends Chart<ThroughputBatchChartOptions> {
  static override readonly name: string = 'throughput_batch';
  static override readonly description =
    'Throughput (tokens/s) vs batch size (log-2 axis), one line per model.';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: [TPS_BATCH_PATTERN], label: 'tps_bs{B}' }],
    optional: [{ anyOf: ['model', 'run', 'type'], label: 'model | run | type' }],
  };
  static override readonly params: readonly ChartParam[] = [
    { name: 'series', type: 'string', default: 'model', description: 'Column naming each line.' },
    {
      name: 'task',
      type: 'string',
      default: 'throughput',
      description: 'Rows of this task only (if `task` exists).',
    },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    return sweepSpec(rows, config, {
      chart: ThroughputBatchChart.name,
      pattern: TPS_BATCH_PATTERN,
      xTitle: 'Batch size (sequences, log₂ scale)',
      xName: 'batch size',
      xField: 'batch_size',
      title: 'Throughput vs batch size',
      log2: 'always',
      series: this.options.series,
      task: this.options.task ?? 'throughput',
    });
  }
}
