/**
 * Training (and validation) loss against step, epoch or row number, from a training log.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, columnNames, columnsWithValues, numericCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { SERIES_COLUMNS, seriesLabeler } from '../series.js';
import { distinct, vegaLiteFrame } from '../spec-frame.js';
import { PALETTES } from '../theme.js';

/** Options of {@link TrainingCurveChart}. */
export interface TrainingCurveChartOptions {
  /** x column. @default `step` if it has values, else `epoch`, else the row number within each run */
  readonly x?: string;
  /** Column that tells runs apart (one colour per run). @default automatic (`model`, `run`, `type`, `name`) */
  readonly series?: string;
  /** Log-scale y axis (useful for losses spanning decades). @default false */
  readonly logY?: boolean;
}

const SPLITS = ['Training', 'Validation'] as const;
/** Legend entries drawn as short line segments, so solid vs dashed is visible. */
const LINE_LEGEND = { symbolType: 'stroke', symbolStrokeWidth: 2.5, symbolSize: 300 } as const;

/**
 * Loss curves from a training log: training loss (`loss`, or `train_loss` as the seed's own trainer writes it)
 * and, when present, validation loss (`val_loss`, dashed). x is `step`, else `epoch`, else the row number.
 * Rows that leave a loss cell empty (e.g. validation only every N steps) are skipped per curve, not zeroed.
 * Several runs in one log (a `model`/`run` column) get one colour each. A log of a single x value is not drawn
 * (`INVALID_INPUT` says why).
 */
export class TrainingCurveChart extends Chart<TrainingCurveChartOptions> {
  static override readonly name: string = 'training_curve';
  static override readonly description = 'Training and validation loss vs step / epoch from a training log.';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: ['loss', 'train_loss'], label: 'loss | train_loss' }],
    optional: [
      { anyOf: ['val_loss'], label: 'val_loss' },
      { anyOf: ['step', 'epoch'], label: 'step | epoch' },
    ],
  };
  static override readonly params: readonly ChartParam[] = [
    { name: 'x', type: 'string', default: 'step | epoch | row', description: 'Column on the x axis.' },
    { name: 'series', type: 'string', default: 'model', description: 'Column telling runs apart.' },
    { name: 'logY', type: 'boolean', default: 'false', description: 'Log-scale loss axis.' },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = TrainingCurveChart.name;
    const trainColumn = columnsWithValues(rows, 'loss').length > 0 ? 'loss' : 'train_loss';
    const hasVal = columnsWithValues(rows, 'val_loss').length > 0;
    let xColumn = this.options.x;
    if (xColumn !== undefined && !columnNames(rows).includes(xColumn)) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.badChartOption(name, 'x', xColumn, `a column of the data (${columnNames(rows).join(', ')})`),
      );
    }
    xColumn ??= ['step', 'epoch'].find((c) => columnsWithValues(rows, c).length > 0);
    const hasIdentity =
      this.options.series !== undefined || SERIES_COLUMNS.some((c) => columnsWithValues(rows, c).length > 0);
    const label = seriesLabeler(rows, this.options.series);
    const counters = new Map<string, number>();
    const points: { series: string; split: string; x: number; loss: number }[] = [];
    for (const row of rows) {
      const series = label(row);
      const index = (counters.get(series) ?? 0) + 1;
      counters.set(series, index);
      const x = xColumn === undefined ? index : numericCell(row, xColumn);
      if (x === undefined) continue;
      const train = numericCell(row, trainColumn);
      if (train !== undefined) points.push({ series, split: SPLITS[0], x, loss: train });
      const val = hasVal ? numericCell(row, 'val_loss') : undefined;
      if (val !== undefined) points.push({ series, split: SPLITS[1], x, loss: val });
    }
    if (points.length === 0) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(name, `no row has both a loss and an x value`),
      );
    }
    const xs = distinct(points.map((p) => p.x));
    if (xs.length === 1) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartSingleX(
          name,
          xColumn ?? 'log entry',
          String(xs[0]),
          'Log the loss at several steps to draw the curve.',
        ),
      );
    }
    const logY = this.options.logY ?? false;
    if (logY && points.some((p) => p.loss <= 0)) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.badChartOption(name, 'logY', true, 'false when a loss is ≤ 0'),
      );
    }
    const labels = distinct(points.map((p) => p.series));
    const splits = SPLITS.filter((s) => points.some((p) => p.split === s));
    const multiRun = hasIdentity && labels.length > 1;
    const xTitle =
      xColumn === undefined ? 'Row (log entry)' : xColumn.charAt(0).toUpperCase() + xColumn.slice(1);
    const what = splits.length > 1 ? 'Training and validation loss' : `${splits[0]} loss`;
    const palette = PALETTES[config.theme];
    return {
      ...vegaLiteFrame(
        config,
        `${what} vs ${xTitle.toLowerCase()}`,
        multiRun ? `${labels.length} runs; solid: training, dashed: validation` : undefined,
      ),
      data: { values: points },
      mark: { type: 'line', strokeWidth: 2, point: points.length <= 60 ? { size: 36, filled: true } : false },
      encoding: {
        x: { field: 'x', type: 'quantitative', title: xTitle, scale: { zero: false } },
        y: {
          field: 'loss',
          type: 'quantitative',
          title: logY ? 'Loss (log scale)' : 'Loss',
          scale: logY ? { type: 'log' } : { zero: false },
        },
        color: multiRun
          ? { field: 'series', type: 'nominal', title: 'Run', scale: { domain: labels }, legend: LINE_LEGEND }
          : {
              field: 'split',
              type: 'nominal',
              title: 'Loss',
              scale: { domain: [...splits], range: palette.slice(0, splits.length) },
              legend: LINE_LEGEND,
            },
        strokeDash: {
          field: 'split',
          type: 'nominal',
          // Single run: same title as the colour legend, so Vega-Lite merges them into one legend.
          title: multiRun ? 'Split' : 'Loss',
          scale: { domain: [...splits], range: splits.map((s) => (s === 'Training' ? [1, 0] : [6, 4])) },
          legend: multiRun && splits.length < 2 ? null : LINE_LEGEND,
        },
        detail: { field: 'series', type: 'nominal' },
        tooltip: [
          { field: 'series', type: 'nominal', title: 'Run' },
          { field: 'split', type: 'nominal', title: 'Split' },
          { field: 'x', type: 'quantitative', title: xTitle },
          { field: 'loss', type: 'quantitative', title: 'Loss', format: '.4f' },
        ],
      },
    };
  }
}
