/**
 * Tokens/s vs sequence length, one line per model.
 *
 * @packageDocumentation
 */

import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import type { ChartRow } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { sweepSpec } from './sweep.js';

/** Options of {@link ThroughputChart}. */
export interface ThroughputChartOptions {
  /** Column that names each line. @default `model` (qualified by `run` when needed), else `run`, `type`, `name` */
  readonly series?: string;
  /** Use only rows whose `task` equals this, when a `task` column exists. @default 'throughput' */
  readonly task?: string;
}

/** Matches the seq-len sweep columns: `tps_seq{L}` (suite), and the seed's older `tps_sl{L}` / `tps_{L}`. */
export const TPS_SEQ_PATTERN = /^tps_(?:seq|sl)?(\d+)$/;

/**
 * Throughput (tokens/s) against sequence length (tokens) from the `tps_seq{L}` columns: one line per model,
 * the mean over a model's rows when it has several. The x axis is log-2 when every length is a power of two
 * (labelled at each length), linear otherwise; y starts at zero. A run of one length is drawn as one bar per model.
 */
export class ThroughputChart extends Chart<ThroughputChartOptions> {
  static override readonly name: string = 'throughput';
  static override readonly description = 'Throughput (tokens/s) vs sequence length, one line per model.';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: [TPS_SEQ_PATTERN], label: 'tps_seq{L}' }],
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
      chart: ThroughputChart.name,
      pattern: TPS_SEQ_PATTERN,
      xTitle: 'Sequence length (tokens)',
      xName: 'sequence length',
      xField: 'seq_len',
      title: 'Throughput vs sequence length',
      log2: 'auto',
      series: this.options.series,
      task: this.options.task ?? 'throughput',
    });
  }
}
