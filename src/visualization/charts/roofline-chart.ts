/**
 * The roofline: achieved GFLOP/s against arithmetic intensity (both log scales), with the compute roofs of the
 * dtypes the rows measured and the memory-bandwidth slope, and one point per timed cell, labelled where a label
 * fits without covering another.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, columnNames, numericCell, successfulRows, textCell } from '../chart-data.js';
import {
  boxesOverlap,
  type LabelBox,
  type LabelCorner,
  type LabelledPoint,
  labelBox,
  labelTextMark,
  placeLabelsWithoutOverlap,
} from '../label-placement.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { seriesLabeler } from '../series.js';
import { distinct, FIXED_SIZE, PHASE_SHAPE, seriesColor, vegaLiteFrame } from '../spec-frame.js';

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

/** One roof: a dtype's compute ceiling under a bandwidth, or the bare bandwidth slope (`dtype` undefined). */
interface Roof {
  readonly dtype: string | undefined;
  readonly peak: number | undefined;
  readonly bw: number | undefined;
  /** The series measured against it. */
  readonly series: string[];
}

/** One vertex of a roof polyline. */
interface RoofVertex {
  roof: string;
  /** Whether it is a compute roof (labelled in the plot), not a bare bandwidth slope. */
  compute: boolean;
  order: number;
  intensity: number;
  gflops: number;
}

/** Font size of the point and roof labels. */
const LABEL_FONT = 10;
/** Placement order of point labels: beside the point first, then its corners. */
const POINT_CORNERS: readonly LabelCorner[] = ['e', 'ne', 'se', 'w', 'nw', 'sw'];

/** `seq512` → `seq 512`, `bs4` → `batch 4`. */
const cellLabel = (cell: string): string =>
  cell.replace(/^seq(\d+)$/, 'seq $1').replace(/^bs(\d+)$/, 'batch $1');

/** 3 significant digits, no exponent: 373.9 → "374", 18.63 → "18.6". */
const fmt = (v: number): string => Number(v.toPrecision(3)).toLocaleString('en-US');

/**
 * The roofline model of a benchmark run: x = arithmetic intensity (FLOPs ÷ bytes moved, log), y = achieved
 * GFLOP/s (log). Roofs come from the run's calibration columns (`ceiling_gflops_{dtype}`: horizontal compute roofs;
 * `ceiling_bandwidth_gbs`: the slope y = bandwidth × x), and only for the dtypes of the rows (a `dtype` column;
 * every calibrated roof when there is none): an fp32 run draws no q8 roof. Points come from the
 * `gflops_per_s_{cell}` / `intensity_{cell}` column pairs: prefill and throughput cells sit near a compute roof,
 * decode cells on the bandwidth slope. Labels are placed for the chart's own size (the report keeps it) and a
 * label that would cover another is left out (the subtitle says how many; the tooltip names every point).
 */
export class RooflineChart extends Chart<RooflineChartOptions> {
  static override readonly name: string = 'roofline';
  static override readonly description =
    'Roofline: achieved GFLOP/s vs arithmetic intensity per cell, under the calibrated roofs of the dtypes measured.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: [INTENSITY], label: 'intensity_{cell} (+ gflops_per_s_{cell})' },
      { anyOf: [GEMM_CEILING, BANDWIDTH], label: 'ceiling_gflops_{dtype} | ceiling_bandwidth_gbs' },
    ],
    optional: [
      { anyOf: ['model', 'run', 'run_id'], label: 'model | run | run_id' },
      { anyOf: ['dtype'], label: 'dtype' },
    ],
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
    const roofs = roofsOf(selected, columns, label);
    const xs = points.map((p) => p.intensity);
    const x0 = Math.min(...xs) / 3;
    const x1 = Math.max(...xs) * 12; // room right of the points for their labels and the roofs'
    const ys = points.map((p) => p.gflops);
    const peaks = roofs.flatMap((r) => (r.peak === undefined ? [] : [r.peak]));
    const y0 = Math.min(...ys) / 3;
    const y1 = Math.max(...ys, ...peaks) * 3; // room above the highest roof for its label
    const px = (x: number): number => (config.width * Math.log(x / x0)) / Math.log(x1 / x0);
    const py = (y: number): number => config.height * (1 - Math.log(y / y0) / Math.log(y1 / y0));
    const shared = sharedRoofs(roofs);
    const vertices = roofVertices(roofs, shared, x0, x1);
    const roofLabels = placeRoofLabels(vertices, px, py, config);
    const spots = pointLabels(points);
    const corners = placeLabelsWithoutOverlap(
      spots.map((p): LabelledPoint => ({ px: px(p.intensity), py: py(p.gflops), text: p.cell })),
      {
        width: config.width,
        height: config.height,
        fontSize: LABEL_FONT,
        offset: 7,
        corners: POINT_CORNERS,
        obstacles: roofLabels.map((l) => l.box),
      },
    );
    const placed = spots.flatMap((p, i) => (corners[i] === undefined ? [] : [{ ...p, corner: corners[i] }]));
    const omitted = spots.length - placed.length;
    const labels = distinct(points.map((p) => p.series));
    const color = seriesColor(labels, 'Run');
    const x = {
      field: 'intensity',
      type: 'quantitative' as const,
      title: 'Arithmetic intensity (FLOPs / byte moved)',
      scale: { type: 'log' as const, domain: [x0, x1], nice: false },
      axis: { labelOverlap: 'greedy' as const },
    };
    const y = {
      field: 'gflops',
      type: 'quantitative' as const,
      title: 'Achieved GFLOP/s',
      scale: { type: 'log' as const, domain: [y0, y1], nice: false },
      axis: { labelOverlap: 'greedy' as const },
    };
    const bandwidths = distinct(roofs.flatMap((r) => (r.bw === undefined ? [] : [r.bw])));
    const subtitle = [
      `Dashed: compute roofs of the dtypes measured${bandwidths.length > 0 ? `; slope: memory bandwidth ${bandwidths.map((b) => `${fmt(b)} GB/s`).join(', ')}` : ''}`,
      ...(omitted > 0
        ? [
            `${omitted} label${omitted === 1 ? '' : 's'} left out where ${omitted === 1 ? 'it' : 'they'} would cover another (hover a point)`,
          ]
        : []),
    ];
    const spec: VegaLiteSpec = {
      ...vegaLiteFrame(config, 'Roofline', subtitle),
      usermeta: FIXED_SIZE,
      layer: [
        {
          data: { values: vertices },
          mark: { type: 'line', strokeDash: [6, 4], strokeWidth: 1.5, clip: true, color: '#888888' },
          encoding: { x, y, detail: { field: 'roof' }, order: { field: 'order' } },
        },
        ...(['nw', 'sw'] as const).flatMap((corner) => {
          const values = roofLabels.filter((l) => l.corner === corner).map((l) => l.datum);
          return values.length === 0
            ? []
            : [
                {
                  name: `roof_labels_${corner}`,
                  data: { values },
                  mark: {
                    type: 'text' as const,
                    ...labelTextMark(corner, ROOF_LABEL_INSET),
                    fontSize: LABEL_FONT,
                  },
                  encoding: { x, y, text: { field: 'roof', type: 'nominal' as const } },
                },
              ];
        }),
        {
          data: { values: points },
          mark: { type: 'point', filled: true, size: 80 },
          encoding: {
            x,
            y,
            color,
            shape: PHASE_SHAPE,
            tooltip: [
              { field: 'series', type: 'nominal', title: 'Run' },
              { field: 'cell', type: 'nominal', title: 'Cell' },
              { field: 'intensity', type: 'quantitative', title: 'FLOPs / byte', format: ',.2f' },
              { field: 'gflops', type: 'quantitative', title: 'GFLOP/s', format: ',.2f' },
            ],
          },
        },
        ...POINT_CORNERS.filter((corner) => placed.some((p) => p.corner === corner)).map((corner) => ({
          name: `point_labels_${corner}`,
          data: { values: placed.filter((p) => p.corner === corner) },
          mark: { type: 'text' as const, ...labelTextMark(corner, 7), fontSize: LABEL_FONT },
          encoding: { x, y, text: { field: 'cell', type: 'nominal' as const } },
        })),
      ],
    };
    return spec;
  }
}

/**
 * One label per spot: cells of a series within 5% of each other on both axes share one text ("seq 128 ·
 * prefill"), then a text that several series have within 15% of each other on both axes is written once (the
 * colours tell the series apart).
 */
function pointLabels(points: readonly CellPoint[]): CellPoint[] {
  const near = (a: number, b: number, within: number): boolean => Math.abs(Math.log(a / b)) < within;
  const spots: CellPoint[] = [];
  for (const p of points) {
    const spot = spots.find(
      (s) => s.series === p.series && near(s.intensity, p.intensity, 0.05) && near(s.gflops, p.gflops, 0.05),
    );
    if (spot === undefined) spots.push({ ...p });
    else if (!spot.cell.split(' · ').includes(p.cell)) spot.cell = `${spot.cell} · ${p.cell}`;
  }
  const merged: CellPoint[] = [];
  for (const s of spots) {
    const twin = merged.find(
      (m) => m.cell === s.cell && near(m.intensity, s.intensity, 0.15) && near(m.gflops, s.gflops, 0.15),
    );
    if (twin === undefined) merged.push(s);
  }
  return merged;
}

/**
 * The roofs to draw: for each series, the compute ceiling of each dtype its rows measured (every calibrated
 * dtype when the rows have no `dtype`), under the series' bandwidth; the bare bandwidth slope when none of its
 * dtypes was calibrated. Series measured against the same ceiling share its roof.
 */
function roofsOf(
  rows: readonly ChartRow[],
  columns: readonly string[],
  label: (row: ChartRow) => string,
): Roof[] {
  const calibrated = columns.flatMap((c) => {
    const dtype = GEMM_CEILING.exec(c)?.[1];
    return dtype === undefined ? [] : [dtype];
  });
  const perSeries = new Map<string, ChartRow[]>();
  for (const row of rows) {
    const group = perSeries.get(label(row));
    if (group === undefined) perSeries.set(label(row), [row]);
    else group.push(row);
  }
  const roofs = new Map<string, Roof>();
  const add = (
    dtype: string | undefined,
    peak: number | undefined,
    bw: number | undefined,
    series: string,
  ) => {
    const key = JSON.stringify([dtype, peak, bw]);
    const roof = roofs.get(key);
    if (roof === undefined) roofs.set(key, { dtype, peak, bw, series: [series] });
    else if (!roof.series.includes(series)) roof.series.push(series);
  };
  for (const [series, group] of perSeries) {
    const first = (column: string): number | undefined =>
      group.map((r) => numericCell(r, column)).find((v) => v !== undefined && v > 0);
    const bw = first(BANDWIDTH);
    const measured = distinct(group.flatMap((r) => textCell(r, 'dtype') ?? []));
    const dtypes = measured.length > 0 ? measured.filter((d) => calibrated.includes(d)) : calibrated;
    const gemm = dtypes.flatMap((d) => {
      const peak = first(`ceiling_gflops_${d}`);
      return peak === undefined ? [] : [[d, peak] as const];
    });
    for (const [dtype, peak] of gemm) add(dtype, peak, bw, series);
    if (gemm.length === 0 && bw !== undefined) add(undefined, undefined, bw, series);
  }
  return [...roofs.values()];
}

/** True when every dtype has one roof and every roof one bandwidth: roof labels need not name their series. */
function sharedRoofs(roofs: readonly Roof[]): boolean {
  const dtypes = roofs.map((r) => r.dtype ?? '');
  return new Set(dtypes).size === dtypes.length && new Set(roofs.map((r) => r.bw)).size <= 1;
}

/**
 * Polylines of the roofs between intensities `x0` and `x1`: per compute ceiling y = min(ceiling, bandwidth × x)
 * (three vertices: start, knee, end); without a bandwidth a flat roof; without a ceiling the bandwidth slope.
 * Each roof is named by its dtype and ceiling, and by its series when runs were measured against different ones.
 */
function roofVertices(roofs: readonly Roof[], shared: boolean, x0: number, x1: number): RoofVertex[] {
  const out: RoofVertex[] = [];
  for (const { dtype, peak, bw, series } of roofs) {
    const prefix = shared ? '' : `${series.join(', ')}: `;
    if (peak === undefined) {
      if (bw === undefined) continue;
      const roof = `${prefix}${fmt(bw)} GB/s`;
      out.push({ roof, compute: false, order: 0, intensity: x0, gflops: bw * x0 });
      out.push({ roof, compute: false, order: 2, intensity: x1, gflops: bw * x1 });
      continue;
    }
    const roof = `${prefix}${dtype} ${fmt(peak)} GFLOP/s`;
    const at = (x: number): number => (bw === undefined ? peak : Math.min(peak, bw * x));
    const knee = bw === undefined ? x0 : Math.min(Math.max(peak / bw, x0), x1);
    out.push({ roof, compute: true, order: 0, intensity: x0, gflops: at(x0) });
    out.push({ roof, compute: true, order: 1, intensity: knee, gflops: at(knee) });
    out.push({ roof, compute: true, order: 2, intensity: x1, gflops: at(x1) });
  }
  return out;
}

/** Pixels between a roof label's right end and the plot's right edge. */
const ROOF_LABEL_INSET = 4;

/** A roof label: its datum, whether it sits above (`nw`) or below (`sw`) its roof's right end, and its box. */
interface RoofLabel {
  datum: RoofVertex;
  corner: 'nw' | 'sw';
  box: LabelBox;
}

/**
 * The label of each compute roof at its right end, right-aligned: above the roof, else below it when that
 * covers another roof label; left out when neither fits inside the plot. Bare bandwidth slopes are named in the
 * subtitle instead (their right end is above the plot).
 */
function placeRoofLabels(
  vertices: readonly RoofVertex[],
  px: (x: number) => number,
  py: (y: number) => number,
  config: ResolvedRenderConfig,
): RoofLabel[] {
  const ends = vertices.filter((v) => v.order === 2 && v.compute).sort((a, b) => b.gflops - a.gflops);
  const placed: RoofLabel[] = [];
  for (const datum of ends) {
    const anchor = { px: px(datum.intensity), py: py(datum.gflops), text: datum.roof };
    const free = (['nw', 'sw'] as const)
      .map((corner) => ({ datum, corner, box: labelBox(anchor, corner, LABEL_FONT, ROOF_LABEL_INSET) }))
      .find(
        (c) =>
          c.box.x0 >= 0 &&
          c.box.y0 >= 0 &&
          c.box.y1 <= config.height &&
          !placed.some((p) => boxesOverlap(p.box, c.box)),
      );
    if (free !== undefined) placed.push(free);
  }
  return placed;
}
