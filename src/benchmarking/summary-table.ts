/**
 * The summary of one or several runs as a person reads it — the numbers read first (peak tokens/s, TTFT, decode
 * tokens/s, perplexity) on one line, then one row per timed cell with mean ± standard deviation, unit and sample
 * count, then the task metrics, then the cells and tasks that did not complete with their reason — and the same
 * rows for scripts (`kv`, `json`, `csv`, `markdown`).
 *
 * @packageDocumentation
 */
import { formatSignificant } from '../number-format.js';
import { summarize } from '../profiling/statistics.js';
import { formatCsv } from './csv.js';
import { describeMetric } from './metric-schema.js';
import { formatNoiseWarnings, type NoiseSource, noiseWarnings } from './noise-warnings.js';
import type { CellRecord, MetricDescriptor } from './task.js';

/**
 * How a summary is written: `table` (aligned columns for a terminal), `kv` (the seed's `key=value` lines),
 * `markdown` (a table to paste into a pull request), `json` (an array of {@link SummaryRow}), `csv` (the same rows).
 */
export type SummaryFormat = 'table' | 'kv' | 'markdown' | 'json' | 'csv';

/** Every {@link SummaryFormat}, in the order `--format` lists them. */
export const SUMMARY_FORMATS: readonly SummaryFormat[] = Object.freeze([
  'table',
  'kv',
  'markdown',
  'json',
  'csv',
]);

/** What the summary needs of a report (a {@link SuiteReport} has it). */
export interface SummarySource extends NoiseSource {
  /** Wall time of the run in seconds. */
  readonly totalTimeS: number;
  /** Metric descriptors of the run's tasks (units). */
  readonly descriptors: readonly MetricDescriptor[];
}

/** Options of {@link formatSummary}. */
export interface SummaryOptions {
  /**
   * Append the {@link noiseWarnings} of the sources to the `table` and `markdown` formats (a script reading
   * `json`, `csv` or `kv` gets rows only). @default true
   */
  readonly warnings?: boolean;
}

/**
 * One row of a summary: a timed cell's measure (`kind: 'cell'`, with its spread and sample count), a task metric
 * (`kind: 'metric'`), or a cell or task that did not complete (`kind: 'failed' | 'skipped'`, with the reason).
 */
export interface SummaryRow {
  /** The run (variant) id; empty when unknown. */
  readonly variant: string;
  /** Task name. */
  readonly task: string;
  /** Which row this is. */
  readonly kind: 'cell' | 'metric' | 'failed' | 'skipped';
  /** The cell id (`seq=128,batch=1`, `decode@512`), empty for task rows. */
  readonly cell: string;
  /** What the value measures: the cell's phase (`prefill`, `decode`), a per-call measure (`ttft_ms`) or a metric key. */
  readonly measure: string;
  /** Mean over the timed calls (cells) or the metric's value; `null` for rows that did not complete. */
  readonly value: number | null;
  /** Sample standard deviation over the timed calls, in the value's unit; `null` for metrics and single calls. */
  readonly sd: number | null;
  /** Unit of `value` and `sd` (`ms`, `tok/s`, `1` for a ratio); empty when unknown. */
  readonly unit: string;
  /** Timed calls behind the value; `null` for metrics. */
  readonly n: number | null;
  /** Tokens per second of a timed cell (tokens per call ÷ mean call time); `null` otherwise. */
  readonly tokensPerS: number | null;
  /** Why a row did not complete; empty otherwise. */
  readonly reason: string;
}

/** One metric of the `At a glance` line. */
export interface GlanceMetric {
  /** The task metric's key, e.g. `peak_tps`. */
  readonly key: string;
  /** What the line calls it, e.g. `peak`. */
  readonly label: string;
}

/** The task metrics a person reads first, in the order the `At a glance` line gives them, with their labels. */
export const GLANCE_METRICS: readonly GlanceMetric[] = Object.freeze([
  { key: 'peak_tps', label: 'peak' },
  { key: 'ttft_ms', label: 'TTFT' },
  { key: 'decode_tps', label: 'decode' },
  { key: 'perplexity', label: 'perplexity' },
]);

/**
 * `At a glance: peak 24,242 tok/s · TTFT 1.16 ms · decode 990.1 tok/s · perplexity 256` — each
 * {@link GLANCE_METRICS} metric that a completed task row of `source` holds as a finite number (the first such row),
 * with its unit; `At a glance, <run id>: …` when `named`. `undefined` when the run has none of them.
 */
export function glanceLine(source: SummarySource, named = false): string | undefined {
  const parts = GLANCE_METRICS.flatMap(({ key, label }) => {
    const value = source.results.find(
      (r) => (r.status ?? 'completed') === 'completed' && Number.isFinite(r.metrics[key] ?? Number.NaN),
    )?.metrics[key];
    if (value === undefined) return [];
    const unit = unitOf(key, source.descriptors);
    return [`${label} ${shown(value)}${unit === '' || unit === '1' ? '' : ` ${unit}`}`];
  });
  if (parts.length === 0) return undefined;
  return `At a glance${named ? `, ${source.runId ?? ''}` : ''}: ${parts.join(' · ')}`;
}

/** A row's mean and sample standard deviation (`null` below two values) of per-call values; `NaN` if damaged. */
function meanSd(xs: readonly number[]): Pick<SummaryRow, 'value' | 'sd'> {
  if (!xs.every(Number.isFinite)) return { value: Number.NaN, sd: null };
  const { n, mean, std } = summarize(xs);
  return { value: mean, sd: n < 2 ? null : std };
}

/** The unit of a per-call measure or metric: its descriptor's, else `ms` for `*_ms` keys, else empty. */
function unitOf(key: string, descriptors: readonly MetricDescriptor[]): string {
  return describeMetric(key, descriptors)?.unit ?? (key.endsWith('_ms') ? 'ms' : '');
}

/** Rows of one timed cell: its per-call measures when it records them (a generation), else its call time. */
function cellRows(
  c: CellRecord,
  base: Pick<SummaryRow, 'variant' | 'task'>,
  units: readonly MetricDescriptor[],
): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const none = { sd: null, n: null, tokensPerS: null, reason: '' };
  if (c.status !== 'completed') {
    const reason = c.error ?? '';
    rows.push({
      ...base,
      ...none,
      kind: c.status,
      cell: c.cell,
      measure: c.phase,
      value: null,
      unit: '',
      reason,
    });
    return rows;
  }
  const measures = Object.entries(c.metricSamples ?? {}).filter(([, xs]) => xs.length > 0);
  if (measures.length > 0) {
    for (const [key, xs] of measures)
      rows.push({
        ...base,
        ...none,
        kind: 'cell',
        cell: c.cell,
        measure: key,
        ...meanSd(xs),
        unit: unitOf(key, units),
        n: xs.length,
      });
    return rows;
  }
  const samples = c.samplesMs ?? [];
  if (samples.length === 0) return rows;
  const tps = c.metrics['tps'];
  rows.push({
    ...base,
    ...none,
    kind: 'cell',
    cell: c.cell,
    measure: c.phase,
    ...meanSd(samples),
    unit: 'ms',
    n: samples.length,
    tokensPerS: tps === undefined || !Number.isFinite(tps) ? null : tps,
  });
  return rows;
}

/**
 * Whether a task metric belongs in the summary's metric rows: not one per shape (`tps_seq{L}`: its cell has a
 * row) and, for a task with timed cells, not a timing in ms (its cells' rows give it with its spread).
 */
function isHeadline(key: string, timed: boolean, descriptors: readonly MetricDescriptor[]): boolean {
  const d = describeMetric(key, descriptors);
  if (d?.key.includes('{') === true) return false;
  return !(timed && (d?.unit === 'ms' || key.endsWith('_ms')));
}

/**
 * The rows of a summary of `sources`, in run and task order — each task's timed cells, then its metrics — and
 * at the end what did not complete (cells and tasks, with the reason).
 */
export function summaryRows(sources: readonly SummarySource[]): SummaryRow[] {
  const measured: SummaryRow[] = [];
  const incomplete: SummaryRow[] = [];
  const nothing = { value: null, sd: null, unit: '', n: null, tokensPerS: null };
  for (const s of sources) {
    for (const r of s.results) {
      const base = { variant: s.runId ?? '', task: r.task };
      const rows = (r.cells ?? []).flatMap((c) => cellRows(c, base, s.descriptors));
      const timed = rows.filter((row) => row.kind === 'cell');
      measured.push(...timed);
      incomplete.push(...rows.filter((row) => row.kind !== 'cell'));
      if (r.status === 'failed' || r.status === 'skipped')
        incomplete.push({ ...base, ...nothing, kind: r.status, cell: '', measure: '', reason: r.error });
      for (const [key, value] of Object.entries(r.metrics)) {
        if (!isHeadline(key, timed.length > 0, s.descriptors)) continue;
        measured.push({
          ...base,
          ...nothing,
          kind: 'metric',
          cell: '',
          measure: key,
          value: Number.isFinite(value) ? value : null,
          unit: unitOf(key, s.descriptors),
          reason: '',
        });
      }
    }
  }
  return [...measured, ...incomplete];
}

/** A cell of the table: {@link formatSignificant} with 4 digits (2 for a spread), `—` when missing. */
const shown = (value: number | null, digits = 4): string =>
  value === null ? '—' : formatSignificant(value, digits);

/** `mean ± sd unit`, `value unit`, or the status and reason of a row. */
function valueText(row: SummaryRow): string {
  const unit = row.unit === '' || row.unit === '1' ? '' : ` ${row.unit}`;
  if (row.kind === 'cell')
    return `${shown(row.value)}${row.sd === null ? '' : ` ± ${shown(row.sd, 2)}`}${unit}`;
  if (row.kind === 'metric') return `${shown(row.value)}${unit}`;
  return `${row.kind}: ${oneLine(row.reason)}`;
}

/** A reason on one line, so a table row stays one line. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ');

/** The columns of the human formats, with or without the variant column. */
function humanColumns(rows: readonly SummaryRow[]): {
  header: string[];
  cells: (row: SummaryRow) => string[];
} {
  const many = new Set(rows.map((r) => r.variant)).size > 1;
  const header = [...(many ? ['variant'] : []), 'task', 'cell', 'measure', 'mean ± sd', 'tok/s', 'n'];
  const cells = (row: SummaryRow): string[] => [
    ...(many ? [row.variant] : []),
    row.task,
    row.cell,
    row.measure,
    valueText(row),
    row.tokensPerS === null ? '' : shown(row.tokensPerS),
    row.n === null ? '' : String(row.n),
  ];
  return { header, cells };
}

/** Aligned columns; numbers right-aligned, text left; a row that did not complete runs past its cells. */
function alignedTable(rows: readonly SummaryRow[]): string {
  const { header, cells } = humanColumns(rows);
  const measured = rows.filter((r) => r.kind === 'cell' || r.kind === 'metric');
  const body = measured.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const right = new Set([header.length - 1, header.length - 2]);
  const line = (r: readonly string[]): string =>
    r
      .map((v, i) => (right.has(i) ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const lines = [line(header), ...body.map(line)];
  for (const r of rows.filter((row) => row.kind === 'failed' || row.kind === 'skipped')) {
    const where = [rows.some((x) => x.variant !== r.variant) ? r.variant : '', r.task, r.cell].filter(
      (p) => p !== '',
    );
    lines.push(`${where.join('  ')}  ${r.kind}: ${oneLine(r.reason)}`);
  }
  return lines.map((l) => `  ${l}`).join('\n');
}

/** A GitHub-flavoured markdown table (pipes in values escaped). */
function markdownTable(rows: readonly SummaryRow[]): string {
  const { header, cells } = humanColumns(rows);
  const esc = (v: string): string => v.replace(/\|/g, '\\|');
  const right = new Set([header.length - 1, header.length - 2]);
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (right.has(i) ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${cells(r).map(esc).join(' | ')} |`),
  ].join('\n');
}

/** The seed's format: header, `model:` line, one `[task] k=v` line per task (4 decimals). */
function keyValue(source: SummarySource): string {
  const lines = [
    `BenchmarkSuite  —  ${source.results.length} task(s)  (${source.totalTimeS.toFixed(1)} s total)`,
  ];
  const meta = Object.entries(source.modelMeta).filter(([, v]) => v !== null);
  if (meta.length > 0) lines.push(`  model: ${meta.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`);
  for (const r of source.results) {
    const pairs = Object.entries(r.metrics).map(([k, v]) => `${k}=${v.toFixed(4)}`);
    if (r.status === 'failed' || r.status === 'skipped')
      pairs.push(`status=${r.status}${r.error ? `: ${r.error}` : ''}`);
    lines.push(`  ${[`[${r.task}]`, ...pairs].join('  ')}`);
  }
  return lines.join('\n');
}

/** The columns of the `csv` format, in order. */
const CSV_COLUMNS: readonly (keyof SummaryRow)[] = [
  'variant',
  'task',
  'kind',
  'cell',
  'measure',
  'value',
  'sd',
  'unit',
  'n',
  'tokensPerS',
  'reason',
];

/**
 * The summary of `sources` in `format`: `table` — a header line (`Summary: 4 task(s), 1.7 s`) then one aligned
 * table; `kv` — the seed's lines per run; `markdown`, `json`, `csv` — the {@link summaryRows} of every run at
 * once (a `variant` column tells them apart). `table` and `markdown` end with the {@link noiseWarnings}, if any.
 */
export function formatSummary(
  sources: readonly SummarySource[],
  format: SummaryFormat = 'table',
  options: SummaryOptions = {},
): string {
  const warnings = options.warnings === false ? '' : formatNoiseWarnings(noiseWarnings(sources));
  const withWarnings = (text: string): string => (warnings === '' ? text : `${text}\n\n${warnings}`);
  switch (format) {
    case 'kv':
      return sources.map(keyValue).join('\n\n');
    case 'json':
      return JSON.stringify(summaryRows(sources), null, 2);
    case 'csv':
      return formatCsv(
        CSV_COLUMNS.map((c) => (c === 'tokensPerS' ? 'tokens_per_s' : c)),
        summaryRows(sources).map((r) =>
          Object.fromEntries(CSV_COLUMNS.map((c) => [c === 'tokensPerS' ? 'tokens_per_s' : c, r[c]])),
        ),
      ).trimEnd();
    case 'markdown':
      return withWarnings(markdownTable(summaryRows(sources)));
    case 'table': {
      const tasks = sources.reduce((a, s) => a + s.results.length, 0);
      const time = sources.reduce((a, s) => a + s.totalTimeS, 0);
      const runs = sources.length > 1 ? `${sources.length} runs, ` : '';
      const glance = sources.flatMap((s) => glanceLine(s, sources.length > 1) ?? []);
      return withWarnings(
        `${glance.map((l) => `${l}\n`).join('')}Summary: ${runs}${tasks} task(s), ${time.toFixed(1)} s (mean ± sd over the timed calls)\n${alignedTable(summaryRows(sources))}`,
      );
    }
  }
}
