/**
 * Multi-metric radar chart (a Vega spec): one polygon per model, each spoke min-max normalised so that the
 * outer ring is the best model on that metric.
 *
 * @packageDocumentation
 */
import type { Spec as VegaSpec } from 'vega';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartParam, type ChartSpec, VEGA_SCHEMA } from '../chart.js';
import { type ChartRow, columnNames, successfulRows } from '../chart-data.js';
import { isLowerBetter, type MetricDirectionOptions, metricShortLabel } from '../metric-labels.js';
import { normalizeMetric } from '../radar-normalize.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { collapseByModel, type ModelRecord } from '../series.js';
import { FONT_FAMILY, themeGrid, themeSubtle, themeText, vegaTheme } from '../theme.js';
import { radarMarks } from './radar-marks.js';

/** Options of {@link RadarChart}. */
export interface RadarChartOptions extends MetricDirectionOptions {
  /** Metric columns, one spoke each (at least 3). @default the known benchmark metrics every model has */
  readonly metrics?: readonly string[];
  /** Column naming each model. @default automatic (`model`, `run`, `type`, `name`) */
  readonly series?: string;
}

/** Metrics tried, in spoke order, when none are chosen. */
export const DEFAULT_RADAR_METRICS: readonly string[] = [
  'peak_tps',
  'decode_tps',
  'prefill_mean_ms',
  'decode_mean_ms',
  'ttft_ms',
  'tpot_ms',
  'perplexity',
  'bits_per_byte',
];

/** Columns that describe a model rather than measure it; never picked as default spokes. */
const DESCRIPTIVE = new Set([
  'params',
  'dim',
  'num_blocks',
  'n_heads',
  'head_size',
  'kv_heads',
  'vocab_size',
  'max_context',
  'seq_len',
  'batch_size',
  'n_experts',
  'top_k',
  'expansion',
  'seed',
  'tokens_scored',
  'n',
  'n_samples',
  'step',
  'epoch',
  'duration_ms',
]);

const MIN_SPOKES = 3;
/** Radius fraction of normalised 0, so that the worst model is a small polygon rather than a dot. */
const INNER = 0.12;
const RING_LEVELS = [0, 0.25, 0.5, 0.75, 1];

/** One line per model that lacks some spokes: "No value for a (skipped): Decode tok/s, TTFT ms". */
function missingNotes(table: readonly { series: string; metric: string; norm: number | null }[]): string[] {
  const bySeries = new Map<string, string[]>();
  for (const t of table) {
    if (t.norm !== null) continue;
    bySeries.set(t.series, [...(bySeries.get(t.series) ?? []), metricShortLabel(t.metric)]);
  }
  return [...bySeries].map(([s, m]) => `No value for ${s} (spoke skipped): ${m.join(', ')}`);
}
const MAX_DEFAULT_SPOKES = 8;

const toNumber = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/**
 * One closed polygon per model over the chosen metrics. Each spoke is min-max normalised across models to
 * [0, 1] with 1 = best: metrics where lower is better (latency, ms, perplexity, loss, bits…; see
 * {@link isLowerBetter}, overridable) are inverted, and a metric equal for every model sits at 0.5 (the seed
 * did not invert, so a slow model looked "bigger"). Spokes of inverted metrics are marked with ↓. Task rows are
 * collapsed into one record per model first. A model without a value on a spoke skips it (its polygon joins the
 * neighbouring spokes) and the subtitle lists what is missing.
 */
export class RadarChart extends Chart<RadarChartOptions> {
  static override readonly name: string = 'radar';
  static override readonly description =
    'One polygon per model over several metrics, each spoke normalised across models (outer = best).';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: [/./], label: 'at least 3 numeric metric columns' }],
    optional: [{ anyOf: ['model', 'run', 'type'], label: 'model | run | type' }],
  };
  static override readonly params: readonly ChartParam[] = [
    {
      name: 'metrics',
      type: 'string[]',
      default: 'known metrics present',
      description: 'Spoke columns (≥ 3).',
    },
    { name: 'series', type: 'string', default: 'model', description: 'Column naming each model.' },
    { name: 'lowerIsBetter', type: 'string[]', default: '[]', description: 'Extra lower-is-better columns.' },
    { name: 'higherIsBetter', type: 'string[]', default: '[]', description: 'Columns never inverted.' },
  ];

  constructor(options?: RadarChartOptions) {
    super(options);
    if (options?.metrics !== undefined && new Set(options.metrics).size < MIN_SPOKES) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.badChartOption(
          RadarChart.name,
          'metrics',
          options.metrics,
          `at least ${MIN_SPOKES} distinct columns`,
        ),
      );
    }
  }

  override requirements(): ChartAccepts {
    const metrics = this.options.metrics;
    if (metrics === undefined) return RadarChart.accepts;
    return { required: metrics.map((m) => ({ anyOf: [m], label: m })), optional: [] };
  }

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const records = collapseByModel(
      successfulRows(rows),
      this.options.series === undefined ? {} : { series: this.options.series },
    );
    if (records.length === 1)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartSingleSeries(RadarChart.name, records[0]!.series, 'a radar of normalised metrics'),
      );
    const metrics = this.options.metrics ? [...new Set(this.options.metrics)] : defaultMetrics(records);
    if (metrics.length < MIN_SPOKES) {
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(
          RadarChart.name,
          `a radar needs at least ${MIN_SPOKES} numeric metrics that every model has; found ${metrics.length} (${metrics.join(', ') || 'none'}) among ${columnNames(rows).join(', ')}`,
        ),
      );
    }
    const n = metrics.length;
    const spokes = metrics.map((metric, i) => {
      const inverted = isLowerBetter(metric, this.options);
      return {
        metric,
        label: `${metricShortLabel(metric)}${inverted ? ' ↓' : ''}`,
        angle: -Math.PI / 2 + (2 * Math.PI * i) / n,
        inverted,
      };
    });
    const table: {
      series: string;
      metric: string;
      angle: number;
      value: number | null;
      norm: number | null;
    }[] = [];
    for (const spoke of spokes) {
      const raw = records.map((r) => toNumber(r.values[spoke.metric]));
      const norm = normalizeMetric(raw, spoke.inverted);
      records.forEach((r, k) => {
        table.push({
          series: r.series,
          metric: spoke.metric,
          angle: spoke.angle,
          value: raw[k] ?? null,
          norm: norm[k] ?? null,
        });
      });
    }
    const size = Math.min(config.width, config.height);
    const rings = RING_LEVELS.flatMap((level) => spokes.map((s) => ({ level, angle: s.angle })));
    const grid = themeGrid(config.theme);
    const text = themeText(config.theme);
    const title = config.title ?? 'Multi-metric comparison';
    const subtitle = [
      `Each spoke normalised across ${records.length} models: outer ring = best, inner ring = worst`,
      spokes.some((s) => s.inverted) ? '↓ = lower is better (scale inverted)' : '',
      ...missingNotes(table),
    ].filter((s) => s !== '');
    const spec: VegaSpec = {
      $schema: VEGA_SCHEMA,
      width: size,
      height: size,
      padding: 12,
      autosize: { type: 'pad' },
      config: vegaTheme(config.theme),
      title: {
        text: title,
        subtitle,
        subtitleFont: FONT_FAMILY,
        subtitleFontSize: 12,
        subtitleColor: themeSubtle(config.theme),
      },
      signals: [{ name: 'radius', update: 'width / 2' }],
      data: [
        { name: 'table', values: table },
        { name: 'present', source: 'table', transform: [{ type: 'filter', expr: 'datum.norm != null' }] },
        { name: 'spokes', values: spokes },
        { name: 'rings', values: rings },
        {
          name: 'ring-labels',
          values: RING_LEVELS.map((level) => ({ level, angle: -Math.PI / 2 + Math.PI / n })),
        },
      ],
      scales: [
        // Normalised 0 (worst) sits on a small inner ring, not the centre, so the worst model stays visible.
        {
          name: 'radial',
          type: 'linear',
          domain: [0, 1],
          range: { signal: `[${INNER} * radius, radius]` },
          zero: false,
          nice: false,
        },
        { name: 'color', type: 'ordinal', domain: records.map((r) => r.series), range: 'category' },
      ],
      legends: [
        {
          fill: 'color',
          stroke: 'color',
          title: 'Model',
          orient: 'right',
          symbolType: 'square',
          symbolOpacity: 0.9,
          labelFont: FONT_FAMILY,
          titleFont: FONT_FAMILY,
        },
      ],
      marks: [
        {
          type: 'group',
          encode: { enter: { x: { signal: 'radius' }, y: { signal: 'radius' } } },
          marks: radarMarks({
            grid,
            text,
            subtle: themeSubtle(config.theme),
            fillOpacity: records.length > 3 ? 0.05 : 0.12,
          }),
        },
      ],
    };
    return spec;
  }
}

/**
 * The known benchmark metrics that at least half of the models have (a model without one leaves a gap on
 * that spoke, e.g. decode metrics of a diffusion model); when fewer than 3, other numeric, non-descriptive
 * columns that every model has are added (at most 8 spokes).
 */
function defaultMetrics(records: readonly ModelRecord[]): string[] {
  const count = (column: string): number =>
    records.filter((r) => toNumber(r.values[column]) !== undefined).length;
  const known = DEFAULT_RADAR_METRICS.filter((m) => count(m) > 0 && count(m) >= records.length / 2);
  if (known.length >= MIN_SPOKES) return known;
  const all = [...new Set(records.flatMap((r) => Object.keys(r.values)))].filter(
    (c) => !DESCRIPTIVE.has(c) && records.length > 0 && count(c) === records.length,
  );
  return [...new Set([...known, ...all])].slice(0, MAX_DEFAULT_SPOKES);
}
