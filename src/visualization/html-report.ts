/**
 * A self-contained, offline `report.html`: environment block(s), a summary table (one row per model), every
 * chart interactive (Vega, Vega-Lite and vega-embed inlined from `node_modules`, no CDN), and the raw rows. One
 * run, or several runs side by side. Its input is plain data: rows, environment objects, chart specs.
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
import { metricShortLabel } from './metric-labels.js';
import { collapseByModel } from './series.js';

/** One run shown in the report. */
export interface ReportRun {
  /** Run name shown in headings (e.g. the run id or the model name). */
  readonly name: string;
  /** The run's rows (e.g. one per benchmark task). */
  readonly rows: readonly ChartRow[];
  /** Environment record (CPU, Node/ORT versions, seed, command line…); nested objects are flattened. */
  readonly environment?: Readonly<Record<string, unknown>>;
}

/** A chart to embed: its name, and its spec or why it could not be drawn. */
export type ReportChart =
  | { readonly name: string; readonly spec: ChartSpec }
  | { readonly name: string; readonly skipped: string };

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
}

/** Metric columns of the summary table, in order, when present. */
export const SUMMARY_COLUMNS: readonly string[] = [
  'paradigm',
  'params',
  'peak_tps',
  'decode_tps',
  'prefill_mean_ms',
  'prefill_p99_ms',
  'decode_mean_ms',
  'decode_p99_ms',
  'ttft_ms',
  'tpot_ms',
  'perplexity',
  'bits_per_byte',
  'flops_total_g',
];

const BUNDLES = [
  { pkg: 'vega', file: 'vega.min.js' },
  { pkg: 'vega-lite', file: 'vega-lite.min.js' },
  { pkg: 'vega-embed', file: 'vega-embed.min.js' },
] as const;

/**
 * Paths of the browser bundles inlined in the report (`vega.min.js`, `vega-lite.min.js`,
 * `vega-embed.min.js`), found next to each package's resolved entry point.
 *
 * @throws {DantinoxError} `DEPENDENCY_MISSING` when a bundle cannot be found.
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

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
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

function summarySection(runs: readonly ReportRun[]): string {
  const rows = combineRuns(runs);
  const records = collapseByModel(rows);
  const present = SUMMARY_COLUMNS.filter((c) => records.some((r) => !isEmptyCell(r.values[c])));
  const failures = rows
    .filter((r) => ['failed', 'error', 'aborted'].includes((textCell(r, 'status') ?? '').toLowerCase()))
    .map((r) =>
      `${textCell(r, 'model') ?? textCell(r, 'run') ?? ''} ${textCell(r, 'task') ?? ''}: ${textCell(r, 'error') ?? textCell(r, 'status') ?? ''}`.trim(),
    );
  const body = records.map((r) => [r.series, ...present.map((c) => formatCell(r.values[c]))]);
  return `<section><h2>Summary</h2><p class="note">One row per model; task rows merged (a value appears only where the model's rows agree).</p><div class="scroll">${table(['Model', ...present.map(metricShortLabel)], body, 'summary')}</div>${
    failures.length > 0
      ? `<h3>Failures</h3><ul class="failures">${failures.map((f) => `<li>${escapeHtml(f)}</li>`).join('')}</ul>`
      : ''
  }</section>`;
}

function environmentSection(runs: readonly ReportRun[]): string {
  const cards = runs.map((run) => {
    const pairs: [string, string][] = [];
    flatten(run.environment ?? {}, '', pairs);
    const body =
      pairs.length > 0
        ? table(['Key', 'Value'], pairs, 'env')
        : '<p class="note">No environment recorded.</p>';
    return `<div class="card"><h3>${escapeHtml(run.name)}</h3>${body}</div>`;
  });
  return `<section><h2>Environment</h2><div class="runs">${cards.join('')}</div></section>`;
}

function rowsSection(runs: readonly ReportRun[]): string {
  const parts = runs.map((run) => {
    const cols = columnNames(run.rows).filter((c) => run.rows.some((r) => !isEmptyCell(r[c])));
    const body = run.rows.map((r) => cols.map((c) => formatCell(r[c])));
    return `<details><summary>All rows: ${escapeHtml(run.name)} (${run.rows.length})</summary><div class="scroll">${table(cols, body, 'raw')}</div></details>`;
  });
  return `<section><h2>Data</h2>${parts.join('')}</section>`;
}

const STYLE = `
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;margin:24px auto;max-width:1280px;color:#1f1f1f;padding:0 16px}
h1{font-size:24px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px}
.note{color:#555;font-size:13px}.runs{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:16px}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 12px;overflow-x:auto}
table{border-collapse:collapse;font-size:13px}th,td{padding:4px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
thead th{background:#f5f5f5;text-align:right}thead th:first-child{text-align:left}tbody th{text-align:left;font-weight:600}table.env td,table.env thead th{text-align:left}
.charts{display:grid;grid-template-columns:1fr;gap:24px}
figure{margin:0;border:1px solid #eee;border-radius:6px;padding:8px;overflow-x:auto}figcaption{font-size:12px;color:#555}
.skipped{color:#8a4b00}.scroll{overflow-x:auto}.failures{color:#a00;font-size:13px}
`;

const EMBED_SCRIPT = `
(function(){
  var figures = document.querySelectorAll('[data-chart]');
  var state = { total: figures.length, rendered: 0, failed: [] };
  window.__dantinoxCharts = state;
  var pending = [];
  figures.forEach(function(el){
    var spec = JSON.parse(document.getElementById(el.getAttribute('data-spec')).textContent);
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
 * @throws {DantinoxError} `INVALID_INPUT` without runs; `DEPENDENCY_MISSING` when a bundle is missing.
 */
export async function buildHtmlReport(input: HtmlReportInput): Promise<string> {
  if (input.runs.length === 0) throw new DantinoxError('INVALID_INPUT', messages.reportNoRuns());
  const bundles = await Promise.all(
    browserBundlePaths().map(async (p) => (await readFile(p, 'utf8')).replace(/<\/script/gi, '<\\/script')),
  );
  const figures = input.charts.map((c, i) =>
    'spec' in c
      ? `<figure><div data-chart="${escapeHtml(c.name)}" data-spec="spec-${i}"></div><figcaption>${escapeHtml(c.name)}</figcaption><script type="application/json" id="spec-${i}">${scriptJson(c.spec)}</script></figure>`
      : `<figure class="skipped"><figcaption><strong>${escapeHtml(c.name)}</strong>: not drawn. ${escapeHtml(c.skipped)}</figcaption></figure>`,
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
    environmentSection(input.runs),
    summarySection(input.runs),
    `<section><h2>Charts</h2><div class="charts">${figures.join('')}</div></section>`,
    rowsSection(input.runs),
    `<script>${EMBED_SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
