/**
 * The request timeline of a `dantinox load`: one horizontal bar per request, from its planned send to its end.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec } from '../chart.js';
import { type ChartRow, numericCell, textCell } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { distinct, FIXED_SIZE, vegaLiteFrame } from '../spec-frame.js';
import {
  SERVING_PARAMS,
  SERVING_TIMELINE_TASK,
  servingRows,
  TIMELINE_PARTS,
  type TimelinePart,
} from './serving-rows.js';

/** Options of {@link ServingTimelineChart}. */
export interface ServingTimelineChartOptions {
  /** Column that names each run. @default `model` (qualified by `run` when needed) */
  readonly series?: string;
}

/** One drawn segment of one request. */
export interface TimelineSegment {
  /** Panel: the sweep point (with its run when several). */
  readonly panel: string;
  /** The request's index in its point. */
  readonly request: number;
  /** Its place among the drawn requests of its point, in send order, from 0. */
  readonly lane: number;
  /** Whether it counts in the point's statistics (not warm-up or cool-down). */
  readonly measured: boolean;
  /** Which part of the request. */
  readonly part: TimelinePart;
  /** Start, in ms from the point's start. */
  readonly start_ms: number;
  /** End, in ms from the point's start. */
  readonly end_ms: number;
  /** Decode: the segment's gap per token (the ITL of its tokens), ms; absent for other parts. */
  readonly itl_ms?: number;
}

/** The colour of each part but decode (coloured by its ITL); the subtitle names them. */
const PART_COLORS: Readonly<Record<Exclude<TimelinePart, 'decode'>, string>> = {
  queue: '#B8B8B8',
  ttft: '#3A86FF',
  response: '#06A5A5',
  failed: '#D62872',
};

/** A layer of a Vega-Lite layered view. */
type PanelLayer = Extract<VegaLiteSpec, { layer: unknown }>['layer'][number];
/** The encoding of a unit layer. */
type Encoding = NonNullable<Extract<PanelLayer, { mark: unknown }>['encoding']>;

/** The y of every layer: the request's lane, no labels (the requests are in send order). */
const LANE: NonNullable<Encoding['y']> = {
  field: 'lane',
  type: 'ordinal',
  title: 'Requests (send order)',
  axis: { labels: false, ticks: false },
};
/** What hovering a segment shows. */
const TOOLTIP: Extract<Encoding['tooltip'], readonly unknown[]> = [
  { field: 'request', type: 'quantitative', title: 'request' },
  { field: 'part', type: 'nominal' },
  { field: 'start_ms', type: 'quantitative', format: '.1f' },
  { field: 'end_ms', type: 'quantitative', format: '.1f' },
];

/** The bars of one part: from `start_ms` to `end_ms` on the request's lane, faded outside the measured window. */
function partBars(
  part: TimelinePart,
  color: string | undefined,
  encoding: Omit<Encoding, 'y' | 'x' | 'x2'> = {},
): PanelLayer {
  return {
    transform: [{ filter: { field: 'part', equal: part } }],
    mark: { type: 'bar', height: { band: 0.8 }, ...(color === undefined ? {} : { color }) },
    encoding: {
      y: LANE,
      x: { field: 'start_ms', type: 'quantitative', title: "Time from the point's start (ms)" },
      x2: { field: 'end_ms' },
      opacity: { condition: { test: 'datum.measured', value: 1 }, value: 0.35 },
      tooltip: TOOLTIP,
      ...encoding,
    },
  };
}

/** The layers of a panel: a bar per part (decode coloured by its ITL), and a cross at each failure's end. */
const TIMELINE_LAYERS: readonly PanelLayer[] = [
  ...(['queue', 'ttft', 'response', 'failed'] as const).map((part) => partBars(part, PART_COLORS[part])),
  partBars('decode', undefined, {
    color: {
      field: 'itl_ms',
      type: 'quantitative',
      title: 'ITL (ms/token)',
      scale: { scheme: 'viridis', zero: true },
    },
    tooltip: [...TOOLTIP, { field: 'itl_ms', type: 'quantitative', title: 'ITL (ms)', format: '.2f' }],
  }),
  {
    transform: [{ filter: { field: 'part', equal: 'failed' } }],
    mark: { type: 'point', shape: 'cross', filled: true, size: 60, color: PART_COLORS.failed },
    encoding: { y: LANE, x: { field: 'end_ms', type: 'quantitative' }, tooltip: TOOLTIP },
  },
];

const SUFFIXES: Readonly<Record<number, string>> = { 1: 'st', 2: 'nd', 3: 'rd' };

/** `2nd`, `11th`, `23rd`. */
const ordinal = (n: number): string => {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? 'th' : (SUFFIXES[n % 10] ?? 'th')}`;
};

/** What the subtitle says of a point's thinning: `every 4th of 240 requests (60 shown)`, or `all 12 requests`. */
export function thinningText(requests: number, shown: number, every: number): string {
  return every <= 1
    ? `all ${requests} requests`
    : `every ${ordinal(every)} of ${requests} requests (${shown} shown)`;
}

/**
 * One bar per request (rows of task `serving_timeline`), x the time from its sweep point's start: its client queue
 * (planned → sent, grey), TTFT (sent → first chunk, blue), then its decode drawn chunk by chunk — each segment from
 * one chunk's arrival to the next — coloured by that gap per token (the ITL, one colour scale for every panel); a
 * whole (not streamed) response teal; a failed request red with a cross at its end; warm-up and cool-down requests
 * faded. One panel per sweep point (and run), stacked, each with its own time axis; the requests are every k-th in
 * send order, said in the subtitle.
 */
export class ServingTimelineChart extends Chart<ServingTimelineChartOptions> {
  static override readonly name: string = 'serving_timeline';
  static override readonly description =
    'One bar per request: client queue, TTFT and each decode chunk coloured by its ITL, failures marked; one panel per sweep point.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['start_ms'], label: 'start_ms' },
      { anyOf: ['end_ms'], label: 'end_ms' },
      { anyOf: ['part'], label: 'part' },
    ],
    optional: [{ anyOf: ['itl_ms'], label: 'itl_ms' }],
  };
  static override readonly params: readonly ChartParam[] = SERVING_PARAMS;

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const name = ServingTimelineChart.name;
    const { rows: selected, label } = servingRows(rows, SERVING_TIMELINE_TASK, name, this.options.series);
    const several = distinct(selected.map(label)).length > 1;
    const panelOf = (row: ChartRow): string => {
      const point = textCell(row, 'point') ?? '';
      return several ? `${label(row)} · ${point}` : point;
    };
    const values = timelineSegments(selected, panelOf);
    if (values.length === 0)
      throw new DantinoxError('INVALID_INPUT', messages.chartNothingToDraw(name, 'no request segments'));
    const panels = distinct(values.map((v) => v.panel));
    const thinning = panels.map((panel) => {
      const row = selected.find((r) => panelOf(r) === panel) ?? {};
      return `${panel}: ${thinningText(numericCell(row, 'requests') ?? 0, numericCell(row, 'shown') ?? 0, numericCell(row, 'every') ?? 1)}`;
    });
    const {
      $schema,
      title,
      config: theme,
    } = vegaLiteFrame(config, 'Request timeline', [
      'One bar per request in send order: client queue grey, TTFT blue (a whole response teal), then each decode chunk',
      'coloured by its gap per token (ITL); failures red with ×; warm-up and cool-down requests faded',
      ...thinning,
    ]);
    return {
      $schema,
      title,
      config: theme,
      usermeta: { ...FIXED_SIZE },
      data: { values: values as unknown as Record<string, unknown>[] },
      vconcat: panels.map((panel) => ({
        title: { text: panel, anchor: 'start' as const, fontSize: 12 },
        transform: [{ filter: { field: 'panel', equal: panel } }],
        width: Math.max(300, config.width - 120),
        height: { step: 6 },
        layer: [...TIMELINE_LAYERS],
      })),
      resolve: { scale: { x: 'independent', y: 'independent', color: 'shared' } },
    };
  }
}

/** The segments of `rows` in row order; rows without a known part or finite times are left out. */
export function timelineSegments(
  rows: readonly ChartRow[],
  panelOf: (row: ChartRow) => string,
): TimelineSegment[] {
  return rows.flatMap((row) => {
    const part = textCell(row, 'part') as TimelinePart | undefined;
    const start = numericCell(row, 'start_ms');
    const end = numericCell(row, 'end_ms');
    if (part === undefined || !TIMELINE_PARTS.includes(part) || start === undefined || end === undefined)
      return [];
    const itl = numericCell(row, 'itl_ms');
    return [
      {
        panel: panelOf(row),
        request: numericCell(row, 'request') ?? 0,
        lane: numericCell(row, 'lane') ?? 0,
        measured: row['measured'] !== false && row['measured'] !== 'false',
        part,
        start_ms: start,
        end_ms: end,
        ...(part === 'decode' && itl !== undefined ? { itl_ms: itl } : {}),
      },
    ];
  });
}
