/**
 * The roofline: achieved GFLOP/s against arithmetic intensity (both log scales), with the compute roofs of every
 * calibrated dtype and the memory-bandwidth slope of each run, and one labelled point per timed cell.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, columnNames, numericCell, successfulRows } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { seriesLabeler } from '../series.js';
import { distinct, seriesColor, vegaLiteFrame } from '../spec-frame.js';

/** Options of {@link RooflineChart}. */
export interface RooflineChartOptions {
  /** Column that names each run or variant (one colour each). @default `model` (qualified by `run`), else `run` */
  readonly series?: string;
}

/** Intensity columns: `intensity_seq{L}`, `intensity_bs{B}`, `intensity_prefill`, `intensity_decode`. */
const INTENSITY = /^intensity_(seq\d+|bs\d+|prefill|decode)$/;
/** Ceiling columns: `ceiling_gflops_{dtype}`. */
const GEMM_CEILING = /^ceiling_gflops_(\w+)$/;
const BANDWIDTH = 'ceiling_bandwidth_gbs';

/** One measured cell. */
interface CellPoint {
  series: string;
  cell: string;
  phase: 'prefill' | 'decode';
  intensity: number;
  gflops: number;
}

/** One vertex of a roof polyline. */
interface RoofVertex {
  series: string;
  roof: string;
  order: number;
  intensity: number;
  gflops: number;
}

/** `seq512` → `seq 512`, `bs4` → `batch 4`. */
const cellLabel = (cell: string): string =>
  cell.replace(/^seq(\d+)$/, 'seq $1').replace(/^bs(\d+)$/, 'batch $1');

/**
 * The roofline model of a benchmark run: x = arithmetic intensity (FLOPs ÷ bytes moved, log), y = achieved
 * GFLOP/s (log). Roofs come from the run's calibration columns (`ceiling_gflops_{dtype}`: horizontal compute roofs;
 * `ceiling_bandwidth_gbs`: the slope y = bandwidth × x); points from the `gflops_per_s_{cell}` / `intensity_{cell}`
 * column pairs: prefill and throughput cells sit near a compute roof, decode cells on the bandwidth slope.
 */
export class RooflineChart extends Chart<RooflineChartOptions> {
  static override readonly name: string = 'roofline';
  static override readonly description =
    'Roofline: achieved GFLOP/s vs arithmetic intensity per cell, under the calibrated compute and bandwidth roofs.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: [INTENSITY], label: 'intensity_{cell} (+ gflops_per_s_{cell})' },
      { anyOf: [GEMM_CEILING, BANDWIDTH], label: 'ceiling_gflops_{dtype} | ceiling_bandwidth_gbs' },
    ],
    optional: [{ anyOf: ['model', 'run', 'run_id'], label: 'model | run | run_id' }],
  };
  static override readonly params: readonly ChartParam[] = [
    { name: 'series', type: 'string', default: 'model', description: 'Column naming each run (colour).' },
  ];

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const selected = successfulRows(rows);
    const label = seriesLabeler(rows, this.options.series);
    const columns = columnNames(selected);
    const cells = columns.filter((c) => INTENSITY.test(c)).map((c) => c.slice('intensity_'.length));
    const points: CellPoint[] = [];
    for (const row of selected) {
      for (const cell of cells) {
        const intensity = numericCell(row, `intensity_${cell}`);
        const gflops = numericCell(row, `gflops_per_s_${cell}`);
        if (intensity === undefined || gflops === undefined || !(intensity > 0) || !(gflops > 0)) continue;
        points.push({
          series: label(row),
          cell: cellLabel(cell),
          phase: cell === 'decode' ? 'decode' : 'prefill',
          intensity,
          gflops,
        });
      }
    }
    if (points.length === 0) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(
          RooflineChart.name,
          'no row has both intensity_{cell} and gflops_per_s_{cell}',
        ),
      );
    }
    const xs = points.map((p) => p.intensity);
    const x0 = Math.min(...xs) / 4;
    const x1 = Math.max(...xs) * 30; // room for the labels right of the points
    const roofs = roofVertices(selected, columns, label, x0, x1);
    const labels = distinct(points.map((p) => p.series));
    const color = seriesColor(labels, 'Run');
    const x = {
      field: 'intensity',
      type: 'quantitative' as const,
      title: 'Arithmetic intensity (FLOPs / byte moved)',
      scale: { type: 'log' as const, domain: [x0, x1] },
    };
    const y = {
      field: 'gflops',
      type: 'quantitative' as const,
      title: 'Achieved GFLOP/s',
      scale: { type: 'log' as const },
    };
    const ends = roofs.filter((r) => r.order === 2);
    const spec: VegaLiteSpec = {
      ...vegaLiteFrame(
        config,
        'Roofline',
        'Dashed: calibrated compute roofs and the memory-bandwidth slope; points: measured cells',
      ),
      layer: [
        {
          data: { values: roofs },
          mark: { type: 'line', strokeDash: [6, 4], strokeWidth: 1.5, clip: true, color: '#888888' },
          encoding: { x, y, detail: { field: 'roof' }, order: { field: 'order' } },
        },
        {
          data: { values: ends },
          mark: { type: 'text', align: 'right', baseline: 'bottom', dx: -4, dy: -3, fontSize: 10 },
          encoding: { x, y, text: { field: 'roof' } },
        },
        {
          data: { values: points },
          mark: { type: 'point', filled: true, size: 80 },
          encoding: {
            x,
            y,
            color,
            shape: {
              field: 'phase',
              type: 'nominal',
              title: 'Phase',
              scale: { domain: ['prefill', 'decode'], range: ['circle', 'triangle-up'] },
            },
            tooltip: [
              { field: 'series', type: 'nominal', title: 'Run' },
              { field: 'cell', type: 'nominal', title: 'Cell' },
              { field: 'intensity', type: 'quantitative', title: 'FLOPs / byte', format: ',.2f' },
              { field: 'gflops', type: 'quantitative', title: 'GFLOP/s', format: ',.2f' },
            ],
          },
        },
        {
          data: { values: pointLabels(points) },
          mark: { type: 'text', align: 'left', dx: 7, dy: -6, fontSize: 10 },
          encoding: { x, y, text: { field: 'cell' } },
        },
      ],
    };
    return spec;
  }
}

/** One label per spot: cells of a series within 5% of each other on both axes share one text. */
function pointLabels(points: readonly CellPoint[]): CellPoint[] {
  const spots: CellPoint[] = [];
  const near = (a: number, b: number): boolean => Math.abs(Math.log(a / b)) < 0.05;
  for (const p of points) {
    const spot = spots.find(
      (s) => s.series === p.series && near(s.intensity, p.intensity) && near(s.gflops, p.gflops),
    );
    if (spot === undefined) spots.push({ ...p });
    else if (!spot.cell.split(' · ').includes(p.cell)) spot.cell = `${spot.cell} · ${p.cell}`;
  }
  return spots;
}

/**
 * Polylines of the roofs of each series between intensities `x0` and `x1`: per compute ceiling,
 * y = min(ceiling, bandwidth × x) (three vertices: start, knee, end); without a bandwidth a flat roof; without a
 * compute ceiling the bare bandwidth slope.
 */
function roofVertices(
  rows: readonly ChartRow[],
  columns: readonly string[],
  label: (row: ChartRow) => string,
  x0: number,
  x1: number,
): RoofVertex[] {
  const out: RoofVertex[] = [];
  const perSeries = new Map<string, { bw: number | undefined; gemm: (readonly [string, number])[] }>();
  for (const row of rows) {
    const series = label(row);
    if (perSeries.has(series)) continue;
    const bw = numericCell(row, BANDWIDTH);
    const gemm = columns
      .map((c) => [GEMM_CEILING.exec(c)?.[1], numericCell(row, c)] as const)
      .filter((e): e is readonly [string, number] => e[0] !== undefined && e[1] !== undefined && e[1] > 0);
    if (gemm.length > 0 || bw !== undefined) perSeries.set(series, { bw, gemm });
  }
  // Runs measured against the same ceilings share one set of roofs; otherwise each roof names its run.
  const keyOf = (c: { bw: number | undefined; gemm: readonly (readonly [string, number])[] }): string =>
    JSON.stringify(c);
  const shared = new Set([...perSeries.values()].map(keyOf)).size <= 1;
  const drawn = new Set<string>();
  for (const [series, { bw, gemm }] of perSeries) {
    if (drawn.has(keyOf({ bw, gemm }))) continue;
    drawn.add(keyOf({ bw, gemm }));
    const prefix = shared ? '' : `${series}: `;
    if (gemm.length === 0 && bw !== undefined) {
      const roof = `${prefix}${bw.toFixed(1)} GB/s`;
      out.push({ series, roof, order: 0, intensity: x0, gflops: bw * x0 });
      out.push({ series, roof, order: 2, intensity: x1, gflops: bw * x1 });
    }
    for (const [dtype, peak] of gemm) {
      const roof = `${prefix}${dtype} ${peak.toFixed(1)} GFLOP/s${bw === undefined ? '' : `, ${bw.toFixed(1)} GB/s`}`;
      const at = (x: number): number => (bw === undefined ? peak : Math.min(peak, bw * x));
      const knee = bw === undefined ? x0 : Math.min(Math.max(peak / bw, x0), x1);
      out.push({ series, roof, order: 0, intensity: x0, gflops: at(x0) });
      out.push({ series, roof, order: 1, intensity: knee, gflops: at(knee) });
      out.push({ series, roof, order: 2, intensity: x1, gflops: at(x1) });
    }
  }
  return out;
}
