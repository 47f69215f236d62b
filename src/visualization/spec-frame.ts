/**
 * Pieces shared by the built-in Vega-Lite charts: the top-level frame (schema, size, title, theme), the
 * series colour encoding and axis tick helpers. Pure functions of their inputs.
 *
 * @packageDocumentation
 */
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { type ChartSpec, VEGA_LITE_SCHEMA } from './chart.js';
import type { ResolvedRenderConfig } from './render-config.js';
import { vegaLiteTheme } from './theme.js';

/** The top-level fields every built-in Vega-Lite chart starts from. */
export interface VegaLiteFrame {
  /** The Vega-Lite schema URL. */
  readonly $schema: string;
  /** Plot width in CSS pixels. */
  readonly width: number;
  /** Plot height in CSS pixels. */
  readonly height: number;
  /** Title and optional subtitle. */
  readonly title: { readonly text: string; readonly subtitle?: string | string[] };
  /** The theme's Vega-Lite config. */
  readonly config: NonNullable<VegaLiteSpec['config']>;
}

/** The top-level fields of a Vega-Lite chart: schema, size, title (+ subtitle) and theme config. */
export function vegaLiteFrame(
  config: ResolvedRenderConfig,
  title: string,
  subtitle?: string | readonly string[],
): VegaLiteFrame {
  const text = config.title ?? title;
  const sub = subtitle === undefined ? undefined : typeof subtitle === 'string' ? subtitle : [...subtitle];
  return {
    $schema: VEGA_LITE_SCHEMA,
    width: config.width,
    height: config.height,
    title: sub === undefined ? { text } : { text, subtitle: sub },
    config: vegaLiteTheme(config.theme),
  };
}

/**
 * The colour encoding by series: a nominal scale whose domain keeps the data's first-seen order (stable
 * colours across charts of one report), titled `title`, with the legend hidden when there is one series.
 */
export function seriesColor(labels: readonly string[], title = 'Model') {
  return {
    field: 'series',
    type: 'nominal' as const,
    title,
    scale: { domain: [...labels] },
    legend: labels.length > 1 ? { orient: 'right' as const, symbolOpacity: 1 } : null,
  };
}

/** True when every value is a positive integer power of two (1, 2, 4, …). */
export function allPowersOfTwo(values: readonly number[]): boolean {
  return values.every((v) => Number.isInteger(v) && v > 0 && (v & (v - 1)) === 0);
}

/**
 * Tick values for a log-2 axis: every power of two from the largest power ≤ min to the smallest power ≥ max,
 * plus any value that is not a power of two, sorted.
 */
export function powerOfTwoTicks(values: readonly number[]): number[] {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  if (positive.length === 0) return [];
  const lo = Math.floor(Math.log2(Math.min(...positive)));
  const hi = Math.ceil(Math.log2(Math.max(...positive)));
  const ticks = new Set<number>();
  for (let e = lo; e <= hi; e++) ticks.add(2 ** e);
  for (const v of positive) ticks.add(v);
  return [...ticks].sort((a, b) => a - b);
}

/** Distinct values in first-seen order. */
export function distinct<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/**
 * The `usermeta` of a chart whose labels were placed for its own width and height (the Pareto and roofline
 * charts): the HTML report draws it at that size, on a row of its own, instead of fitting it to a grid cell,
 * where the labels would move.
 */
export const FIXED_SIZE: Readonly<{ fixedSize: true }> = Object.freeze({ fixedSize: true });

/** True when `spec` asks to be drawn at its own size ({@link FIXED_SIZE}). */
export function hasFixedSize(spec: ChartSpec): boolean {
  const meta: unknown = spec.usermeta;
  return typeof meta === 'object' && meta !== null && (meta as { fixedSize?: unknown }).fixedSize === true;
}

/** The point shape of a row's `phase` on the roofline charts: a prefill a circle, a decode step a triangle. */
export const PHASE_SHAPE = Object.freeze({
  field: 'phase',
  type: 'nominal',
  title: 'Phase',
  scale: { domain: ['prefill', 'decode'], range: ['circle', 'triangle-up'] },
} as const);
