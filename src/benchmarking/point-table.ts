/**
 * The CSV table of a load: one row per sweep point (a cell of phase {@link SERVING_PHASE}) instead of one per task —
 * `run_id`, `task`, `cell` (the point's id, e.g. `concurrency=4,rate=inf`), `status`, the point's metrics (its
 * `concurrency` and `rate` first), its task's meta, `error`, then the model identity columns — and reading that
 * table back into a report (its run id included, so a history takes it) whose task rows hold the points as cells.
 *
 * @packageDocumentation
 */
import type { CsvValue } from './csv.js';
import { typedField } from './csv.js';
import type { SuiteReportData } from './report.js';
import { type BenchmarkResult, type CellRecord, type MetaValue, SERVING_PHASE } from './task.js';

/** Columns at the start of every row of a point table. */
const LEADING = ['run_id', 'task', 'cell', 'status'] as const;
/** The column after the metrics and meta; the model identity columns follow it. */
const ERROR = 'error';

/** Whether `results` are a load's: every task row has cells, and every cell is a sweep point. */
export function isPointTable(results: readonly BenchmarkResult[]): boolean {
  return (
    results.length > 0 &&
    results.every(
      (r) => (r.cells?.length ?? 0) > 0 && (r.cells ?? []).every((c) => c.phase === SERVING_PHASE),
    )
  );
}

const finiteOrNull = (v: number): number | null => (Number.isNaN(v) ? null : v);

/**
 * The middle of a point's row: its metrics, and its task's meta. A metric named like one of the row's own columns
 * (`reserved`: run_id, task, cell, status, error, the model's identity) is renamed `metric_<name>`, and a meta entry named
 * like either `meta_<name>`, so that no value replaces another.
 */
function middleEntries(
  result: BenchmarkResult,
  cell: CellRecord,
  reserved: ReadonlySet<string>,
): { readonly metrics: [string, CsvValue][]; readonly meta: [string, CsvValue][] } {
  const metrics: [string, CsvValue][] = Object.entries(cell.metrics).map(([k, v]) => [
    reserved.has(k) ? `metric_${k}` : k,
    finiteOrNull(v),
  ]);
  const taken = new Set([...reserved, ...metrics.map(([k]) => k)]);
  const meta = Object.entries(result.meta ?? {}).map(([k, v]): [string, CsvValue] => [
    taken.has(k) ? `meta_${k}` : k,
    v,
  ]);
  return { metrics, meta };
}

/**
 * The point table of a load's report: its columns (`run_id`, `task`, `cell`, `status`, after `columnOrder`'s the points'
 * metric columns then their meta columns, each in first-seen order, `error`, the model identity columns) and one
 * row per point, in run order. Missing and NaN values are `null`.
 */
export function pointTable(
  report: {
    readonly results: readonly BenchmarkResult[];
    readonly modelMeta: Readonly<Record<string, MetaValue>>;
    readonly runId: string | undefined;
  },
  columnOrder: readonly string[] = [],
): { readonly columns: string[]; readonly rows: Record<string, CsvValue>[] } {
  const { results, runId } = report;
  // A model identity column named like a leading one (a history's `run_id`) is the leading one.
  const modelMeta = Object.fromEntries(
    Object.entries(report.modelMeta).filter(([k]) => !(LEADING as readonly string[]).includes(k)),
  );
  const reserved = new Set<string>([...LEADING, ERROR, ...Object.keys(modelMeta)]);
  const middle = new Set(columnOrder.filter((c) => !reserved.has(c)));
  const metaColumns = new Set<string>();
  const rows = results.flatMap((r) =>
    (r.cells ?? []).map((c) => {
      const row: Record<string, CsvValue> = {
        run_id: runId ?? null,
        task: r.task,
        cell: c.cell,
        status: c.status,
      };
      const { metrics, meta } = middleEntries(r, c, reserved);
      for (const [k, v] of metrics) {
        middle.add(k);
        row[k] = v;
      }
      for (const [k, v] of meta) {
        metaColumns.add(k);
        row[k] = v;
      }
      row[ERROR] = c.error ?? null;
      return Object.assign(row, modelMeta);
    }),
  );
  for (const c of metaColumns) middle.add(c);
  return { columns: [...LEADING, ...middle, ERROR, ...Object.keys(modelMeta)], rows };
}

/** Whether a CSV header is a point table's (`run_id`, `task`, `cell`, `status` first). */
export function isPointTableHeader(header: readonly string[]): boolean {
  return LEADING.every((c, i) => header[i] === c);
}

/**
 * A point table read back: its run id, and one task row per `task` (in first-seen order) holding its points as cells of phase
 * {@link SERVING_PHASE} — numeric columns the cell's metrics, other values the task's meta — the row `completed`
 * when a point is (else `failed` with the first point's error, as a load's row), and the model identity from the
 * columns after `error`.
 */
export function readPointTable(
  header: readonly string[],
  rows: readonly (string | undefined)[][],
): SuiteReportData {
  const errorAt = header.indexOf(ERROR);
  const identityFrom = errorAt >= 0 ? errorAt + 1 : header.length;
  const middle = header.slice(LEADING.length, errorAt >= 0 ? errorAt : header.length);
  const at = (row: readonly (string | undefined)[], col: string): MetaValue | undefined =>
    typedField(row[header.indexOf(col)]);
  const modelMeta: Record<string, MetaValue> = {};
  for (const col of header.slice(identityFrom)) modelMeta[col] = at(rows[0] ?? [], col) ?? null;
  const tasks = new Map<string, { cells: CellRecord[]; meta: Record<string, MetaValue> }>();
  for (const row of rows) {
    const task = String(at(row, 'task') ?? '');
    const entry = tasks.get(task) ?? { cells: [], meta: {} };
    tasks.set(task, entry);
    const metrics: Record<string, number> = {};
    for (const col of middle) {
      const v = at(row, col);
      if (typeof v === 'number') metrics[col] = v;
      else if (v !== undefined) entry.meta[col] ??= v;
    }
    const status = String(at(row, 'status') ?? 'completed');
    const error = at(row, ERROR);
    entry.cells.push({
      task,
      cell: String(at(row, 'cell') ?? ''),
      phase: SERVING_PHASE,
      status: status === 'failed' || status === 'skipped' ? status : 'completed',
      ...(error === undefined ? {} : { error: String(error) }),
      metrics,
    });
  }
  const results = [...tasks].map(([task, { cells, meta }]): BenchmarkResult => {
    const base = { task, metrics: {}, ...(Object.keys(meta).length > 0 ? { meta } : {}), cells };
    return cells.some((c) => c.status === 'completed')
      ? { ...base, status: 'completed' }
      : { ...base, status: 'failed', error: cells[0]?.error ?? '' };
  });
  const runId = at(rows[0] ?? [], 'run_id');
  return {
    results,
    modelMeta,
    ...(runId === undefined ? {} : { runId: String(runId) }),
    columnOrder: middle,
  };
}
