/**
 * Renders {@link ReportComparison}s as a terminal table (ANSI colour optional), as Markdown for a pull-request
 * comment, or as JSON. Pure string building.
 *
 * @packageDocumentation
 */
import type { MetricComparison, ReportComparison, UnmatchedEntry, Verdict } from './compare-reports.js';
import { VERDICTS } from './compare-reports.js';

/** Output formats of {@link formatComparisons}. */
export type ComparisonFormat = 'text' | 'markdown' | 'json';

/** Every {@link ComparisonFormat}. */
export const COMPARISON_FORMATS: readonly ComparisonFormat[] = ['text', 'markdown', 'json'];

/** Options of {@link formatComparisons}. */
export interface FormatComparisonOptions {
  /** ANSI colours in the `text` format (regressed red, improved green). @default false */
  readonly color?: boolean;
}

const COLORS: Partial<Record<Verdict, string>> = { regressed: '\x1b[31m', improved: '\x1b[32m' };
const RESET = '\x1b[0m';
const MARKS: Partial<Record<Verdict, string>> = { regressed: '🔴 ', improved: '🟢 ' };

/** A value with 4 significant digits, no exponent for ordinary magnitudes; `—` when not a number. */
function formatValue(v: number): string {
  if (!Number.isFinite(v)) return '—';
  if (Math.abs(v) >= 1e4) return Math.round(v).toString();
  return String(Number(v.toPrecision(4)));
}

/** A fraction as a signed percentage with one decimal: `0.052` → `+5.2%`. */
function formatChange(v: number): string {
  if (Number.isNaN(v)) return '—';
  if (!Number.isFinite(v)) return v > 0 ? '+∞' : '−∞';
  const pct = (v * 100).toFixed(1);
  return `${v >= 0 ? '+' : ''}${pct.replace('-', '−')}%`;
}

function formatCi(r: MetricComparison): string {
  const [lo, hi] = r.changeCi;
  return Number.isNaN(lo) || Number.isNaN(hi) ? 'n/a' : `[${formatChange(lo)}, ${formatChange(hi)}]`;
}

function formatP(p: number): string {
  if (Number.isNaN(p)) return 'n/a';
  return p < 0.001 ? '<0.001' : p.toFixed(3);
}

function metricLabel(r: MetricComparison): string {
  return r.unit === null || r.unit === '1' ? r.metric : `${r.metric} (${r.unit})`;
}

/** The verdict counts as a sentence: `1 regressed, 2 improved, …` (zero counts left out). */
function countsLine(c: ReportComparison): string {
  const parts = VERDICTS.filter((v) => c.counts[v] > 0).map((v) => `${c.counts[v]} ${v}`);
  return parts.length === 0 ? 'no metric in common' : parts.join(', ');
}

function settingsLine(c: ReportComparison): string {
  return `threshold ${formatChange(c.threshold).replace('+', '')}, α = ${c.alpha}; test: ${c.test}; interval: ${Math.round(c.confidence * 100)}% ${c.interval}, ${c.resamples} resamples, seed ${c.seed}.`;
}

function unmatchedLine(u: UnmatchedEntry): string {
  const where = [u.task, u.cell, u.metric].filter((x) => x !== null).join(' / ');
  return `${u.side === 'both' ? 'neither' : `${u.side} only`}: ${where} (${u.reason})`;
}

function headerLines(c: ReportComparison): string[] {
  const lines = [`${c.candidate.label} vs ${c.baseline.label} (baseline): ${countsLine(c)}`];
  if (c.modelDifferences.length > 0) lines.push(`Different models: ${c.modelDifferences.join('; ')}.`);
  return lines;
}

const COLUMNS = ['task', 'cell', 'metric', 'baseline', 'candidate', 'change', 'CI', 'p', 'verdict'] as const;

function cellsOf(r: MetricComparison): string[] {
  return [
    r.task,
    r.cell ?? '—',
    metricLabel(r),
    formatValue(r.baseline),
    formatValue(r.candidate),
    formatChange(r.change),
    formatCi(r),
    formatP(r.pValue),
    r.verdict,
  ];
}

function textTable(c: ReportComparison, color: boolean): string {
  const body = c.rows.map(cellsOf);
  const head = COLUMNS.map((h, i) =>
    h === 'CI' ? `${Math.round(c.confidence * 100)}% CI` : (COLUMNS[i] as string),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const numeric = new Set([3, 4, 5, 7]);
  const line = (row: readonly string[]): string =>
    row
      .map((x, i) => (numeric.has(i) ? x.padStart(widths[i] as number) : x.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const out = [line(head)];
  c.rows.forEach((r, k) => {
    const text = line(body[k] as string[]);
    const col = color ? COLORS[r.verdict] : undefined;
    out.push(col === undefined ? text : `${col}${text}${RESET}`);
  });
  return out.join('\n');
}

function textOne(c: ReportComparison, color: boolean): string {
  const lines = [...headerLines(c), ''];
  if (c.rows.length > 0) lines.push(textTable(c, color), '');
  for (const u of c.unmatched) lines.push(unmatchedLine(u));
  if (c.unmatched.length > 0) lines.push('');
  lines.push(settingsLine(c));
  return lines.join('\n');
}

const escapeMd = (s: string): string => s.replace(/\|/g, '\\|');

function markdownTable(rows: readonly MetricComparison[], withCell: boolean, confidence: number): string[] {
  const head = [
    'task',
    ...(withCell ? ['cell'] : []),
    'metric',
    'baseline',
    'candidate',
    'change',
    `${Math.round(confidence * 100)}% CI`,
    'p',
    'verdict',
  ];
  const align = head.map((h) => (['baseline', 'candidate', 'change', 'p'].includes(h) ? '---:' : '---'));
  const lines = [`| ${head.join(' | ')} |`, `|${align.join('|')}|`];
  for (const r of rows) {
    const cells = cellsOf(r);
    if (!withCell) cells.splice(1, 1);
    cells[cells.length - 1] = `${MARKS[r.verdict] ?? ''}${r.verdict}`;
    lines.push(`| ${cells.map(escapeMd).join(' | ')} |`);
  }
  return lines;
}

function markdownOne(c: ReportComparison): string {
  const lines = [
    `### \`${escapeMd(c.candidate.label)}\` vs \`${escapeMd(c.baseline.label)}\` (baseline)`,
    '',
    `**${countsLine(c)}**`,
    '',
  ];
  if (c.modelDifferences.length > 0) lines.push(`Different models: ${c.modelDifferences.join('; ')}.`, '');
  const taskRows = c.rows.filter((r) => r.cell === null);
  const cellRows = c.rows.filter((r) => r.cell !== null);
  if (taskRows.length > 0) lines.push(...markdownTable(taskRows, false, c.confidence), '');
  if (cellRows.length > 0) {
    lines.push(
      `<details><summary>Per-cell metrics (${cellRows.length})</summary>`,
      '',
      ...markdownTable(cellRows, true, c.confidence),
      '',
      '</details>',
      '',
    );
  }
  if (c.unmatched.length > 0) {
    lines.push('Not compared:', '', ...c.unmatched.map((u) => `- ${escapeMd(unmatchedLine(u))}`), '');
  }
  lines.push(`<sub>${settingsLine(c)}</sub>`);
  return lines.join('\n');
}

/**
 * The comparisons as plain rows, one per compared metric, for charts and tables: `baseline_run`, `candidate`,
 * `task`, `cell` (null for task metrics), `metric`, `unit`, `baseline`, `candidate_value`, `change`,
 * `change_ci_low`, `change_ci_high`, `p_value`, `verdict`, `threshold` (changes are fractions; unavailable
 * numbers are null). This is what the `compare` chart draws.
 */
export function comparisonRows(
  comparisons: readonly ReportComparison[],
): Record<string, string | number | null>[] {
  const num = (v: number): number | null => (Number.isFinite(v) ? v : null);
  return comparisons.flatMap((c) =>
    c.rows.map((r) => ({
      baseline_run: c.baseline.label,
      candidate: c.candidate.label,
      task: r.task,
      cell: r.cell,
      metric: r.metric,
      unit: r.unit,
      baseline: num(r.baseline),
      candidate_value: num(r.candidate),
      change: num(r.change),
      change_ci_low: num(r.changeCi[0]),
      change_ci_high: num(r.changeCi[1]),
      p_value: num(r.pValue),
      verdict: r.verdict,
      threshold: c.threshold,
    })),
  );
}

/** NaN and ±∞ become `null` in JSON (JSON has no such numbers). */
const jsonReplacer = (_key: string, value: unknown): unknown =>
  typeof value === 'number' && !Number.isFinite(value) ? null : value;

/**
 * Renders comparisons (one per candidate, all against the same baseline): `text` is an aligned table per
 * comparison with the verdict counts, what was not compared and the method; `markdown` is the same for a
 * pull-request comment (task metrics in a table, per-cell metrics folded in `<details>`); `json` is
 * `{ format: 'dantinox-comparison', version: 1, comparisons }` with `null` for unavailable numbers.
 *
 * @returns The text, ending with a newline.
 */
export function formatComparisons(
  comparisons: readonly ReportComparison[],
  format: ComparisonFormat,
  options: FormatComparisonOptions = {},
): string {
  if (format === 'json') {
    return `${JSON.stringify({ format: 'dantinox-comparison', version: 1, comparisons }, jsonReplacer, 2)}\n`;
  }
  const parts = comparisons.map((c) =>
    format === 'markdown' ? markdownOne(c) : textOne(c, options.color === true),
  );
  return `${parts.join('\n\n')}\n`;
}
