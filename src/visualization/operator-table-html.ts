/**
 * The per-operator table of `bench --trace` in report.html: per run and phase, the operator groups by time share
 * (the largest {@link OPERATOR_TABLE_TOP}, the rest summed in one line) and the remainder row, from the rows of
 * task `operator`.
 *
 * @packageDocumentation
 */
import { type ChartRow, numericCell, textCell } from './chart-data.js';
import { OPERATOR_ROW_TASK } from './charts/operator-roofline-chart.js';
import { escapeHtml } from './escape-html.js';

/** Operator groups listed per phase before the rest are summed in one line. */
export const OPERATOR_TABLE_TOP = 12;

const HEAD = [
  'operator',
  'input shapes',
  'share',
  'calls',
  'total µs',
  'mean µs',
  'GFLOP/s',
  'GB/s',
  'FLOP/byte',
  '% of roofline',
];

/** 3 significant digits, or empty for a missing value. */
const num = (v: number | undefined): string =>
  v === undefined ? '' : Number(v.toPrecision(3)).toLocaleString('en-US');
const pct = (v: number | undefined): string => (v === undefined ? '' : `${(100 * v).toFixed(1)}%`);

function line(cells: readonly string[]): string {
  return `<tr>${cells.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td>${escapeHtml(c)}</td>`)).join('')}</tr>`;
}

function rowCells(r: ChartRow): string[] {
  return [
    textCell(r, 'op') ?? '',
    textCell(r, 'input_shapes') ?? '',
    pct(numericCell(r, 'share')),
    num(numericCell(r, 'calls')),
    num(numericCell(r, 'total_us')),
    num(numericCell(r, 'mean_us')),
    num(numericCell(r, 'gflops_per_s')),
    num(numericCell(r, 'gb_per_s')),
    num(numericCell(r, 'intensity')),
    pct(numericCell(r, 'fraction_of_attainable')),
  ];
}

/** One phase's table: the top groups by share, the rest in one line, then the remainder row(s). */
function phaseTable(rows: readonly ChartRow[]): string {
  const isRemainder = (r: ChartRow): boolean => textCell(r, 'category') === 'remainder';
  const groups = rows.filter((r) => !isRemainder(r));
  const byShare = [...groups].sort((a, b) => (numericCell(b, 'share') ?? 0) - (numericCell(a, 'share') ?? 0));
  const top = byShare.slice(0, OPERATOR_TABLE_TOP);
  const rest = byShare.slice(OPERATOR_TABLE_TOP);
  const sum = (key: string): number => rest.reduce((s, r) => s + (numericCell(r, key) ?? 0), 0);
  const restLine =
    rest.length === 0
      ? []
      : [
          line([
            `${rest.length} other groups`,
            '',
            pct(sum('share')),
            num(sum('calls')),
            num(sum('total_us')),
            '',
            '',
            '',
            '',
            '',
          ]),
        ];
  const body = [
    ...top.map((r) => line(rowCells(r))),
    ...restLine,
    ...rows.filter(isRemainder).map((r) => line(rowCells(r))),
  ];
  return `<table class="raw"><thead><tr>${HEAD.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/**
 * The "Per-operator table" section of report.html for the runs' `operator` rows (`chartRows`), or `''` when no run
 * has any: per run and phase, a table whose shares sum to 100% with the remainder row.
 */
export function operatorTableSection(
  runs: readonly { readonly name: string; readonly chartRows?: readonly ChartRow[] }[],
): string {
  const parts: string[] = [];
  for (const run of runs) {
    const rows = (run.chartRows ?? []).filter((r) => textCell(r, 'task') === OPERATOR_ROW_TASK);
    for (const phase of ['prefill', 'decode']) {
      const mine = rows.filter((r) => textCell(r, 'phase') === phase);
      if (mine.length === 0) continue;
      parts.push(
        `<details${parts.length === 0 ? ' open' : ''}><summary>${escapeHtml(run.name)} · ${phase} (${mine.length} rows)</summary><div class="scroll">${phaseTable(mine)}</div></details>`,
      );
    }
  }
  if (parts.length === 0) return '';
  return `<section><h2>Per-operator table</h2><p class="note">ONNX Runtime kernel time of the timed calls by operator type and input shapes (bench --trace), with the FLOPs and bytes dantinox's graph model assigns each node; shares are of the measured latency of those calls; the rest of the latency is in its own rows — one per named part (ONNX Runtime's session, the binding's output copy, dantinox's JavaScript, the profiler) and the unexplained rest when they were measured, else one row (framework, copies, JS); the full table is operators.csv.</p>${parts.join('')}</section>`;
}
