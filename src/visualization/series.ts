/**
 * Which model (series) a row belongs to, and the collapse of a benchmark CSV's task rows into one record per
 * model. A suite CSV has one row per task (`throughput`, `latency`, `perplexity`), each filling only its own
 * columns, and several runs are several row groups told apart by `model` / `run` columns.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type ChartRow, columnNames, isEmptyCell, textCell } from './chart-data.js';

/** Columns that identify a series, in the order they are tried when none is chosen. */
export const SERIES_COLUMNS: readonly string[] = ['variant', 'model', 'run', 'run_id', 'type', 'name'];

/** Label given to rows when the data has no identity column at all. */
export const DEFAULT_SERIES_LABEL = 'all rows';

/** Returns the series label of each row. */
export type SeriesLabeler = (row: ChartRow) => string;

/**
 * A function that labels each row with its series.
 *
 * - With `column`, the label is that column's value.
 * - Otherwise a `variant` column (the variants of a benchmark matrix) names the series when present.
 * - Otherwise `model` is used; when one model appears under several `run` (or `run_id`) values, the label
 *   becomes `model (run)` so runs of the same model stay apart. Rows without a model fall back to `run`, `type`,
 *   `name`, then {@link DEFAULT_SERIES_LABEL}.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when `column` is given but absent from every row.
 */
export function seriesLabeler(rows: readonly ChartRow[], column?: string): SeriesLabeler {
  const columns = columnNames(rows);
  if (column !== undefined) {
    if (!columns.includes(column)) {
      throw new DantinoxError('INVALID_INPUT', messages.unknownSeriesColumn(column, columns));
    }
    return (row) => textCell(row, column) ?? `(no ${column})`;
  }
  const byModel = nameLabeler(rows, columns, 'model');
  if (!columns.includes('variant')) return byModel;
  const byVariant = nameLabeler(rows, columns, 'variant');
  return (row) => (textCell(row, 'variant') === undefined ? byModel(row) : byVariant(row));
}

/**
 * Labels by the `key` column (`model` or `variant`), qualified by run when one name appears in several runs
 * (see {@link seriesLabeler}).
 */
function nameLabeler(rows: readonly ChartRow[], columns: readonly string[], key: string): SeriesLabeler {
  const hasModel = columns.includes(key);
  const runColumn = columns.includes('run') ? 'run' : columns.includes('run_id') ? 'run_id' : undefined;
  const hasRun = runColumn !== undefined;
  let qualifyByRun = false;
  if (hasModel && hasRun) {
    const runsPerModel = new Map<string, Set<string>>();
    for (const row of rows) {
      const model = textCell(row, key);
      const run = textCell(row, runColumn!);
      if (model === undefined || run === undefined) continue;
      const runs = runsPerModel.get(model) ?? new Set<string>();
      runs.add(run);
      runsPerModel.set(model, runs);
    }
    qualifyByRun = [...runsPerModel.values()].some((runs) => runs.size > 1);
  }
  return (row) => {
    const model = textCell(row, key);
    if (model !== undefined) {
      const run = runColumn === undefined ? undefined : textCell(row, runColumn);
      return qualifyByRun && run !== undefined ? `${model} (${run})` : model;
    }
    for (const c of SERIES_COLUMNS) {
      const v = textCell(row, c);
      if (v !== undefined) return v;
    }
    return DEFAULT_SERIES_LABEL;
  };
}

/** Columns that describe a row rather than measure something; never merged as metrics. */
const ROW_META = new Set(['task', 'status', 'error']);

/** One model's merged record: its label, the merged cells, and which columns disagreed between its rows. */
export interface ModelRecord {
  /** The series label (see {@link seriesLabeler}). */
  readonly series: string;
  /** Merged cells: for each column, the single non-empty value the model's rows agree on. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Columns whose non-empty values differ between the model's rows (left out of `values`). */
  readonly conflicts: readonly string[];
  /** How many input rows were merged. */
  readonly rowCount: number;
  /** Distinct `task` values of the merged rows. */
  readonly tasks: readonly string[];
}

/** Options of {@link collapseByModel}. */
export interface CollapseOptions {
  /** Column that names the series. @default automatic, see {@link seriesLabeler} */
  readonly series?: string;
}

/**
 * Collapses rows into one record per series (model), in first-seen order. For every column, the record holds
 * the value the model's rows agree on: task rows that leave a cell empty contribute nothing. A column that
 * holds *different* non-empty values in two rows of the same model — e.g. `throughput_tps`, which the
 * throughput task fills for its last batch configuration and the latency task for prefill — is ambiguous: it is
 * left out and listed in `conflicts` instead of silently mixing rows that mean different things. `task`,
 * `status` and `error` are not merged.
 */
export function collapseByModel(rows: readonly ChartRow[], options: CollapseOptions = {}): ModelRecord[] {
  const label = seriesLabeler(rows, options.series);
  const groups = new Map<string, ChartRow[]>();
  for (const row of rows) {
    const key = label(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  const records: ModelRecord[] = [];
  for (const [series, group] of groups) {
    const values: Record<string, unknown> = {};
    const conflicts = new Set<string>();
    for (const row of group) {
      for (const [column, value] of Object.entries(row)) {
        if (ROW_META.has(column) || isEmptyCell(value) || conflicts.has(column)) continue;
        if (!(column in values)) values[column] = value;
        else if (!sameCell(values[column], value)) {
          conflicts.add(column);
          delete values[column];
        }
      }
    }
    const tasks = [
      ...new Set(group.map((r) => textCell(r, 'task')).filter((t): t is string => t !== undefined)),
    ];
    records.push({ series, values, conflicts: [...conflicts], rowCount: group.length, tasks });
  }
  return records;
}

const sameCell = (a: unknown, b: unknown): boolean =>
  a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b || String(a) === String(b);
