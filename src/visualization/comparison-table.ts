/**
 * The report's comparison table: one row per variant or model, columns grouped under a header that carries the
 * unit (`Prefill (ms)` over `mean` and `p99`), values with 3–4 significant digits (the exact value on hover),
 * the best value of each metric highlighted, and the setup columns that are the same in every row said once
 * above the table instead of repeated. Sized to fit a 1,280 px page without scrolling sideways.
 *
 * @packageDocumentation
 */
import { formatSignificant } from '../number-format.js';
import { isEmptyCell } from './chart-data.js';
import { escapeHtml } from './escape-html.js';
import { isLowerBetter, metricTitle } from './metric-labels.js';
import type { Direction } from './pareto-frontier.js';
import type { ModelRecord } from './series.js';
import { withTargetParity } from './target-parity.js';

/** How a summary column's values are written. */
export type ComparisonValueFormat = 'number' | 'percent' | 'text';

/** One column of the comparison table. */
export interface ComparisonColumn {
  /** The row key it shows (`prefill_p99_ms`). */
  readonly key: string;
  /** Its header under the group's (`p99`). */
  readonly label: string;
  /** How values are written. */
  readonly format: ComparisonValueFormat;
}

/** A group of columns under one header that carries their unit. */
export interface ComparisonGroup {
  /** Group header, with the unit shared by its columns (`Prefill (ms)`). */
  readonly title: string;
  /** Whether the group describes the setup (no best value, said once when the same in every row). */
  readonly setup: boolean;
  /** Its columns, in order. */
  readonly columns: readonly ComparisonColumn[];
}

const column = (key: string, label: string, format: ComparisonValueFormat = 'number'): ComparisonColumn =>
  Object.freeze({ key, label, format });
const group = (title: string, columns: readonly ComparisonColumn[], setup = false): ComparisonGroup =>
  Object.freeze({ title, setup, columns: Object.freeze([...columns]) });

/**
 * The comparison table's columns, grouped, in order; a column appears when some row has a value. Setup columns
 * (paradigm, dtype, engine, threads, params) are descriptive; every other column is a metric whose better
 * direction comes from {@link isLowerBetter} (marked ↑ or ↓ in its header). The `kld` task's columns (KLD,
 * top-1 agreement and perplexity ratio against the reference model) form their own group; so do the browser
 * target's parity ratios (browser speed ÷ the speed of the same variant on Node, see `withTargetParity`).
 */
export const COMPARISON_GROUPS: readonly ComparisonGroup[] = Object.freeze([
  group(
    'Setup',
    [
      column('paradigm', 'paradigm', 'text'),
      column('dtype', 'dtype', 'text'),
      column('engine', 'engine', 'text'),
      column('target', 'target', 'text'),
      column('threads', 'threads'),
      column('params', 'params'),
    ],
    true,
  ),
  group('Throughput (tok/s)', [column('peak_tps', 'peak'), column('decode_tps', 'decode')]),
  group('Prefill (ms)', [column('prefill_mean_ms', 'mean'), column('prefill_p99_ms', 'p99')]),
  group('Decode step (ms)', [column('decode_mean_ms', 'mean'), column('decode_p99_ms', 'p99')]),
  group('Generation (ms)', [column('ttft_ms', 'TTFT'), column('tpot_ms', 'TPOT')]),
  group('Browser ÷ Node (speed)', [column('parity_prefill', 'prefill'), column('parity_decode', 'decode')]),
  group('Quality', [
    column('perplexity', 'PPL'),
    column('bits_per_byte', 'bits/byte'),
    column('accuracy', 'choice', 'percent'),
  ]),
  group('Vs reference (KLD in nats)', [
    column('kld_mean', 'KLD mean'),
    column('kld_p99', 'KLD p99'),
    column('top1_agreement', 'top-1', 'percent'),
    column('ppl_ratio', 'PPL ratio'),
  ]),
  group('Work (GFLOPs)', [column('flops_total_g', 'forward')]),
]);

const numeric = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/**
 * A comparison value as a reader wants it: a number by {@link dantinox!formatSignificant} (`8.06`, `15,881`,
 * `6.123e-4`), a fraction as a percentage with 3 significant digits (`88.3%`); text as is.
 */
export function formatComparisonValue(value: unknown, format: ComparisonValueFormat): string {
  if (isEmptyCell(value)) return '';
  const n = numeric(value);
  if (format === 'text' || n === undefined) return String(value);
  if (format === 'percent') return `${formatSignificant(n * 100, 3)}%`;
  return formatSignificant(n);
}

/**
 * Whether the comparison table of `records` would show a metric (a column outside the setup group): a load sweep's
 * rows, whose metrics differ from point to point and so merge to nothing per model, would leave only setup.
 */
export function comparisonHasMetrics(records: readonly ModelRecord[]): boolean {
  const shown = withTargetParity(records);
  return COMPARISON_GROUPS.some(
    (g) => !g.setup && g.columns.some((c) => shown.some((r) => !isEmptyCell(r.values[c.key]))),
  );
}

/** The better direction of a summary column, `undefined` for a setup column. */
function directionOf(group: ComparisonGroup, key: string): Direction | undefined {
  if (group.setup) return undefined;
  return isLowerBetter(key) ? 'min' : 'max';
}

/**
 * The comparison table as HTML: a line naming the setup values every row shares, then the table (two header
 * rows: group with unit, then column with ↑/↓), the best value of each varying metric in `td.best`. Each header's
 * `title` gives the column key and its full name, each value's the unrounded number.
 */
export function comparisonTableHtml(input: readonly ModelRecord[]): string {
  const records = withTargetParity(input);
  const has = (key: string): boolean => records.some((r) => !isEmptyCell(r.values[key]));
  const shared: string[] = [];
  const groups = COMPARISON_GROUPS.map((g) => ({
    group: g,
    columns: g.columns.filter((c) => {
      if (!has(c.key)) return false;
      if (!g.setup || records.length < 2) return true;
      const values = new Set(records.map((r) => String(r.values[c.key] ?? '')));
      if (values.size > 1) return true;
      shared.push(
        `${c.label} <strong>${escapeHtml(formatComparisonValue(records[0]!.values[c.key], c.format))}</strong>`,
      );
      return false;
    }),
  })).filter((g) => g.columns.length > 0);
  const best = new Map<string, number>();
  if (records.length > 1) {
    for (const { group: g, columns } of groups) {
      for (const c of columns) {
        const direction = directionOf(g, c.key);
        const values = records
          .map((r) => numeric(r.values[c.key]))
          .filter((v): v is number => v !== undefined);
        if (direction === undefined || values.length < 2 || new Set(values).size < 2) continue;
        best.set(c.key, direction === 'max' ? Math.max(...values) : Math.min(...values));
      }
    }
  }
  const rowLabel = records.some((r) => r.values['variant'] !== undefined) ? 'Variant' : 'Model';
  const top = groups
    .map(
      ({ group: g, columns }) => `<th colspan="${columns.length}" class="group">${escapeHtml(g.title)}</th>`,
    )
    .join('');
  const sub = groups
    .flatMap(({ group: g, columns }) =>
      columns.map((c, i) => {
        const direction = directionOf(g, c.key);
        const arrow = direction === undefined ? '' : direction === 'min' ? ' ↓' : ' ↑';
        return `<th${i === 0 ? ' class="first"' : ''} title="${escapeHtml(`${c.key}: ${metricTitle(c.key)}`)}">${escapeHtml(c.label)}${arrow}</th>`;
      }),
    )
    .join('');
  const body = records
    .map((r) => {
      const cells = groups.flatMap(({ group: g, columns }) =>
        columns.map((c, i) => {
          const raw = r.values[c.key];
          const isBest = best.has(c.key) && numeric(raw) === best.get(c.key);
          const classes = [i === 0 ? 'first' : '', isBest ? 'best' : '', g.setup ? 'text' : ''].filter(
            (s) => s !== '',
          );
          const title = isEmptyCell(raw) ? '' : `${String(raw)}${isBest ? ' (best)' : ''}`;
          return `<td${classes.length > 0 ? ` class="${classes.join(' ')}"` : ''}${title === '' ? '' : ` title="${escapeHtml(title)}"`}>${escapeHtml(formatComparisonValue(raw, c.format))}</td>`;
        }),
      );
      return `<tr><th scope="row">${escapeHtml(r.series)}</th>${cells.join('')}</tr>`;
    })
    .join('');
  const sharedLine =
    shared.length > 0
      ? `<p class="note shared">Same for every ${rowLabel.toLowerCase()}: ${shared.join(' · ')}.</p>`
      : '';
  return `${sharedLine}<div class="scroll"><table class="summary"><thead><tr><th rowspan="2" scope="col">${rowLabel}</th>${top}</tr><tr>${sub}</tr></thead><tbody>${body}</tbody></table></div>`;
}
