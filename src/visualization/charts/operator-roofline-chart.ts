/**
 * The operator roofline: one point per operator group of `bench --trace`'s per-operator table — achieved GFLOP/s
 * against operational intensity, sized by its share of the time — under the calibrated roofline.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, successfulRows, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { seriesLabeler } from '../series.js';
import { distinct, PHASE_SHAPE, vegaLiteFrame } from '../spec-frame.js';

/**
 * `task` of a per-operator row: `phase`, `op`, `category`, `input_shapes`, `share`, `calls`, `total_us`, `flops`,
 * `bytes`, `gflops_per_s`, `gb_per_s`, `intensity`, and the roofline it was placed on (`peak_gflops`,
 * `bandwidth_gbs`) when calibrated.
 */
export const OPERATOR_ROW_TASK = 'operator';

/** Options of {@link OperatorRooflineChart}. */
export interface OperatorRooflineChartOptions {
  /** Column that names each run or variant. @default `model` (qualified by `run`), else `run` */
  readonly series?: string;
}

/** One drawn operator group. */
export interface OperatorPoint {
  /** Series (run or variant) label. */
  readonly series: string;
  /** `prefill` or `decode`. */
  readonly phase: string;
  /** Operator type. */
  readonly op: string;
  /** Input shapes of the group. */
  readonly shapes: string;
  /** Operational intensity in FLOP/byte. */
  readonly intensity: number;
  /** Achieved GFLOP/s. */
  readonly gflops: number;
  /** Share of the phase's time (0–1). */
  readonly share: number;
}

/** 3 significant digits: 373.9 → "374". */
const fmt = (v: number): string => Number(v.toPrecision(3)).toLocaleString('en-US');

/** What {@link operatorPoints} finds in the rows. */
export interface OperatorPoints {
  /** The groups with FLOPs (positive intensity and rate). */
  readonly points: OperatorPoint[];
  /** Per phase, the share of its time in the other rows (no FLOPs, or the remainder). */
  readonly undrawnShare: Map<string, number>;
}

/** The drawable points of `rows` (operator rows with FLOPs: positive intensity and rate) and the time they leave out. */
export function operatorPoints(rows: readonly ChartRow[], label: (row: ChartRow) => string): OperatorPoints {
  const points: OperatorPoint[] = [];
  const undrawnShare = new Map<string, number>();
  for (const row of rows) {
    const intensity = numericCell(row, 'intensity');
    const gflops = numericCell(row, 'gflops_per_s');
    const share = numericCell(row, 'share') ?? 0;
    const phase = textCell(row, 'phase') ?? '';
    if (intensity === undefined || gflops === undefined || !(intensity > 0) || !(gflops > 0)) {
      undrawnShare.set(phase, (undrawnShare.get(phase) ?? 0) + share);
      continue;
    }
    points.push({
      series: label(row),
      phase,
      op: textCell(row, 'op') ?? '',
      shapes: textCell(row, 'input_shapes') ?? '',
      intensity,
      gflops,
      share,
    });
  }
  return { points, undrawnShare };
}

/**
 * Achieved GFLOP/s (log) against operational intensity (FLOP/byte, log) of each operator group with FLOPs, from
 * the rows of task {@link OPERATOR_ROW_TASK}: point area by the group's share of its phase's time, colour by
 * operator type, shape by phase; the roofline min(peak, intensity × bandwidth) dashed when the rows carry
 * `peak_gflops` and `bandwidth_gbs`. Groups without FLOPs (element-wise, data movement, the remainder) cannot sit
 * on a roofline: the subtitle gives their share of each phase.
 */
export class OperatorRooflineChart extends Chart<OperatorRooflineChartOptions> {
  static override readonly name: string = 'operator_roofline';
  static override readonly description =
    'Per-operator roofline: achieved GFLOP/s vs operational intensity per operator group, sized by time share (bench --trace).';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['intensity'], label: 'intensity' },
      { anyOf: ['gflops_per_s'], label: 'gflops_per_s' },
      { anyOf: ['share'], label: 'share' },
    ],
    optional: [
      { anyOf: ['peak_gflops'], label: 'peak_gflops' },
      { anyOf: ['bandwidth_gbs'], label: 'bandwidth_gbs' },
      { anyOf: ['model', 'run', 'run_id'], label: 'model | run | run_id' },
    ],
  };
  static override readonly params: readonly ChartParam[] = [
    { name: 'series', type: 'string', default: 'model', description: 'Column naming each run.' },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = OperatorRooflineChart.name;
    const selected = successfulRows(rows).filter((r) => textCell(r, 'task') === OPERATOR_ROW_TASK);
    const label = seriesLabeler(selected, this.options.series);
    const { points, undrawnShare } = operatorPoints(selected, label);
    if (points.length === 0)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(
          name,
          `no ${OPERATOR_ROW_TASK} row with FLOPs (intensity and gflops_per_s)`,
        ),
      );
    const peak = selected.map((r) => numericCell(r, 'peak_gflops')).find((v) => v !== undefined && v > 0);
    const bw = selected.map((r) => numericCell(r, 'bandwidth_gbs')).find((v) => v !== undefined && v > 0);
    const xs = points.map((p) => p.intensity);
    const x0 = Math.min(...xs) / 3;
    const x1 = Math.max(...xs) * 3;
    const ys = points.map((p) => p.gflops);
    const y0 = Math.min(...ys) / 3;
    const y1 = Math.max(...ys, peak ?? 0) * 3;
    const roof =
      peak === undefined || bw === undefined
        ? []
        : distinct([x0, Math.min(Math.max(peak / bw, x0), x1), x1]).map((x) => ({
            intensity: x,
            gflops: Math.min(peak, bw * x),
          }));
    const series = distinct(points.map((p) => p.series));
    const subtitle = [
      roof.length > 0
        ? `Dashed: roofline min(${fmt(peak as number)} GFLOP/s, intensity × ${fmt(bw as number)} GB/s); area: share of the phase's time`
        : 'No calibrated ceilings: no roofline; area: share of the phase\u2019s time',
      ...[...undrawnShare]
        .filter(([, s]) => s > 0)
        .map(
          ([phase, s]) =>
            `${phase}: ${(100 * s).toFixed(0)}% of the time in operators without FLOPs or outside kernels (not drawn)`,
        ),
      ...(series.length > 1 ? [`runs: ${series.join(', ')}`] : []),
    ];
    const x = {
      field: 'intensity',
      type: 'quantitative' as const,
      title: 'Operational intensity (FLOP / byte)',
      scale: { type: 'log' as const, domain: [x0, x1], nice: false },
    };
    const y = {
      field: 'gflops',
      type: 'quantitative' as const,
      title: 'Achieved GFLOP/s',
      scale: { type: 'log' as const, domain: [y0, y1], nice: false },
    };
    const spec: VegaLiteSpec = {
      ...vegaLiteFrame(config, 'Operator roofline', subtitle),
      layer: [
        ...(roof.length === 0
          ? []
          : [
              {
                data: { values: roof },
                mark: { type: 'line' as const, strokeDash: [6, 4], color: '#888888', clip: true },
                encoding: { x, y },
              },
            ]),
        {
          data: { values: points as unknown as Record<string, unknown>[] },
          mark: { type: 'point', filled: true, opacity: 0.75 },
          encoding: {
            x,
            y,
            size: {
              field: 'share',
              type: 'quantitative',
              title: 'Time share',
              scale: { domain: [0, 1], range: [20, 1200] },
              legend: { format: '.0%' },
            },
            color: { field: 'op', type: 'nominal', title: 'Operator' },
            shape: PHASE_SHAPE,
            tooltip: [
              { field: 'series', type: 'nominal', title: 'Run' },
              { field: 'phase', type: 'nominal', title: 'Phase' },
              { field: 'op', type: 'nominal', title: 'Operator' },
              { field: 'shapes', type: 'nominal', title: 'Input shapes' },
              { field: 'share', type: 'quantitative', title: 'Time share', format: '.1%' },
              { field: 'intensity', type: 'quantitative', title: 'FLOP / byte', format: ',.2f' },
              { field: 'gflops', type: 'quantitative', title: 'GFLOP/s', format: ',.2f' },
            ],
          },
        },
      ],
    };
    return spec;
  }
}
