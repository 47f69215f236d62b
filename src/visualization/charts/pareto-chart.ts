/**
 * Quality vs efficiency scatter with a Pareto frontier that is correct for the chosen directions.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, columnNames, columnsWithValues, successfulRows } from '../chart-data.js';
import { LABEL_CORNERS, type LabelledPoint, labelTextMark, placeLabels } from '../label-placement.js';
import { isLowerBetter, metricTitle } from '../metric-labels.js';
import { type Direction, paretoFrontier } from '../pareto-frontier.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { collapseByModel } from '../series.js';
import { FIXED_SIZE, vegaLiteFrame } from '../spec-frame.js';
import { PALETTES, themeSubtle } from '../theme.js';

/** Options of {@link ParetoChart}. */
export interface ParetoChartOptions {
  /** Efficiency column on x. @default `peak_tps` when present, else `throughput_tps` */
  readonly x?: string;
  /** Quality column on y. @default 'perplexity' */
  readonly y?: string;
  /** Whether larger or smaller x is better. @default 'min' for lower-is-better names (latency, ms…), else 'max' */
  readonly xDirection?: Direction;
  /** Whether larger or smaller y is better. @default 'min' for lower-is-better names (perplexity, loss…), else 'max' */
  readonly yDirection?: Direction;
  /** Column whose value labels each point. @default the model's series label */
  readonly label?: string;
  /** Numeric column mapped to point area (e.g. `params`). @default none (all points the same size) */
  readonly size?: string;
  /** Column naming each model. @default automatic (`model`, `run`, `type`, `name`) */
  readonly series?: string;
}

const DIRECTIONS: readonly Direction[] = ['max', 'min'];
const ON = 'Pareto-optimal';
const OFF = 'Dominated';

const better = (d: Direction): string => (d === 'max' ? 'higher' : 'lower');

/**
 * One point per model (task rows collapsed into one record per model, see {@link collapseByModel}) at
 * (x, y), labelled, coloured by whether it is on the Pareto frontier for the chosen directions, with the
 * frontier drawn as a dashed line. Default: perplexity (lower is better) against peak throughput (higher is
 * better). An optional `size` column scales the point area. Models lacking x or y are listed in the subtitle.
 */
export class ParetoChart extends Chart<ParetoChartOptions> {
  static override readonly name: string = 'pareto';
  static override readonly description: string =
    'Quality vs efficiency per model (default perplexity ↓ vs peak tokens/s ↑) with the Pareto frontier.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['peak_tps', 'throughput_tps'], label: 'peak_tps | throughput_tps (x)' },
      { anyOf: ['perplexity'], label: 'perplexity (y)' },
    ],
    optional: [{ anyOf: ['model', 'run', 'type'], label: 'model | run | type' }],
  };
  static override readonly params: readonly ChartParam[] = [
    { name: 'x', type: 'string', default: 'peak_tps', description: 'Efficiency column (x).' },
    { name: 'y', type: 'string', default: 'perplexity', description: 'Quality column (y).' },
    { name: 'xDirection', type: "'max' | 'min'", default: 'by name', description: 'Better direction of x.' },
    { name: 'yDirection', type: "'max' | 'min'", default: 'by name', description: 'Better direction of y.' },
    { name: 'label', type: 'string', default: 'model', description: 'Column labelling each point.' },
    { name: 'size', type: 'string', description: 'Numeric column mapped to point area.' },
    { name: 'series', type: 'string', default: 'model', description: 'Column naming each model.' },
  ];

  constructor(options?: ParetoChartOptions) {
    super(options);
    for (const key of ['xDirection', 'yDirection'] as const) {
      const v = options?.[key];
      if (v !== undefined && !DIRECTIONS.includes(v)) {
        throw new DantinoxError(
          'INVALID_OPTION',
          messages.badChartOption(ParetoChart.name, key, v, "'max', 'min'"),
        );
      }
    }
  }

  override requirements(): ChartAccepts {
    const { x, y, size, label } = this.options;
    if (x === undefined && y === undefined && size === undefined && label === undefined)
      return ParetoChart.accepts;
    return {
      required: [
        x === undefined ? ParetoChart.accepts.required[0]! : { anyOf: [x], label: `${x} (x)` },
        { anyOf: [y ?? 'perplexity'], label: `${y ?? 'perplexity'} (y)` },
        ...(size === undefined ? [] : [{ anyOf: [size], label: `${size} (size)` }]),
        ...(label === undefined ? [] : [{ anyOf: [label], label: `${label} (label)` }]),
      ],
      optional: [],
    };
  }

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = (this.constructor as typeof ParetoChart).name;
    const ok = successfulRows(rows);
    const xColumn =
      this.options.x ?? (columnsWithValues(ok, 'peak_tps').length > 0 ? 'peak_tps' : 'throughput_tps');
    const yColumn = this.options.y ?? 'perplexity';
    const xDirection = this.options.xDirection ?? (isLowerBetter(xColumn) ? 'min' : 'max');
    const yDirection = this.options.yDirection ?? (isLowerBetter(yColumn) ? 'min' : 'max');
    const sizeColumn = this.options.size;
    const labelColumn = this.options.label;
    const records = collapseByModel(
      ok,
      this.options.series === undefined ? {} : { series: this.options.series },
    );
    const points = [];
    const missing: string[] = [];
    for (const r of records) {
      const x = toNumber(r.values[xColumn]);
      const y = toNumber(r.values[yColumn]);
      if (x === undefined || y === undefined) {
        missing.push(r.series);
        continue;
      }
      const size = sizeColumn === undefined ? undefined : toNumber(r.values[sizeColumn]);
      const label = labelColumn === undefined ? r.series : String(r.values[labelColumn] ?? r.series);
      points.push({ series: r.series, label, x, y, ...(size === undefined ? {} : { size }) });
    }
    if (points.length === 0) {
      const conflicted = records.filter(
        (r) => r.conflicts.includes(xColumn) || r.conflicts.includes(yColumn),
      );
      const reason =
        conflicted.length > 0
          ? `${xColumn}/${yColumn} hold different values in different rows of the same model (e.g. ${conflicted[0]!.series}: tasks ${conflicted[0]!.tasks.join(', ')}); choose a task-specific column such as peak_tps`
          : `no model has both ${xColumn} and ${yColumn} (columns: ${columnNames(rows).join(', ')})`;
      throw new DantinoxError('INVALID_INPUT', messages.chartNothingToDraw(name, reason));
    }
    if (points.length === 1)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartSingleSeries(name, points[0]!.series, 'a Pareto front'),
      );
    const frontier = paretoFrontier(points, { x: xDirection, y: yDirection });
    const onFrontier = new Set(frontier);
    const corners = placeLabels(pixelPositions(points, config, xDirection), {
      width: config.width,
      height: config.height,
    });
    const values = points.map((p, i) => ({
      ...p,
      status: onFrontier.has(p) ? ON : OFF,
      corner: corners[i]!,
    }));
    const xTitle = `${metricTitle(xColumn)}, ${better(xDirection)} is better`;
    const yTitle = `${metricTitle(yColumn)}, ${better(yDirection)} is better`;
    const subtitle = [
      `Pareto frontier: ${better(yDirection)} ${metricTitle(yColumn)
        .replace(/ \(.*\)$/, '')
        .toLowerCase()} and ${better(xDirection)} ${metricTitle(xColumn)
        .replace(/ \(.*\)$/, '')
        .toLowerCase()}`,
      sizeColumn === undefined ? '' : `point area ∝ ${metricTitle(sizeColumn)}`,
      missing.length > 0 ? `not shown (missing ${xColumn} or ${yColumn}): ${missing.join(', ')}` : '',
    ].filter((s) => s !== '');
    const palette = PALETTES[config.theme];
    const xDomain = degenerateDomain(points.map((p) => p.x));
    const yDomain = degenerateDomain(points.map((p) => p.y));
    const axis = (field: string, title: string) => {
      const domain = field.endsWith('x') ? xDomain : yDomain;
      return {
        field,
        type: 'quantitative' as const,
        title,
        scale: { zero: false, nice: true, padding: 24, ...(domain === undefined ? {} : { domain }) },
      };
    };
    return {
      ...vegaLiteFrame(
        config,
        `${metricTitle(yColumn).replace(/ \(.*\)$/, '')} vs ${metricTitle(xColumn)
          .replace(/ \(.*\)$/, '')
          .toLowerCase()}`,
        subtitle,
      ),
      usermeta: FIXED_SIZE,
      layer: [
        ...(frontier.length >= 2
          ? [
              {
                data: { values: frontier.map((p) => ({ fx: p.x, fy: p.y })) },
                mark: {
                  type: 'line' as const,
                  strokeDash: [6, 4],
                  color: themeSubtle(config.theme),
                  strokeWidth: 1.5,
                },
                encoding: {
                  x: axis('fx', xTitle),
                  y: axis('fy', yTitle),
                  order: { field: 'fx', type: 'quantitative' as const },
                },
              },
            ]
          : []),
        {
          data: { values },
          layer: [
            {
              mark: { type: 'point' as const, filled: true, opacity: 0.9, stroke: '#FFFFFF', strokeWidth: 1 },
              encoding: {
                x: axis('x', xTitle),
                y: axis('y', yTitle),
                color: {
                  field: 'status',
                  type: 'nominal' as const,
                  title: null,
                  scale: {
                    domain: [ON, OFF].filter((s) => values.some((v) => v.status === s)),
                    range: values.some((v) => v.status === ON) ? [palette[0]!, '#9A9A9A'] : ['#9A9A9A'],
                  },
                  legend: { orient: 'bottom' as const, direction: 'horizontal' as const },
                },
                ...(sizeColumn === undefined
                  ? { size: { value: 110 } }
                  : {
                      size: {
                        field: 'size',
                        type: 'quantitative' as const,
                        title: metricTitle(sizeColumn),
                        scale: { range: [40, 600], zero: false },
                        legend: {
                          orient: 'bottom' as const,
                          direction: 'horizontal' as const,
                          format: '.3~s',
                        },
                      },
                    }),
                tooltip: [
                  { field: 'label', type: 'nominal' as const, title: 'Model' },
                  { field: 'x', type: 'quantitative' as const, title: xColumn, format: ',.4~f' },
                  { field: 'y', type: 'quantitative' as const, title: yColumn, format: ',.4~f' },
                  ...(sizeColumn === undefined
                    ? []
                    : [{ field: 'size', type: 'quantitative' as const, title: sizeColumn, format: ',~s' }]),
                  { field: 'status', type: 'nominal' as const, title: 'Frontier' },
                ],
              },
            },
            // One text layer per label corner (chosen by placeLabels so labels do not collide).
            ...LABEL_CORNERS.filter((corner) => corners.includes(corner)).map((corner) => ({
              transform: [{ filter: { field: 'corner', equal: corner } }],
              mark: { type: 'text' as const, ...labelTextMark(corner), fontSize: 11 },
              encoding: {
                x: axis('x', xTitle),
                y: axis('y', yTitle),
                text: { field: 'label', type: 'nominal' as const },
              },
            })),
          ],
        },
      ],
    };
  }
}

/** Approximate pixel positions of the points (linear scales over the data extent, y down) for label placement. */
function pixelPositions(
  points: readonly { x: number; y: number; label: string }[],
  config: ResolvedRenderConfig,
  _xDirection: Direction,
): LabelledPoint[] {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  // The scales have 24 px padding on each side (see `axis`), so the extent maps to [24, size − 24].
  const pad = 24;
  const fx = (x: number) =>
    x1 > x0 ? pad + ((x - x0) / (x1 - x0)) * (config.width - 2 * pad) : config.width / 2;
  const fy = (y: number) =>
    y1 > y0 ? config.height - pad - ((y - y0) / (y1 - y0)) * (config.height - 2 * pad) : config.height / 2;
  return points.map((p) => ({ px: fx(p.x), py: fy(p.y), text: p.label }));
}

/** A ±10 % domain (±1 around 0) when every value is equal, so a single point gets readable ticks. */
function degenerateDomain(values: readonly number[]): [number, number] | undefined {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (lo !== hi) return undefined;
  const half = lo === 0 ? 1 : Math.abs(lo) * 0.1;
  return [lo - half, lo + half];
}

const toNumber = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};
