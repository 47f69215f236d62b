/**
 * RFC 4180 CSV writing and parsing for reports: comma-separated, CRLF-free (`\n` line ends), fields quoted when
 * they contain a comma, a quote, a line break or leading/trailing spaces, quotes doubled. Missing values and NaN
 * are empty fields; numbers use JavaScript's shortest round-trip form, so a parsed file gives back the same
 * doubles.
 *
 * @packageDocumentation
 */
import type { MetaValue } from './task.js';

/** One CSV cell value before formatting; `null`/`undefined`/NaN become an empty field. */
export type CsvValue = MetaValue | undefined;

function formatField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isNaN(value) ? '' : String(value);
  const text = String(value);
  return /[",\n\r]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Formats `rows` as CSV with the given column order (a header line, then one line per row, `\n` ends). */
export function formatCsv(
  columns: readonly string[],
  rows: readonly Readonly<Record<string, CsvValue>>[],
): string {
  const lines = [columns.map((c) => formatField(c)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => formatField(row[c])).join(','));
  return `${lines.join('\n')}\n`;
}

/**
 * Parses CSV text into a header and rows of raw strings (`undefined` for empty, unquoted fields, so an empty
 * quoted string `""` stays distinguishable).
 *
 * @throws Error when a quoted field is not closed.
 */
export function parseCsv(text: string): {
  /** The first record: the column names. */
  header: string[];
  /** The other records, one array of fields per row; an empty field is `undefined`. */
  rows: (string | undefined)[][];
} {
  const records: (string | undefined)[][] = [];
  let record: (string | undefined)[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  let i = 0;
  const endField = (): void => {
    record.push(field === '' && !wasQuoted ? undefined : field);
    field = '';
    wasQuoted = false;
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 1;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      endField();
      records.push(record);
      record = [];
    } else field += ch;
    i += 1;
  }
  if (quoted) throw new Error('a quoted field is not closed');
  if (field !== '' || wasQuoted || record.length > 0) {
    endField();
    records.push(record);
  }
  const nonEmpty = records.filter((r) => !(r.length === 1 && r[0] === undefined));
  const [header = [], ...rows] = nonEmpty;
  return { header: header.map((h) => h ?? ''), rows };
}

/** Converts a raw CSV field to a typed value: empty → `undefined`, numbers, `true`/`false`, else the string. */
export function typedField(raw: string | undefined): MetaValue | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw) || raw === 'Infinity' || raw === '-Infinity') {
    return Number(raw);
  }
  return raw;
}
