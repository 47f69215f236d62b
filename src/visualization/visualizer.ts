/**
 * `Visualizer`: renders registered charts from plain data to SVG / PNG / HTML / spec JSON files, reporting
 * every chart's outcome; and `@Visualizer.register`, the class decorator that adds a chart to the default
 * registry.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DantinoxError, errorText } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import { type Chart, type ChartSpec, checkRequirements } from './chart.js';
import { type ChartInput, type ChartRow, loadChartInput, textCell } from './chart-data.js';
import {
  type AnyChartClass,
  type ChartRegistry,
  createChartRegistry,
  type RegisterChartOptions,
} from './chart-registry.js';
import { buildHtmlReport, chartRowsOf, type ReportChart, type ReportRun } from './html-report.js';
import { svgToPng } from './png.js';
import { renderSvg } from './render.js';
import { type RenderConfig, resolveRenderConfig } from './render-config.js';
import { themeBackground } from './theme.js';

/** Output formats: rendered SVG, PNG (rasterised SVG), an interactive HTML report, or the spec as JSON. */
export type ChartFormat = 'svg' | 'png' | 'html' | 'json';

/** Every output format. */
export const CHART_FORMATS: readonly ChartFormat[] = ['svg', 'png', 'html', 'json'];

/** A chart to render: a registered name, a name with options, or a chart instance. */
export type ChartSelection = string | readonly [name: string, options: object] | Chart<object>;

/** Outcome of one chart: written files, or why it was not drawn. */
export type ChartRenderResult =
  | {
      /** `rendered`: the files were written. */
      readonly status: 'rendered';
      /** Written files by format (`html` is the shared report page). */
      readonly paths: Readonly<Partial<Record<ChartFormat, string>>>;
      /** Vega / Vega-Lite warnings raised while rendering. */
      readonly warnings: readonly string[];
    }
  | {
      /** `skipped`: the data does not fit the chart (missing columns, nothing to draw). */
      readonly status: 'skipped';
      /** Why, naming the missing columns. */
      readonly reason: string;
    }
  | {
      /** `failed`: the chart or the renderer threw. */
      readonly status: 'failed';
      /** The error message. */
      readonly reason: string;
      /** The error itself. */
      readonly error: unknown;
    };

/** Result of {@link Visualizer.render}: chart name → outcome, in rendering order. */
export type RenderResults = Record<string, ChartRenderResult>;

/** Options of {@link Visualizer.render}. */
export interface VisualizerRenderOptions {
  /** Charts to render. @default every chart in the registry, in registration order */
  readonly charts?: readonly ChartSelection[];
  /** Directory for the output files (created if needed). */
  readonly outDir: string;
  /** Formats to write. @default ['svg', 'png'] */
  readonly formats?: readonly ChartFormat[];
  /**
   * Prefix of every output file: `<runName>-<chart>.<ext>` and `<runName>-report.html`. Letters, digits, `.`,
   * `_`, `-`. @default the data's single `run`/`run_id` value, else `run-` + 8 hex digits of the data's SHA-256
   */
  readonly runName?: string;
  /** Overwrite existing output files instead of failing. @default false */
  readonly overwrite?: boolean;
  /** Render config for this call, merged over the visualizer's. @default the visualizer's config */
  readonly config?: RenderConfig;
  /** Title of the HTML report. @default 'dantinox report: <runName>' */
  readonly title?: string;
  /** Environment record shown in the HTML report. @default none */
  readonly environment?: Readonly<Record<string, unknown>>;
}

/** Options of {@link Visualizer.report}. */
export interface VisualizerReportOptions {
  /** Path of the HTML file to write. */
  readonly path: string;
  /** Page title. @default 'dantinox report' */
  readonly title?: string;
  /** Charts to include. @default every chart in the registry */
  readonly charts?: readonly ChartSelection[];
  /** Overwrite an existing file. @default false */
  readonly overwrite?: boolean;
  /** Render config. @default the visualizer's config */
  readonly config?: RenderConfig;
  /** Text of the "generated" line (e.g. `new Date().toISOString()`). @default omitted */
  readonly generatedAt?: string;
  /** Reasons not to trust some timings, shown in a banner at the top. @default none */
  readonly warnings?: readonly string[];
}

/** Options of the {@link Visualizer} constructor. */
export interface VisualizerOptions {
  /** Registry to look chart names up in. @default {@link Visualizer.defaultRegistry} */
  readonly registry?: ChartRegistry;
  /** Render config for every chart. @default {} (560×340 plot, publication theme, PNG scale 2) */
  readonly config?: RenderConfig;
}

const RUN_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** The default run name of some rows: their single `run` / `run_id` value, else `run-<8 hex of SHA-256>`. */
export function defaultRunName(rows: readonly ChartRow[]): string {
  for (const column of ['run', 'run_id']) {
    const values = new Set(rows.map((r) => textCell(r, column)).filter((v) => v !== undefined));
    const only = [...values][0];
    if (values.size === 1 && only !== undefined) {
      const safe = only.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100);
      if (RUN_NAME.test(safe)) return safe;
    }
  }
  const hash = createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  return `run-${hash.slice(0, 8)}`;
}

/**
 * Renders charts from plain data (rows, an arquero table, or a CSV/JSON/JSONL path) into files.
 *
 * @example
 * ```ts
 * const results = await new Visualizer().render('results/bench.csv', {
 *   outDir: 'plots', formats: ['svg', 'png', 'html'], runName: 'laptop-2025-06-01',
 * });
 * for (const [chart, r] of Object.entries(results)) console.log(chart, r.status);
 * ```
 */
export class Visualizer {
  /** The registry `@Visualizer.register` adds to, and the default of `new Visualizer()`. */
  static readonly defaultRegistry: ChartRegistry = createChartRegistry();

  /**
   * Class decorator (TC39 / TypeScript 5 standard decorators) that registers a chart in
   * {@link Visualizer.defaultRegistry}: `@Visualizer.register class MyChart extends Chart { … }`, or
   * `@Visualizer.register({ override: true })` to replace a chart of the same name. Registration happens once
   * the class's static fields (its `name`) are initialised. Also callable directly: `Visualizer.register(MyChart)`.
   *
   * @throws {@link dantinox!DantinoxError} `DUPLICATE_PLUGIN` when the name is taken and `override` is not set.
   */
  static register<C extends AnyChartClass>(chart: C, context?: ClassDecoratorContext<C>): void;
  static register(
    options: RegisterChartOptions,
  ): <C extends AnyChartClass>(chart: C, context: ClassDecoratorContext<C>) => void;
  static register<C extends AnyChartClass>(
    target: C | RegisterChartOptions,
    context?: ClassDecoratorContext<C>,
  ): undefined | (<D extends AnyChartClass>(chart: D, context: ClassDecoratorContext<D>) => void) {
    const registry = Visualizer.defaultRegistry;
    if (typeof target !== 'function') {
      const options = target;
      return (_chart, ctx) => {
        ctx.addInitializer(function () {
          registry.register(this, options);
        });
      };
    }
    if (context === undefined) registry.register(target);
    else
      context.addInitializer(function () {
        registry.register(this);
      });
    return undefined;
  }

  /** The registry this visualizer looks names up in. */
  readonly registry: ChartRegistry;
  /** The render config applied to every chart. */
  readonly config: RenderConfig;

  constructor(options: VisualizerOptions = {}) {
    this.registry = options.registry ?? Visualizer.defaultRegistry;
    this.config = options.config ?? {};
    resolveRenderConfig(this.config);
  }

  /** Names of the charts this visualizer can render, in registration order. */
  availableCharts(): string[] {
    return this.registry.names();
  }

  /**
   * Chart instances for `selection` (default: every registered chart).
   *
   * @throws {@link dantinox!DantinoxError} `UNKNOWN_PLUGIN` for an unknown name, listing the available ones.
   */
  resolveCharts(selection?: readonly ChartSelection[]): Chart<object>[] {
    const entries = selection ?? this.registry.names();
    const unknown = entries.filter((e) => typeof e === 'string' && !this.registry.has(e)) as string[];
    if (unknown.length > 0) this.registry.get(unknown[0]!);
    return entries.map((entry) => {
      if (typeof entry === 'string') return new (this.registry.get(entry))();
      if (Array.isArray(entry)) {
        const [name, options] = entry as readonly [string, object];
        return new (this.registry.get(name))(options);
      }
      return entry as Chart<object>;
    });
  }

  /**
   * Builds each chart's spec from `data` and writes the requested formats to `outDir` as
   * `<runName>-<chart>.<ext>` (and one `<runName>-report.html` for `html`). A chart whose data is missing is
   * `skipped` with the reason; a chart that throws is `failed`; the others still render.
   *
   * @throws {@link dantinox!DantinoxError} `UNKNOWN_PLUGIN` for an unknown chart name; `INVALID_OPTION` for an unknown format or
   * a bad run name; `IO` when an output file exists and `overwrite` is not set (nothing is written), or a file
   * cannot be written; errors of {@link loadChartInput} for unreadable data.
   */
  async render(data: ChartInput, options: VisualizerRenderOptions): Promise<RenderResults> {
    const formats = [...new Set(options.formats ?? (['svg', 'png'] as const))];
    for (const f of formats) {
      if (!CHART_FORMATS.includes(f)) {
        throw new DantinoxError(
          'INVALID_OPTION',
          messages.unknownName('chart output format', String(f), CHART_FORMATS),
        );
      }
    }
    const charts = this.resolveCharts(options.charts);
    const config = { ...this.config, ...options.config };
    const resolved = resolveRenderConfig(config);
    const rows = await loadChartInput(data);
    const runName = options.runName ?? defaultRunName(rows);
    if (!RUN_NAME.test(runName)) throw new DantinoxError('INVALID_OPTION', messages.badRunName(runName));

    const fileFormats = formats.filter((f): f is Exclude<ChartFormat, 'html'> => f !== 'html');
    const pathOf = (chart: string, ext: string): string => join(options.outDir, `${runName}-${chart}.${ext}`);
    const reportPath = join(options.outDir, `${runName}-report.html`);
    const planned = [
      ...charts.flatMap((c) => fileFormats.map((f) => pathOf(c.chartName, f))),
      ...(formats.includes('html') ? [reportPath] : []),
    ];
    const existing = planned.filter((p) => existsSync(p));
    if (existing.length > 0 && options.overwrite !== true) {
      throw new DantinoxError('IO', messages.outputExists(existing));
    }
    try {
      makeDirectory(options.outDir);
    } catch (cause) {
      throw new DantinoxError('IO', messages.cannotWrite(options.outDir, cause), { cause });
    }

    const results: RenderResults = {};
    const reportCharts: ReportChart[] = [];
    for (const chart of charts) {
      const name = chart.chartName;
      let spec: ChartSpec;
      try {
        spec = chart.spec(rows, config);
      } catch (error) {
        const skipped = error instanceof DantinoxError && error.code === 'INVALID_INPUT';
        results[name] = skipped
          ? { status: 'skipped', reason: errorText(error) }
          : { status: 'failed', reason: errorText(error), error };
        reportCharts.push(skippedChart(chart, rows, error, skipped));
        continue;
      }
      try {
        const warnings: string[] = [];
        const paths: Partial<Record<ChartFormat, string>> = {};
        const svg =
          formats.includes('svg') || formats.includes('png')
            ? await renderSvg(spec, { chart: name, onWarning: (w) => warnings.push(w) })
            : undefined;
        if (formats.includes('json'))
          paths.json = await write(pathOf(name, 'json'), `${JSON.stringify(spec, null, 2)}\n`);
        if (svg !== undefined && formats.includes('svg')) paths.svg = await write(pathOf(name, 'svg'), svg);
        if (svg !== undefined && formats.includes('png')) {
          const png = await svgToPng(svg, {
            scale: resolved.scale,
            background: themeBackground(resolved.theme),
          });
          paths.png = await write(pathOf(name, 'png'), png);
        }
        if (formats.includes('html')) paths.html = reportPath;
        results[name] = { status: 'rendered', paths, warnings };
        reportCharts.push({ name, spec });
      } catch (error) {
        results[name] = { status: 'failed', reason: errorText(error), error };
        reportCharts.push({ name, skipped: errorText(error) });
      }
    }
    if (formats.includes('html')) {
      const run: ReportRun = {
        name: runName,
        rows,
        ...(options.environment ? { environment: options.environment } : {}),
      };
      const html = await buildHtmlReport({
        title: options.title ?? `dantinox report: ${runName}`,
        runs: [run],
        charts: reportCharts,
      });
      await write(reportPath, html);
    }
    return results;
  }

  /**
   * Writes one self-contained HTML report for one or several runs: environment blocks side by side, a
   * summary table, and every chart drawn from the runs' rows together (each run's rows get a `run` column
   * so the same model in two runs appears as two series). Returns what happened to each chart.
   *
   * @throws {@link dantinox!DantinoxError} `IO` when the file exists and `overwrite` is not set or cannot be written;
   * `UNKNOWN_PLUGIN` for an unknown chart name; `INVALID_INPUT` without runs.
   */
  async report(runs: readonly ReportRun[], options: VisualizerReportOptions): Promise<RenderResults> {
    if (runs.length === 0) throw new DantinoxError('INVALID_INPUT', messages.reportNoRuns());
    if (existsSync(options.path) && options.overwrite !== true) {
      throw new DantinoxError('IO', messages.outputExists([options.path]));
    }
    const charts = this.resolveCharts(options.charts);
    const config = { ...this.config, ...options.config };
    const rows = chartRowsOf(runs);
    const results: RenderResults = {};
    const reportCharts: ReportChart[] = [];
    for (const chart of charts) {
      const name = chart.chartName;
      try {
        const spec = chart.spec(rows, config);
        reportCharts.push({ name, spec });
        results[name] = { status: 'rendered', paths: { html: options.path }, warnings: [] };
      } catch (error) {
        const skipped = error instanceof DantinoxError && error.code === 'INVALID_INPUT';
        results[name] = skipped
          ? { status: 'skipped', reason: errorText(error) }
          : { status: 'failed', reason: errorText(error), error };
        reportCharts.push(skippedChart(chart, rows, error, skipped));
      }
    }
    const html = await buildHtmlReport({
      title: options.title ?? 'dantinox report',
      runs,
      charts: reportCharts,
      ...(options.generatedAt === undefined ? {} : { generatedAt: options.generatedAt }),
      ...(options.warnings === undefined ? {} : { warnings: options.warnings }),
    });
    const dir = dirname(options.path);
    try {
      makeDirectory(dir);
    } catch (cause) {
      throw new DantinoxError('IO', messages.cannotWrite(dir, cause), { cause });
    }
    await write(options.path, html);
    return results;
  }
}

/** The report entry of a chart that was not drawn; `missingColumns` when the data lacks its columns altogether. */
function skippedChart(
  chart: Chart<object>,
  rows: readonly ChartRow[],
  error: unknown,
  skipped: boolean,
): ReportChart {
  let missingColumns = false;
  if (skipped) {
    try {
      checkRequirements(chart.chartName, rows, chart.requirements());
    } catch {
      missingColumns = true;
    }
  }
  return { name: chart.chartName, skipped: errorText(error), ...(missingColumns ? { missingColumns } : {}) };
}

async function write(path: string, content: string | Uint8Array): Promise<string> {
  try {
    await writeFile(path, content);
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotWrite(path, cause), { cause });
  }
  return path;
}
