/**
 * The chart contract: a class with static metadata (`name`, `accepts`, `description`, `params`) whose
 * instances turn plain rows into a Vega-Lite spec (a Vega spec for the radar chart).
 *
 * @packageDocumentation
 */
import type { Spec as VegaSpec } from 'vega';
import type { TopLevelSpec as VegaLiteSpec } from 'vega-lite';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import {
  type ChartData,
  type ChartRow,
  type ColumnPattern,
  columnNames,
  isEmptyCell,
  matchesColumn,
  toRows,
} from './chart-data.js';
import { type RenderConfig, type ResolvedRenderConfig, resolveRenderConfig } from './render-config.js';

/** A chart spec: Vega-Lite (most charts) or Vega (the radar chart); tell them apart with {@link isVegaLiteSpec}. */
export type ChartSpec = VegaLiteSpec | VegaSpec;

/** The `$schema` of every Vega-Lite spec we emit. */
export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** The `$schema` of every Vega spec we emit. */
export const VEGA_SCHEMA = 'https://vega.github.io/schema/vega/v6.json';

/** True when `spec` is a Vega-Lite spec (by its `$schema`), false for a Vega spec. */
export function isVegaLiteSpec(spec: ChartSpec): spec is VegaLiteSpec {
  return typeof spec.$schema === 'string' && spec.$schema.includes('vega-lite');
}

/** One column requirement: satisfied when any of `anyOf` matches a column that holds at least one value. */
export interface ColumnRequirement {
  /** Column names or patterns; one match is enough. */
  readonly anyOf: readonly ColumnPattern[];
  /** How the requirement reads in docs and error messages, e.g. `tps_seq{L}` or `loss | train_loss`. */
  readonly label: string;
}

/** What data a chart takes: required and optional columns. Checked by {@link Chart.spec}. */
export interface ChartAccepts {
  /** Every requirement must be met, or the chart throws `INVALID_INPUT` naming what is missing. */
  readonly required: readonly ColumnRequirement[];
  /** Columns the chart uses when present (documentation only). */
  readonly optional: readonly ColumnRequirement[];
}

/** Metadata of one chart option, for `--help`, docs and validation. */
export interface ChartParam {
  /** Option name (camelCase). */
  readonly name: string;
  /** Type as written in TypeScript, e.g. `'max' | 'min'`. */
  readonly type: string;
  /** Default value, as text. */
  readonly default?: string;
  /** What the option does. */
  readonly description: string;
}

/** Static side of a chart class, as stored in a registry. */
export interface ChartClass<Options extends object = object> {
  /** Creates a chart with its options. */
  new (options?: Options): Chart<Options>;
  /** Registry name (snake_case, as in the seed). */
  readonly name: string;
  /** What the chart needs from the data. */
  readonly accepts: ChartAccepts;
  /** One sentence: what the chart shows. */
  readonly description: string;
  /** The chart's options. */
  readonly params: readonly ChartParam[];
}

/**
 * Base class of every chart. A subclass sets the static metadata and implements {@link Chart.build}.
 *
 * About `static name`: a class's `name` is normally `Function.name` (the class identifier). Charts redefine it
 * as a static class field (`static override readonly name = 'pareto'`), which TypeScript allows with
 * ES2022 class fields (`useDefineForClassFields`, the default for our target): the field is *defined* on the
 * constructor, replacing the built-in read-only `Function.name`. This keeps the seed's spelling
 * (`MyChart.name === 'my_chart'`). Static fields are initialised after class decorators run, so
 * `@Visualizer.register` reads the name in an `addInitializer` callback, once the field exists.
 *
 * @example
 * ```ts
 * @Visualizer.register
 * class TokensPerParamChart extends Chart {
 *   static override readonly name = 'tokens_per_param';
 *   static override readonly accepts = { required: [{ anyOf: ['peak_tps'], label: 'peak_tps' }], optional: [] };
 *   static override readonly description = 'Peak tokens/s per model.';
 *   protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
 *     return { $schema: VEGA_LITE_SCHEMA, data: { values: [...rows] }, mark: 'bar',
 *       encoding: { x: { field: 'model' }, y: { field: 'peak_tps', type: 'quantitative' } } };
 *   }
 * }
 * ```
 */
export abstract class Chart<Options extends object = object> {
  /** Registry name of the chart (snake_case). Redefined by every subclass. */
  declare static readonly name: string;
  /** What data the chart takes; checked before {@link Chart.build}. */
  static readonly accepts: ChartAccepts = { required: [], optional: [] };
  /** One sentence: what the chart shows. */
  static readonly description: string = '';
  /** The chart's options. */
  static readonly params: readonly ChartParam[] = [];

  /** The options this chart was created with. */
  readonly options: Options;

  constructor(options?: Options) {
    this.options = options ?? ({} as Options);
  }

  /** The registry name of this chart's class. */
  get chartName(): string {
    return (this.constructor as ChartClass).name;
  }

  /**
   * The column requirements for this instance: the class's static `accepts` by default; charts whose
   * options choose columns (e.g. the Pareto axes) override it.
   */
  requirements(): ChartAccepts {
    return (this.constructor as ChartClass).accepts;
  }

  /**
   * Builds the chart's spec from `data` (rows or an arquero table) after checking {@link Chart.requirements}.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming the chart and the missing columns (or when the data has no
   * drawable values); `INVALID_OPTION` for a bad render config or chart option.
   */
  spec(data: ChartData, config: RenderConfig = {}): ChartSpec {
    const rows = toRows(data);
    checkRequirements(this.chartName, rows, this.requirements());
    return this.build(rows, resolveRenderConfig(config));
  }

  /** Builds the spec from validated rows. Throw `INVALID_INPUT` when the rows hold nothing drawable. */
  protected abstract build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec;
}

/**
 * Checks `rows` against `accepts.required`: every requirement needs a matching column with at least one
 * non-empty value.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` listing every unmet requirement, the chart and the columns present.
 */
export function checkRequirements(chart: string, rows: readonly ChartRow[], accepts: ChartAccepts): void {
  const columns = columnNames(rows);
  const missing: string[] = [];
  const empty: string[] = [];
  for (const req of accepts.required) {
    const present = columns.filter((c) => req.anyOf.some((p) => matchesColumn(p, c)));
    if (present.length === 0) missing.push(req.label);
    else if (!present.some((c) => rows.some((r) => !isEmptyCell(r[c])))) empty.push(req.label);
  }
  if (missing.length > 0 || empty.length > 0) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.chartMissingColumns(chart, missing, empty, columns, rows.length),
    );
  }
}
