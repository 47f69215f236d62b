/**
 * The trend chart: one metric over the runs of a results history, with its confidence band.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { distinct, seriesColor, vegaLiteFrame } from '../spec-frame.js';

/** Options of {@link TrendChart}. */
export interface TrendChartOptions {
  /** What the x axis shows: the run's start time, or the git commit (in run order). @default 'time' */
  readonly x?: 'time' | 'commit';
}

/**
 * A metric (y) over runs (x: start time, or commit in run order): a line with points, and a band over each
 * point's confidence interval where the samples gave one; one colour per `series` (model · machine). Reads the
 * rows of `dantinox history trend` (`time`, `value`, optional `ci_low`, `ci_high`, `git_commit`, `series`,
 * `metric`, `unit`). A history of one run is not drawn (`INVALID_INPUT` says why).
 */
export class TrendChart extends Chart<TrendChartOptions> {
  static override readonly name: string = 'trend';
  static override readonly description =
    'A metric over the runs of a results history (time or commit on x), with its confidence band.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['time'], label: 'time' },
      { anyOf: ['value'], label: 'value' },
    ],
    optional: [
      { anyOf: ['ci_low', 'ci_high'], label: 'ci_low / ci_high' },
      { anyOf: ['git_commit', 'series', 'metric', 'unit'], label: 'git_commit, series, metric, unit' },
    ],
  };
  static override readonly params: readonly ChartParam[] = [
    { name: 'x', type: "'time' | 'commit'", default: "'time'", description: 'What the x axis shows.' },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const points = rows.flatMap((r, i) => {
      const value = numericCell(r, 'value');
      const time = textCell(r, 'time');
      if (value === undefined || time === undefined) return [];
      const commit = textCell(r, 'git_commit');
      return [
        {
          time,
          commit: `${i + 1}: ${commit === undefined ? '—' : commit.slice(0, 8)}`,
          value,
          lo: numericCell(r, 'ci_low') ?? value,
          hi: numericCell(r, 'ci_high') ?? value,
          series: textCell(r, 'series') ?? '',
        },
      ];
    });
    if (points.length === 0) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(TrendChart.name, 'no row has a time and a value'),
      );
    }
    const byCommit = this.options.x === 'commit';
    const runs = distinct(points.map((p) => (byCommit ? p.commit : p.time)));
    if (runs.length === 1) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartSingleX(
          TrendChart.name,
          'run',
          runs[0]!,
          'Add runs to the history (dantinox history add) to draw a trend.',
        ),
      );
    }
    const first = rows[0] as ChartRow;
    const metric = textCell(first, 'metric') ?? 'value';
    const unit = textCell(first, 'unit');
    const x = byCommit
      ? {
          field: 'commit',
          type: 'ordinal' as const,
          title: 'Run: git commit',
          sort: points.map((p) => p.commit),
        }
      : { field: 'time', type: 'temporal' as const, title: 'Run start time' };
    const y = {
      field: 'value',
      type: 'quantitative' as const,
      title: unit === undefined ? metric : `${metric} (${unit})`,
    };
    const labels = distinct(points.map((p) => p.series));
    const color = seriesColor(labels, 'Model · machine');
    return {
      ...vegaLiteFrame(
        config,
        `${metric} over runs`,
        'band: 95% bootstrap interval from the raw samples (when recorded)',
      ),
      data: { values: points },
      layer: [
        {
          mark: { type: 'area' as const, opacity: 0.2 },
          encoding: { x, y: { ...y, field: 'lo' }, y2: { field: 'hi' }, color },
        },
        {
          mark: { type: 'line' as const, point: { filled: true, size: 50 } },
          encoding: {
            x,
            y,
            color,
            tooltip: [
              { field: 'time', type: 'temporal' as const, title: 'Start' },
              { field: 'commit', type: 'nominal' as const, title: 'Run: commit' },
              { field: 'value', type: 'quantitative' as const, title: metric, format: ',.4~g' },
              { field: 'lo', type: 'quantitative' as const, title: 'CI low', format: ',.4~g' },
              { field: 'hi', type: 'quantitative' as const, title: 'CI high', format: ',.4~g' },
            ],
          },
        },
      ],
    };
  }
}
