/**
 * Tokens/s against context depth (`--depths`): the measured prefill and decode throughput at each depth, the
 * least-squares line through the measured times, and the roofline model's bound from the analytical FLOPs and
 * bytes at each depth and the run's calibrated ceilings.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, columnsWithValues, numericCell, successfulRows, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { seriesLabeler } from '../series.js';
import { vegaLiteFrame } from '../spec-frame.js';

/** Options of {@link DepthChart}. */
export interface DepthChartOptions {
  /** Column that names each run or variant. @default `model` (qualified by `run`), else `run` */
  readonly series?: string;
}

/** The measured columns: `prefill_tps_d{D}`, `decode_tps_d{D}`. */
export const DEPTH_TPS_PATTERN = /^(prefill|decode)_tps_d(\d+)$/;

/** What a point of the chart is. */
export type DepthPointKind = 'measured' | 'fitted line' | 'roofline bound';

/** One point of the chart. */
export interface DepthPoint {
  /** Series · phase. */
  readonly line: string;
  /** Measured, fitted or predicted. */
  readonly kind: DepthPointKind;
  /** Context depth, tokens. */
  readonly depth: number;
  /** Tokens per second. */
  readonly tps: number;
}

/**
 * The roofline bound at one depth, in tok/s: `tokens` ÷ max(FLOPs ÷ GEMM ceiling, bytes ÷ bandwidth); undefined
 * without both ceilings.
 */
function rooflineTps(
  tokens: number,
  gflop: number | undefined,
  mib: number | undefined,
  gemmGflops: number | undefined,
  bandwidthGbs: number | undefined,
): number | undefined {
  if (gflop === undefined || mib === undefined || gemmGflops === undefined || bandwidthGbs === undefined)
    return undefined;
  const seconds = Math.max(gflop / gemmGflops, (mib * 2 ** 20) / 1e9 / bandwidthGbs);
  return seconds > 0 ? tokens / seconds : undefined;
}

/**
 * The points of one row: per phase and depth the measured tok/s, the tok/s of the fitted line
 * (`{phase}_depth_intercept_ms` + `{phase}_depth_slope_us` · D), and the roofline bound when the row has the
 * ceilings of its dtype (`ceiling_gflops_{dtype}`, `ceiling_bandwidth_gbs`).
 */
export function depthPoints(row: ChartRow, label: string): DepthPoint[] {
  const points: DepthPoint[] = [];
  const dtype = textCell(row, 'dtype') ?? 'fp32';
  const gemm = numericCell(row, `ceiling_gflops_${dtype}`);
  const bandwidth = numericCell(row, 'ceiling_bandwidth_gbs');
  for (const column of Object.keys(row).sort()) {
    const m = DEPTH_TPS_PATTERN.exec(column);
    if (m === null) continue;
    const phase = m[1] as string;
    const depth = Number(m[2]);
    const tps = numericCell(row, column);
    const ms = numericCell(row, `${phase}_ms_d${depth}`);
    if (tps === undefined || !(tps > 0)) continue;
    const line = `${label} · ${phase}`;
    points.push({ line, kind: 'measured', depth, tps });
    // Tokens per call from the measured pair (the prompt P of a prefill, 1 for a decode step).
    const tokens = ms === undefined ? undefined : Math.round((tps * ms) / 1000);
    if (tokens === undefined || tokens < 1) continue;
    const intercept = numericCell(row, `${phase}_depth_intercept_ms`);
    const slope = numericCell(row, `${phase}_depth_slope_us`);
    if (intercept !== undefined && slope !== undefined) {
      const fitted = intercept + (slope / 1000) * depth;
      if (fitted > 0) points.push({ line, kind: 'fitted line', depth, tps: (tokens * 1000) / fitted });
    }
    const bound = rooflineTps(
      tokens,
      numericCell(row, `${phase}_gflop_d${depth}`),
      numericCell(row, `${phase}_mib_d${depth}`),
      gemm,
      bandwidth,
    );
    if (bound !== undefined) points.push({ line, kind: 'roofline bound', depth, tps: bound });
  }
  return points.sort((a, b) => a.depth - b.depth);
}

/**
 * Tokens/s (log scale) against context depth (tokens), one colour per run and phase: measured points joined by a
 * solid line, the least-squares line through the measured times dotted, and the roofline model's bound dashed
 * (analytical FLOPs and bytes at each depth against the calibrated ceilings; absent without a calibration).
 */
export class DepthChart extends Chart<DepthChartOptions> {
  static override readonly name: string = 'depth';
  static override readonly description =
    'Prefill and decode tokens/s vs context depth (bench --depths), with the fitted line and the roofline bound.';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: [DEPTH_TPS_PATTERN], label: '{phase}_tps_d{D}' }],
    optional: [{ anyOf: ['model', 'run', 'run_id'], label: 'model | run | run_id' }],
  };
  static override readonly params: readonly ChartParam[] = [
    { name: 'series', type: 'string', default: 'model', description: 'Column naming each run.' },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const selected = successfulRows(rows).filter((r) => columnsWithValues([r], DEPTH_TPS_PATTERN).length > 0);
    const label = seriesLabeler(rows, this.options.series);
    const points = selected.flatMap((r) => depthPoints(r, label(r)));
    if (points.length === 0) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(
          DepthChart.name,
          'no row has a {phase}_tps_d{D} column (run bench --depths)',
        ),
      );
    }
    const lines = [...new Set(points.map((p) => p.line))];
    const kinds: DepthPointKind[] = ['measured', 'fitted line', 'roofline bound'];
    const spec: VegaLiteSpec = {
      ...vegaLiteFrame(
        config,
        'Throughput vs context depth',
        'tokens already in the KV cache; dotted: least-squares fit, dashed: roofline bound',
      ),
      data: { values: points },
      encoding: {
        x: { field: 'depth', type: 'quantitative', title: 'Context depth (tokens in the KV cache)' },
        y: { field: 'tps', type: 'quantitative', title: 'Tokens/s', scale: { type: 'log' } },
        color: { field: 'line', type: 'nominal', title: 'Run · phase', scale: { domain: lines } },
        tooltip: [
          { field: 'line', type: 'nominal', title: 'Run · phase' },
          { field: 'kind', type: 'nominal', title: 'What' },
          { field: 'depth', type: 'quantitative', title: 'Depth' },
          { field: 'tps', type: 'quantitative', title: 'tok/s', format: ',.4~g' },
        ],
      },
      layer: [
        {
          mark: { type: 'line' },
          encoding: {
            strokeDash: {
              field: 'kind',
              type: 'nominal',
              title: null,
              scale: {
                domain: kinds,
                range: [
                  [1, 0],
                  [2, 3],
                  [6, 4],
                ],
              },
            },
            detail: { field: 'kind', type: 'nominal' },
          },
        },
        { transform: [{ filter: "datum.kind === 'measured'" }], mark: { type: 'point', filled: true } },
      ],
    };
    return spec;
  }
}
