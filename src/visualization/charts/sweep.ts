/**
 * Shared builder of the two sweep charts (tokens/s vs sequence length and vs batch size): columns named
 * `<prefix><N>` become points (N, value), averaged per series and N, one line per series; a sweep of a single
 * N is drawn as one bar per series instead.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { type ChartRow, columnsWithValues, numericCell, successfulRows, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { seriesLabeler } from '../series.js';
import { allPowersOfTwo, distinct, powerOfTwoTicks, seriesColor, vegaLiteFrame } from '../spec-frame.js';

/** What a sweep chart plots. */
export interface SweepSpecOptions {
  /** Chart name, for error messages. */
  readonly chart: string;
  /** Column pattern with one capture group: the swept value (e.g. `/^tps_bs(\d+)$/`). */
  readonly pattern: RegExp;
  /** Title of the x axis, with unit. */
  readonly xTitle: string;
  /** What x is, in words, for the one-value bar chart (`batch size`). */
  readonly xName: string;
  /** Name of the x field in the data. */
  readonly xField: string;
  /** Chart title. */
  readonly title: string;
  /** Log-2 x axis: `'always'` labels every power of two; `'auto'` uses it when every N is a power of two. */
  readonly log2: 'always' | 'auto';
  /** Series column override. */
  readonly series: string | undefined;
  /** Only rows of this task, when the data has a `task` column. */
  readonly task: string | undefined;
}

/** One averaged point of a sweep. */
interface SweepPoint {
  series: string;
  x: number;
  tps: number;
  n: number;
}

/** Builds the Vega-Lite spec of a sweep chart (see {@link SweepSpecOptions}). */
export function sweepSpec(
  rows: readonly ChartRow[],
  config: ResolvedRenderConfig,
  options: SweepSpecOptions,
): VegaLiteSpec {
  let selected = successfulRows(rows);
  if (options.task !== undefined && selected.some((r) => textCell(r, 'task') !== undefined)) {
    selected = selected.filter((r) => textCell(r, 'task') === options.task);
  }
  const label = seriesLabeler(rows, options.series);
  const columns = columnsWithValues(selected, options.pattern).map((c) => ({
    column: c,
    x: Number(options.pattern.exec(c)?.[1]),
  }));
  const sums = new Map<string, SweepPoint>();
  for (const row of selected) {
    for (const { column, x } of columns) {
      const v = numericCell(row, column);
      if (v === undefined) continue;
      const series = label(row);
      const key = `${series}\u0000${x}`;
      const p = sums.get(key);
      if (p) {
        p.tps += v;
        p.n += 1;
      } else sums.set(key, { series, x, tps: v, n: 1 });
    }
  }
  if (sums.size === 0) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.chartNothingToDraw(
        options.chart,
        `no numeric ${options.pattern.source} values in the selected rows`,
      ),
    );
  }
  const points = [...sums.values()]
    .map((p) => ({ series: p.series, [options.xField]: p.x, tps: p.tps / p.n, n: p.n }))
    .sort((a, b) => (a[options.xField] as number) - (b[options.xField] as number));
  const labels = distinct(selected.map(label).filter((s) => points.some((p) => p.series === s)));
  const xs = distinct(points.map((p) => p[options.xField] as number)).sort((a, b) => a - b);
  if (xs.length === 1) return singleValueSpec(points, labels, xs[0]!, averaged(points), config, options);
  const log = options.log2 === 'always' || allPowersOfTwo(xs);
  const subtitle = [
    labels.length > 1 ? `One line per model (${labels.length} models)` : `Model: ${labels[0]}`,
    averaged(points) ? 'points averaged over repeated rows' : '',
  ]
    .filter((s) => s !== '')
    .join('; ');
  return {
    ...vegaLiteFrame(config, options.title, subtitle),
    data: { values: points },
    mark: { type: 'line', point: { size: 60, filled: true }, strokeWidth: 2 },
    encoding: {
      x: {
        field: options.xField,
        type: 'quantitative',
        title: options.xTitle,
        scale: log
          ? { type: 'log', base: 2, nice: false, domain: [xs[0]!, xs[xs.length - 1]!] }
          : { zero: false },
        axis: { values: log ? powerOfTwoTicks(xs) : xs, format: 'd', labelFlush: false, grid: true },
      },
      y: {
        field: 'tps',
        type: 'quantitative',
        title: 'Throughput (tokens/s)',
        scale: { zero: true },
      },
      color: seriesColor(labels),
      tooltip: [
        { field: 'series', type: 'nominal', title: 'Model' },
        { field: options.xField, type: 'quantitative', title: options.xTitle },
        { field: 'tps', type: 'quantitative', title: 'Throughput (tokens/s)', format: ',.1f' },
        { field: 'n', type: 'quantitative', title: 'Rows averaged' },
      ],
    },
  };
}

const averaged = (points: readonly { n: number }[]): boolean => points.some((p) => p.n > 1);

/**
 * A sweep of one value (one batch size, one sequence length) as horizontal bars, one per model: a line through
 * one x would draw a lone dot per model.
 */
function singleValueSpec(
  points: readonly Record<string, number | string>[],
  labels: readonly string[],
  x: number,
  repeated: boolean,
  config: ResolvedRenderConfig,
  options: SweepSpecOptions,
): VegaLiteSpec {
  const subtitle = [
    `One ${options.xName} measured (${x}): one bar per model instead of a line`,
    repeated ? 'bars averaged over repeated rows' : '',
  ]
    .filter((s) => s !== '')
    .join('; ');
  return {
    ...vegaLiteFrame(config, `Throughput at ${options.xName} ${x}`, subtitle),
    data: { values: [...points] },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'series', type: 'nominal', title: null, sort: [...labels] },
      x: { field: 'tps', type: 'quantitative', title: 'Throughput (tokens/s)', scale: { zero: true } },
      color: { ...seriesColor(labels), legend: null },
      tooltip: [
        { field: 'series', type: 'nominal', title: 'Model' },
        { field: options.xField, type: 'quantitative', title: options.xTitle },
        { field: 'tps', type: 'quantitative', title: 'Throughput (tokens/s)', format: ',.1f' },
        { field: 'n', type: 'quantitative', title: 'Rows averaged' },
      ],
    },
  };
}
