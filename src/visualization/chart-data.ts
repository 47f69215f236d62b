/**
 * Plain tabular data for charts: row objects, an arquero table or a CSV / JSON / JSONL file. Charts never see
 * the benchmark suite; they see rows whose keys are the report's column names (`task`, `model`, `tps_seq64`, …).
 *
 * @packageDocumentation
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fromCSV } from 'arquero';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { decodeText } from '../text-file.js';

/** One data row: column name → cell value. Empty cells are `null`, `undefined` or `''`. */
export type ChartRow = Readonly<Record<string, unknown>>;

/** The minimal table interface charts read: arquero's `ColumnTable` satisfies it. */
export interface RowTable {
  /** Row objects, one per table row. */
  objects(): object[];
}

/** Data a chart can be built from synchronously: row objects or an arquero table. */
export type ChartData = readonly ChartRow[] | RowTable;

/** Data the {@link Visualizer} accepts: {@link ChartData} or a path to a `.csv`, `.json` or `.jsonl` file. */
export type ChartInput = ChartData | string;

/** A column name, or a pattern that matches a family of columns (e.g. `/^tps_seq\d+$/`). */
export type ColumnPattern = string | RegExp;

const isRowTable = (data: ChartData): data is RowTable =>
  typeof (data as Partial<RowTable>).objects === 'function' && !Array.isArray(data);

/**
 * Row objects of `data` (an array is returned as is; an arquero table is materialised).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when `data` is neither an array of objects nor a table.
 */
export function toRows(data: ChartData): readonly ChartRow[] {
  if (Array.isArray(data)) {
    for (const [i, row] of data.entries()) {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) {
        throw new DantinoxError('INVALID_INPUT', messages.badChartRow(i, row));
      }
    }
    return data;
  }
  if (isRowTable(data as ChartData)) return (data as RowTable).objects() as ChartRow[];
  throw new DantinoxError('INVALID_INPUT', messages.badChartData(data));
}

/**
 * Reads chart rows from a file: `.csv` (header row; cells stay text, empty cells are empty; charts parse numbers),
 * `.json` (an array of row objects, or `{ rows: [...] }`) or `.jsonl` (one row object per line).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the file cannot be read; `INVALID_INPUT` when it is empty, binary or not
 * UTF-8/UTF-16 text, cannot be parsed or has an unsupported extension.
 */
export async function readChartData(path: string): Promise<readonly ChartRow[]> {
  const ext = extname(path).toLowerCase();
  if (!['.csv', '.json', '.jsonl', '.ndjson'].includes(ext)) {
    throw new DantinoxError('INVALID_INPUT', messages.unsupportedDataFile(path));
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotRead(path, 'chart data', cause), { cause });
  }
  // Strict decoding: a binary file is refused, never parsed into rows of garbage.
  const text = decodeText(bytes, path, 'chart data');
  if (text.trim() === '') throw new DantinoxError('INVALID_INPUT', messages.emptyDataFile(path));
  try {
    // No auto-typing: a run named 2025-01-10 stays text (arquero would make it a Date); charts parse numbers.
    if (ext === '.csv') return fromCSV(text, { autoType: false }).objects() as ChartRow[];
    if (ext === '.json') {
      const parsed: unknown = JSON.parse(text);
      const rows = Array.isArray(parsed) ? parsed : (parsed as { rows?: unknown } | null)?.rows;
      if (!Array.isArray(rows)) throw new Error('expected an array of row objects or { "rows": [...] }');
      return fileRows(path, rows, (i) => `row ${i + 1}`);
    }
    const lines = text.split('\n');
    const rows: unknown[] = [];
    const lineOf: number[] = [];
    for (const [i, line] of lines.entries()) {
      if (line.trim() === '') continue;
      rows.push(JSON.parse(line));
      lineOf.push(i + 1);
    }
    return fileRows(path, rows, (i) => `line ${lineOf[i]}`);
  } catch (cause) {
    if (cause instanceof DantinoxError) throw cause;
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.malformedFile(path, ext.slice(1).toUpperCase(), cause),
      {
        cause,
      },
    );
  }
}

/** `rows` read from `path`, each checked to be an object; `where` names a row's place in the file for errors. */
function fileRows(path: string, rows: readonly unknown[], where: (index: number) => string): ChartRow[] {
  for (const [i, row] of rows.entries()) {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw new DantinoxError('INVALID_INPUT', messages.badChartFileRow(path, where(i), row));
    }
  }
  return rows as ChartRow[];
}

/** Rows of any {@link ChartInput}: reads a file path, materialises a table, passes arrays through. */
export async function loadChartInput(input: ChartInput): Promise<readonly ChartRow[]> {
  return typeof input === 'string' ? readChartData(input) : toRows(input);
}

/** True when a cell holds no value (`null`, `undefined`, `''`, or a non-finite number). */
export function isEmptyCell(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    (typeof value === 'string' && value.trim() === '') ||
    (typeof value === 'number' && !Number.isFinite(value))
  );
}

/** The cell as a finite number (numeric strings are parsed), or `undefined` when empty or not numeric. */
export function numericCell(row: ChartRow, column: string): number | undefined {
  const v = row[column];
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** The cell as a trimmed string, or `undefined` when empty. */
export function textCell(row: ChartRow, column: string): string | undefined {
  const v = row[column];
  if (isEmptyCell(v)) return undefined;
  if (v instanceof Date) {
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  return String(v).trim();
}

/** Every column name that appears in at least one row, in first-seen order. */
export function columnNames(rows: readonly ChartRow[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

/** True when `column` matches `pattern` (exact name or regular expression). */
export function matchesColumn(pattern: ColumnPattern, column: string): boolean {
  return typeof pattern === 'string'
    ? pattern === column
    : new RegExp(pattern.source, pattern.flags).test(column);
}

/** Columns of `rows` matching `pattern` that hold at least one non-empty value. */
export function columnsWithValues(rows: readonly ChartRow[], pattern: ColumnPattern): string[] {
  return columnNames(rows).filter((c) => matchesColumn(pattern, c) && rows.some((r) => !isEmptyCell(r[c])));
}

/** Rows whose `status` column (if any) does not mark a failure (`failed`, `error`, `skipped`, `aborted`). */
export function successfulRows(rows: readonly ChartRow[]): readonly ChartRow[] {
  const bad = new Set(['failed', 'error', 'skipped', 'aborted']);
  return rows.filter((r) => !bad.has((textCell(r, 'status') ?? '').toLowerCase()));
}
