/**
 * The comparison chart: the relative change of each metric (candidate vs baseline) with its confidence interval,
 * coloured by verdict, with the noise threshold shaded.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { distinct, vegaLiteFrame } from '../spec-frame.js';
import { themeSubtle } from '../theme.js';

/** Options of {@link CompareChart}. */
export interface CompareChartOptions {
  /** Draw only rows whose `cell` is empty (the task metrics) when such rows exist. @default true */
  readonly taskMetricsOnly?: boolean;
}

/** Verdict colours, fixed so that red always means regressed. */
const VERDICT_COLORS: Readonly<Record<string, string>> = {
  regressed: '#d62728',
  improved: '#2ca02c',
  'within noise': '#7f7f7f',
  'no significant change': '#1f77b4',
  inconclusive: '#ff7f0e',
};

/**
 * Relative change (x, %) of each metric, one row per metric (and per candidate when there are several): a point
 * at the change, a bar over its confidence interval (when the samples gave one), colour by verdict, and a band
 * over ±threshold. Reads the rows of a comparison (`change`, `change_ci_low`, `change_ci_high`, `verdict`,
 * `metric`, `task`, `cell`, `candidate`, `threshold`), e.g. `comparisonChartRows(...)` of `dantinox/benchmarking`.
 */
export class CompareChart extends Chart<CompareChartOptions> {
  static override readonly name: string = 'compare';
  static override readonly description =
    'Relative change of each metric vs a baseline with its confidence interval, coloured by verdict, threshold band shaded.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['change'], label: 'change' },
      { anyOf: ['verdict'], label: 'verdict' },
      { anyOf: ['metric'], label: 'metric' },
    ],
    optional: [
      { anyOf: ['change_ci_low', 'change_ci_high'], label: 'change_ci_low / change_ci_high' },
      { anyOf: ['task', 'cell', 'candidate', 'threshold'], label: 'task, cell, candidate, threshold' },
    ],
  };
  static override readonly params: readonly ChartParam[] = [
    {
      name: 'taskMetricsOnly',
      type: 'boolean',
      default: 'true',
      description: 'Only the task metrics (rows without a cell) when there are any.',
    },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const judged = rows.filter(
      (r) => numericCell(r, 'change') !== undefined && textCell(r, 'verdict') !== 'not judged',
    );
    const taskRows = judged.filter((r) => textCell(r, 'cell') === undefined);
    const selected = this.options.taskMetricsOnly !== false && taskRows.length > 0 ? taskRows : judged;
    if (selected.length === 0) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(CompareChart.name, 'no row has a finite change and a verdict'),
      );
    }
    const candidates = distinct(selected.map((r) => textCell(r, 'candidate') ?? ''));
    const points = selected.map((r) => {
      const label = [textCell(r, 'task'), textCell(r, 'cell'), textCell(r, 'metric')]
        .filter((x) => x !== undefined)
        .join(' · ');
      const change = (numericCell(r, 'change') as number) * 100;
      const lo = numericCell(r, 'change_ci_low');
      const hi = numericCell(r, 'change_ci_high');
      return {
        label: candidates.length > 1 ? `${textCell(r, 'candidate') ?? ''}: ${label}` : label,
        change,
        lo: (lo ?? change / 100) * 100,
        hi: (hi ?? change / 100) * 100,
        ci:
          lo === undefined || hi === undefined
            ? 'unavailable'
            : `${(lo * 100).toFixed(1)}% … ${(hi * 100).toFixed(1)}%`,
        verdict: textCell(r, 'verdict') ?? '',
      };
    });
    const threshold = (numericCell(selected[0] as ChartRow, 'threshold') ?? 0) * 100;
    const verdicts = distinct(points.map((p) => p.verdict));
    const y = {
      field: 'label',
      type: 'nominal' as const,
      title: null,
      sort: points.map((p) => p.label),
    };
    const x = (field: string) => ({ field, type: 'quantitative' as const, title: 'Relative change (%)' });
    const subtitle = [
      `candidate vs baseline; bars: confidence interval of the change${threshold > 0 ? `; band: ±${threshold}% threshold` : ''}`,
      'for ms metrics up is worse, for tok/s up is better: see the colour',
    ];
    return {
      ...vegaLiteFrame(
        config,
        `Change vs baseline${candidates.length === 1 && candidates[0] ? `: ${candidates[0]}` : ''}`,
        subtitle,
      ),
      height: Math.max(config.height, 22 * points.length),
      layer: [
        ...(threshold > 0
          ? [
              {
                data: { values: [{ lo: -threshold, hi: threshold }] },
                mark: { type: 'rect' as const, color: themeSubtle(config.theme), opacity: 0.18 },
                encoding: { x: x('lo'), x2: { field: 'hi' } },
              },
            ]
          : []),
        {
          data: { values: [{ zero: 0 }] },
          mark: { type: 'rule' as const, color: themeSubtle(config.theme), strokeDash: [4, 3] },
          encoding: { x: x('zero') },
        },
        {
          data: { values: points },
          layer: [
            {
              mark: { type: 'rule' as const, strokeWidth: 2.5, opacity: 0.6 },
              encoding: {
                y,
                x: x('lo'),
                x2: { field: 'hi' },
                color: {
                  field: 'verdict',
                  type: 'nominal' as const,
                  title: 'Verdict',
                  scale: { domain: verdicts, range: verdicts.map((v) => VERDICT_COLORS[v] ?? '#999999') },
                },
              },
            },
            {
              mark: { type: 'point' as const, filled: true, size: 70, opacity: 1 },
              encoding: {
                y,
                x: x('change'),
                color: { field: 'verdict', type: 'nominal' as const, title: 'Verdict' },
                tooltip: [
                  { field: 'label', type: 'nominal' as const, title: 'Metric' },
                  { field: 'change', type: 'quantitative' as const, title: 'Change (%)', format: '+.1f' },
                  { field: 'ci', type: 'nominal' as const, title: 'Interval' },
                  { field: 'verdict', type: 'nominal' as const, title: 'Verdict' },
                ],
              },
            },
          ],
        },
      ],
    };
  }
}
