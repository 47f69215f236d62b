/**
 * A self-contained, offline `report.html`, in the order a reader wants: the comparison summary (one row per
 * variant or model, the best value of each metric highlighted, the Pareto-optimal ones named), the charts in a
 * grid (interactive: Vega, Vega-Lite and vega-embed inlined from `node_modules`, no CDN), each run's
 * environment folded in `<details>`, the raw rows, and last the charts that were not drawn. One run, or several
 * side by side. Its input is plain data: rows, environment objects, chart specs.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ChartSpec } from './chart.js';
import { type ChartRow, columnNames, isEmptyCell, textCell } from './chart-data.js';
import { comparisonHasMetrics, comparisonTableHtml } from './comparison-table.js';
import { escapeHtml } from './escape-html.js';
import { metricShortLabel } from './metric-labels.js';
import { operatorTableSection } from './operator-table-html.js';
import { paretoFrontier } from './pareto-frontier.js';
import { collapseByModel, type ModelRecord } from './series.js';
import { hasFixedSize } from './spec-frame.js';

/** One run shown in the report. */
export interface ReportRun {
  /** Run name shown in headings (e.g. the run id or the model name). */
  readonly name: string;
  /** The run's rows (e.g. one per benchmark task). */
  readonly rows: readonly ChartRow[];
  /** Environment record (CPU, Node/ORT versions, seed, command line…); nested objects are flattened. */
  readonly environment?: Readonly<Record<string, unknown>>;
  /**
   * Extra rows only the charts read, not the report's tables (e.g. a load's sweep points and per-request samples,
   * tasks `serving_point` and `serving_sample`).
   */
  readonly chartRows?: readonly ChartRow[];
}

/**
 * A chart to embed: its name, and its spec or why it could not be drawn. `missingColumns` marks charts that do
 * not apply to the data at all (e.g. a training curve of a benchmark): the report only names them, in one line.
 */
export type ReportChart =
  | {
      /** The chart's name. */
      readonly name: string;
      /** Its Vega-Lite or Vega spec, drawn in the page. */
      readonly spec: ChartSpec;
    }
  | {
      /** The chart's name. */
      readonly name: string;
      /** Why it was not drawn. */
      readonly skipped: string;
      /** Whether it was skipped because the data lacks its columns (listed in one short line). */
      readonly missingColumns?: boolean;
    };

/** Input of {@link buildHtmlReport}. */
export interface HtmlReportInput {
  /** Page title and main heading. */
  readonly title: string;
  /** Runs, shown side by side (environment) and together (summary, charts). At least one. */
  readonly runs: readonly ReportRun[];
  /** Charts in display order. */
  readonly charts: readonly ReportChart[];
  /** Text of the "generated" line, e.g. an ISO timestamp; omitted when undefined (reproducible output). */
  readonly generatedAt?: string;
  /**
   * Reasons not to trust some timings (a busy machine, an extreme tail, measurements that disagree), shown in a
   * banner above everything else; none, no banner.
   */
  readonly warnings?: readonly string[];
}

/** The warnings banner, or nothing without warnings. */
function warningsBanner(warnings: readonly string[]): string {
  if (warnings.length === 0) return '';
  return `<aside class="warnings" role="alert"><strong>Timings to read with care</strong><ul>${warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></aside>`;
}

const BUNDLES = [
  { pkg: 'vega', file: 'vega.min.js' },
  { pkg: 'vega-lite', file: 'vega-lite.min.js' },
  { pkg: 'vega-embed', file: 'vega-embed.min.js' },
] as const;

/**
 * Paths of the browser bundles inlined in the report (`vega.min.js`, `vega-lite.min.js`,
 * `vega-embed.min.js`), found next to each package's resolved entry point.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` when a bundle cannot be found.
 */
export function browserBundlePaths(): string[] {
  const require = createRequire(import.meta.url);
  return BUNDLES.map(({ pkg, file }) => {
    let path: string;
    try {
      path = join(dirname(require.resolve(pkg)), file);
    } catch (cause) {
      throw new DantinoxError('DEPENDENCY_MISSING', messages.dependencyMissing(pkg, 'The HTML report'), {
        cause,
      });
    }
    if (!existsSync(path)) throw new DantinoxError('DEPENDENCY_MISSING', messages.bundleMissing(pkg, path));
    return path;
  });
}

/** JSON safe to place inside a `<script>` element (no `</script>`, no `<!--`, no U+2028/2029). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const formatCell = (v: unknown): string => {
  if (isEmptyCell(v)) return '';
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^-?\d/.test(v.trim()) ? Number(v) : Number.NaN;
  if (Number.isFinite(n)) {
    if (Number.isInteger(n)) return n.toLocaleString('en-US');
    return n.toLocaleString('en-US', { maximumSignificantDigits: 5 });
  }
  return String(v instanceof Date ? v.toISOString() : v);
};

const flatten = (value: unknown, prefix: string, out: [string, string][]): void => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
  } else {
    out.push([
      prefix,
      Array.isArray(value)
        ? value.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ')
        : value === null || value === undefined
          ? ''
          : String(value),
    ]);
  }
};

const table = (head: readonly string[], body: readonly (readonly string[])[], cls: string): string =>
  `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body
    .map(
      (r) =>
        `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td>${escapeHtml(c)}</td>`)).join('')}</tr>`,
    )
    .join('')}</tbody></table>`;

/** The rows of all runs, with a `run` column set to the run name when there are several runs. */
export function combineRuns(runs: readonly ReportRun[]): ChartRow[] {
  if (runs.length === 1) return [...runs[0]!.rows];
  return runs.flatMap((run) => run.rows.map((r) => ({ ...r, run: textCell(r, 'run') ?? run.name })));
}

/**
 * The rows charts are drawn from: {@link combineRuns} of the runs' rows, then each run's `chartRows` (with a `run`
 * column when there are several runs).
 */
export function chartRowsOf(runs: readonly ReportRun[]): ChartRow[] {
  const extra = runs.flatMap((run) =>
    (run.chartRows ?? []).map((r) => (runs.length === 1 ? r : { ...r, run: textCell(r, 'run') ?? run.name })),
  );
  return [...combineRuns(runs), ...extra];
}

const numeric = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** The series on the quality/efficiency Pareto front (perplexity ↓ vs peak tok/s ↑), as the pareto chart draws it. */
function paretoLine(records: readonly ModelRecord[]): string {
  if (records.length < 2) {
    return `<p class="note pareto">One ${records.length === 1 ? `series (${escapeHtml(records[0]!.series)})` : 'series'}: nothing to compare it with, so no best values or Pareto front. A matrix (e.g. <code>--threads 1,2</code> or <code>--config tiny,small</code>) measures variants side by side.</p>`;
  }
  const x = records.some((r) => numeric(r.values['peak_tps']) !== undefined) ? 'peak_tps' : 'throughput_tps';
  const points = records.flatMap((r) => {
    const px = numeric(r.values[x]);
    const py = numeric(r.values['perplexity']);
    return px === undefined || py === undefined ? [] : [{ x: px, y: py, series: r.series }];
  });
  if (points.length < 2) return '';
  const front = paretoFrontier(points, { x: 'max', y: 'min' }).map((p) => escapeHtml(p.series));
  return `<p class="pareto"><strong>Pareto-optimal</strong> (${escapeHtml(metricShortLabel('perplexity'))} ↓ vs ${escapeHtml(metricShortLabel(x))} ↑): ${front.join(', ')}${front.length === points.length ? ' (no variant is dominated)' : ''}.</p>`;
}

function summarySection(runs: readonly ReportRun[]): string {
  const rows = combineRuns(runs);
  const records = collapseByModel(rows);
  const failures = rows
    .filter((r) => ['failed', 'error', 'aborted'].includes((textCell(r, 'status') ?? '').toLowerCase()))
    .map((r) =>
      `${textCell(r, 'variant') ?? textCell(r, 'model') ?? textCell(r, 'run') ?? ''} ${textCell(r, 'task') ?? ''}: ${textCell(r, 'error') ?? textCell(r, 'status') ?? ''}`.trim(),
    );
  // Setup alone compares nothing (a single load sweep: its points' metrics differ, so none merges per model); the
  // charts then come first, and failures still get their list.
  const list = `<ul class="failures">${failures.map((f) => `<li>${escapeHtml(f)}</li>`).join('')}</ul>`;
  if (!comparisonHasMetrics(records))
    return failures.length === 0 ? '' : `<section><h2>Failures</h2>${list}</section>`;
  const table = comparisonTableHtml(records);
  return `<section><h2>Comparison</h2><p class="note">One row per ${records.length > 1 ? 'variant' : 'model'}; task rows merged (a value appears only where its rows agree)${records.length > 1 ? '; <span class="best">highlighted</span>: the best value of each metric (↑ higher is better, ↓ lower)' : ''}; values rounded to 3–4 significant digits (hover a value for all its digits, a header for its full name); every column is in the data below.</p>${paretoLine(records)}${table}${failures.length > 0 ? `<h3>Failures</h3>${list}` : ''}</section>`;
}

/** One line about a run's machine, for the folded environment's summary. */
function environmentHeadline(environment: Readonly<Record<string, unknown>> | undefined): string {
  if (environment === undefined) return 'no environment recorded';
  const parts = ['hostname', 'cpuModel', 'engine', 'threads', 'node']
    .map((k) => [k, environment[k]] as const)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => (k === 'threads' ? `${String(v)} threads` : String(v)));
  return parts.length > 0 ? parts.join(' · ') : `${Object.keys(environment).length} entries`;
}

function environmentSection(runs: readonly ReportRun[]): string {
  const cards = runs.map((run) => {
    const pairs: [string, string][] = [];
    flatten(run.environment ?? {}, '', pairs);
    const body =
      pairs.length > 0
        ? table(['Key', 'Value'], pairs, 'env')
        : '<p class="note">No environment recorded.</p>';
    return `<details class="env"><summary><strong>${escapeHtml(run.name)}</strong> <span class="note">${escapeHtml(environmentHeadline(run.environment))}</span></summary><div class="card">${body}</div></details>`;
  });
  return `<section><h2>Environment</h2><p class="note">Where and how each run was measured (CPU, engine, versions, config, command line); click to unfold.</p>${cards.join('')}</section>`;
}

function rowsSection(runs: readonly ReportRun[]): string {
  const parts = runs.map((run) => {
    const cols = columnNames(run.rows).filter((c) => run.rows.some((r) => !isEmptyCell(r[c])));
    const body = run.rows.map((r) => cols.map((c) => formatCell(r[c])));
    return `<details><summary>All rows: ${escapeHtml(run.name)} (${run.rows.length})</summary><div class="scroll">${table(cols, body, 'raw')}</div></details>`;
  });
  return `<section><h2>Data</h2>${parts.join('')}</section>`;
}

/** Charts not drawn: those that need other data in one short line, the others with their reason. */
function notDrawnSection(charts: readonly ReportChart[]): string {
  const skipped = charts.filter((c): c is Extract<ReportChart, { skipped: string }> => 'skipped' in c);
  if (skipped.length === 0) return '';
  const other = skipped.filter((c) => c.missingColumns === true).map((c) => escapeHtml(c.name));
  const reasons = skipped
    .filter((c) => c.missingColumns !== true)
    .map((c) => `<li><strong>${escapeHtml(c.name)}</strong>: ${escapeHtml(c.skipped)}</li>`);
  return `<section class="not-drawn"><h2>Charts not drawn</h2>${reasons.length > 0 ? `<ul class="skipped">${reasons.join('')}</ul>` : ''}${
    other.length > 0
      ? `<p class="note">Not applicable to this data (it has none of their columns): ${other.join(', ')}.</p>`
      : ''
  }</section>`;
}

const STYLE = `
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;margin:24px auto;max-width:1440px;color:#1f1f1f;padding:0 16px}
h1{font-size:24px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px}
.note{color:#555;font-size:13px}.warnings{background:#fff4e5;border:1px solid #f0b35a;border-radius:6px;padding:8px 14px;margin:8px 0 16px}.warnings ul{margin:4px 0 0;padding-left:20px}.runs{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:16px}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 12px;overflow-x:auto}
table{border-collapse:collapse;font-size:13px}th,td{padding:4px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
thead th{background:#f5f5f5;text-align:right}thead th:first-child{text-align:left}tbody th{text-align:left;font-weight:600}table.env td,table.env thead th{text-align:left}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,660px),1fr));gap:16px}
td.best,span.best{background:#e3f4e1;font-weight:700;color:#135c12}.pareto{font-size:14px}
details.env{border:1px solid #ddd;border-radius:6px;padding:6px 12px;margin:6px 0}details.env summary{cursor:pointer}
details.env .card{border:0;padding:8px 0}
figure{margin:0;border:1px solid #eee;border-radius:6px;padding:8px;overflow-x:auto;min-width:0}[data-chart]{width:100%}[data-chart] svg{max-width:100%;height:auto}figcaption{font-size:12px;color:#555}
.skipped{color:#8a4b00}.scroll{overflow-x:auto}.failures{color:#a00;font-size:13px}
table.summary{font-variant-numeric:tabular-nums}table.summary th,table.summary td{padding:3px 6px}
table.summary thead th{white-space:normal;vertical-align:bottom;text-align:center}table.summary th.group{border-bottom:1px solid #ccc}
table.summary .first{border-left:1px solid #ddd}table.summary td.text{text-align:left;white-space:normal}
table.summary tbody th{white-space:normal;max-width:14em}p.shared{margin:4px 0 8px}
figure.fixed{grid-column:1/-1;justify-self:center;max-width:100%}
`;

const EMBED_SCRIPT = `
(function(){
  var figures = document.querySelectorAll('[data-chart]');
  var state = { total: figures.length, rendered: 0, failed: [] };
  window.__dantinoxCharts = state;
  var pending = [];
  figures.forEach(function(el){
    var spec = JSON.parse(document.getElementById(el.getAttribute('data-spec')).textContent);
    // Vega-Lite charts fill their grid cell (legend included); the Vega radar, and charts whose labels were
    // placed for their own size (usermeta.fixedSize), keep their size.
    if (String(spec.$schema || '').indexOf('vega-lite') >= 0 && !(spec.usermeta && spec.usermeta.fixedSize)) { spec.width = 'container'; spec.autosize = { type: 'fit', contains: 'padding' }; }
    pending.push(vegaEmbed(el, spec, { renderer: 'svg', actions: { export: true, source: true, compiled: true, editor: false } })
      .then(function(){ state.rendered++; })
      .catch(function(err){ state.failed.push(el.getAttribute('data-chart') + ': ' + err); el.textContent = 'This chart could not be rendered: ' + err; console.error(err); }));
  });
  Promise.all(pending).then(function(){ state.done = true; document.body.setAttribute('data-charts-done', 'true'); });
})();
`;

/**
 * The report as one HTML string with every script inlined (≈ 0.9 MB of Vega bundles): it opens offline,
 * from a file, with no network access.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` without runs; `DEPENDENCY_MISSING` when a bundle is missing.
 */
export async function buildHtmlReport(input: HtmlReportInput): Promise<string> {
  if (input.runs.length === 0) throw new DantinoxError('INVALID_INPUT', messages.reportNoRuns());
  const bundles = await Promise.all(
    browserBundlePaths().map(async (p) => (await readFile(p, 'utf8')).replace(/<\/script/gi, '<\\/script')),
  );
  const figures = input.charts.flatMap((c, i) =>
    'spec' in c
      ? [
          `<figure${hasFixedSize(c.spec) ? ' class="fixed"' : ''}><div data-chart="${escapeHtml(c.name)}" data-spec="spec-${i}"></div><figcaption>${escapeHtml(c.name)}</figcaption><script type="application/json" id="spec-${i}">${scriptJson(c.spec)}</script></figure>`,
        ]
      : [],
  );
  const runNames = input.runs.map((r) => r.name).join(', ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(input.title)}</title>`,
    `<style>${STYLE}</style>`,
    ...bundles.map((b) => `<script>${b}</script>`),
    '</head><body>',
    `<h1>${escapeHtml(input.title)}</h1>`,
    `<p class="note">${input.runs.length === 1 ? 'Run' : `${input.runs.length} runs`}: ${escapeHtml(runNames)}${input.generatedAt === undefined ? '' : ` · generated ${escapeHtml(input.generatedAt)}`} · charts are interactive (hover for values; ⋯ menu to export).</p>`,
    warningsBanner(input.warnings ?? []),
    summarySection(input.runs),
    figures.length > 0
      ? `<section><h2>Charts</h2><div class="charts">${figures.join('')}</div></section>`
      : '',
    operatorTableSection(input.runs),
    environmentSection(input.runs),
    rowsSection(input.runs),
    notDrawnSection(input.charts),
    `<script>${EMBED_SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
