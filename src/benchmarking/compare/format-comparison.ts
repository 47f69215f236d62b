/**
 * Renders {@link ReportComparison}s as a terminal table (ANSI colour optional), as Markdown for a pull-request
 * comment, or as JSON. Pure string building.
 *
 * @packageDocumentation
 */
import { formatDifferences } from '../variant-identity.js';
import type { MetricComparison, ReportComparison, UnmatchedEntry, Verdict } from './compare-reports.js';
import { METHOD_DESCRIPTIONS, METHOD_LABELS, VERDICTS } from './compare-reports.js';

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

/** A fraction as an unsigned percentage: `0.05` → `5%`. */
const percent = (v: number): string => `${Number((v * 100).toPrecision(4))}%`;

function settingsLine(c: ReportComparison): string {
  const floor =
    c.noiseFloor !== null
      ? `noise floor ${percent(c.noiseFloor)} (given)`
      : c.earlierRuns > 0
        ? `noise floor learned from ${c.earlierRuns} earlier runs`
        : 'no noise floor';
  const bootstrap = c.methods.includes('noise-floor')
    ? `; per-call interval: ${c.resamples} bootstrap resamples, seed ${c.seed}`
    : '';
  return `Runs per side: ${c.baseline.runs} baseline, ${c.candidate.runs} candidate; threshold ${percent(c.threshold)}, α = ${c.alpha}, ${Math.round(c.confidence * 100)}% intervals, ${floor}, power ${Math.round(c.power * 100)}% for runs-needed estimates${bootstrap}.`;
}

/** One line per method that decided a row: `welch: Welch's t-test …`. */
function methodLines(c: ReportComparison): string[] {
  return c.methods.map((m) => `${METHOD_LABELS[m]}: ${METHOD_DESCRIPTIONS[m]}.`);
}

/** What to do about inconclusive rows, or nothing when there are none. */
function inconclusiveLine(c: ReportComparison): string | undefined {
  const rows = c.rows.filter((r) => r.verdict === 'inconclusive');
  if (rows.length === 0) return undefined;
  const needed = rows.map((r) => r.runsNeeded).filter((n): n is number => n !== null);
  const most =
    needed.length > 0 ? `up to ${Math.max(...needed)} runs per side needed` : 'more runs per side needed';
  const one = c.baseline.runs === 1 && c.candidate.runs === 1;
  const why = one
    ? 'one run per side cannot tell a change from run-to-run drift without a noise floor'
    : 'the runs cannot yet tell a change beyond the threshold from run-to-run drift';
  return `${rows.length} metric${rows.length === 1 ? '' : 's'} inconclusive: ${why}; ${most}.`;
}

/** The verdict as shown: `inconclusive: 6 runs per side needed` for an inconclusive row that has an estimate. */
function verdictText(r: MetricComparison): string {
  return r.verdict === 'inconclusive' && r.runsNeeded !== null
    ? `inconclusive: ${r.runsNeeded} runs per side needed`
    : r.verdict;
}

function unmatchedLine(u: UnmatchedEntry): string {
  const where = [u.task, u.cell, u.metric].filter((x) => x !== null).join(' / ');
  return `${u.side === 'both' ? 'neither' : `${u.side} only`}: ${where} (${u.reason})`;
}

function headerLines(c: ReportComparison): string[] {
  const lines = [`${c.candidate.label} vs ${c.baseline.label} (baseline): ${countsLine(c)}`];
  if (c.variantDifferences.length > 0)
    lines.push(`Different variants (--allow-different): ${formatDifferences(c.variantDifferences)}.`);
  return lines;
}

const COLUMNS = [
  'task',
  'cell',
  'metric',
  'baseline',
  'candidate',
  'change',
  'CI',
  'p',
  'runs',
  'method',
  'verdict',
] as const;

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
    `${r.runs[0]}+${r.runs[1]}`,
    METHOD_LABELS[r.method],
    verdictText(r),
  ];
}

function textTable(c: ReportComparison, color: boolean): string {
  const body = c.rows.map(cellsOf);
  const head = COLUMNS.map((h, i) =>
    h === 'CI' ? `${Math.round(c.confidence * 100)}% CI` : (COLUMNS[i] as string),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const numeric = new Set([3, 4, 5, 7, 8]);
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
  const advice = inconclusiveLine(c);
  if (advice !== undefined) lines.push(advice);
  lines.push(settingsLine(c), ...methodLines(c));
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
    'runs',
    'method',
    'verdict',
  ];
  const align = head.map((h) =>
    ['baseline', 'candidate', 'change', 'p', 'runs'].includes(h) ? '---:' : '---',
  );
  const lines = [`| ${head.join(' | ')} |`, `|${align.join('|')}|`];
  for (const r of rows) {
    const cells = cellsOf(r);
    if (!withCell) cells.splice(1, 1);
    cells[cells.length - 1] = `${MARKS[r.verdict] ?? ''}${verdictText(r)}`;
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
  if (c.variantDifferences.length > 0)
    lines.push(`Different variants (--allow-different): ${formatDifferences(c.variantDifferences)}.`, '');
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
  const advice = inconclusiveLine(c);
  if (advice !== undefined) lines.push(`**${advice}**`, '');
  lines.push(`<sub>${[settingsLine(c), ...methodLines(c)].join('<br>')}</sub>`);
  return lines.join('\n');
}

/**
 * The comparisons as plain rows, one per compared metric, for charts and tables: `baseline_run`, `candidate`,
 * `task`, `cell` (null for task metrics), `metric`, `unit`, `baseline`, `candidate_value`, `change`,
 * `change_ci_low`, `change_ci_high`, `p_value`, `verdict`, `method`, `runs_baseline`, `runs_candidate`,
 * `runs_needed`, `noise_floor`, `threshold` (changes and floors are fractions; unavailable numbers are null).
 * This is what the `compare` chart draws.
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
      method: r.method,
      runs_baseline: r.runs[0],
      runs_candidate: r.runs[1],
      runs_needed: r.runsNeeded,
      noise_floor: r.noiseFloor,
      threshold: c.threshold,
    })),
  );
}

/** NaN and ±∞ become `null` in JSON (JSON has no such numbers). */
const jsonReplacer = (_key: string, value: unknown): unknown =>
  typeof value === 'number' && !Number.isFinite(value) ? null : value;

/**
 * Renders comparisons (one per candidate, all against the same baseline): `text` is an aligned table per
 * comparison with the verdict counts (an inconclusive row says how many runs per side it needs), what was not
 * compared, the settings and the methods that decided; `markdown` is the same for a
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
