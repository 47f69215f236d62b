import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatCsv, parseCsv } from '../../../src/benchmarking/csv.js';
import {
  REQUEST_COLUMNS,
  type RequestLine,
  readRequestLines,
  requestCsvRow,
} from '../../../src/serving/client/request-rows.js';
import { failedRecord, okRecord } from './records.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-requests-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines: RequestLine[] = [
  {
    ...okRecord({ index: 0, ttstMs: Number.NaN, cachedTokens: 3 }),
    point: 'concurrency=1,rate=inf',
    originEpochMs: 1e12,
  },
  {
    ...failedRecord({ index: 1, kind: 'http', httpStatus: 503, message: 'busy, "try later"' }),
    point: 'concurrency=1,rate=inf',
    originEpochMs: 1e12,
  },
  {
    ...failedRecord({ index: 2, queueMs: 4, plannedMs: 1, sentMs: 7 }),
    point: 'concurrency=2,rate=5',
    originEpochMs: 2e12,
  },
];

describe("a load's requests on disk", () => {
  it('requests.jsonl round-trips every record, NaN included', () => {
    const path = join(dir, 'requests.jsonl');
    writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    expect(readRequestLines(path)).toEqual(lines);
    expect(readRequestLines(join(dir, 'absent.jsonl'))).toEqual([]);
  });

  it('a bad line is refused naming the file and the line', () => {
    const path = join(dir, 'bad.jsonl');
    writeFileSync(path, `${JSON.stringify(lines[0])}\n{"point":"x","status":"ok"}\n`);
    expect(() => readRequestLines(path)).toThrow(/bad\.jsonl, line 2: not a request record/);
    writeFileSync(path, 'nope\n');
    expect(() => readRequestLines(path)).toThrow(/line 1: not a request record \(not JSON\)/);
  });

  it('requests.csv: one row a request, its scalar figures, lateness = sent − planned − queue', () => {
    const text = formatCsv(
      REQUEST_COLUMNS,
      lines.map((l) => requestCsvRow(l.point, l)),
    );
    const { header, rows } = parseCsv(text);
    expect(header).toEqual([...REQUEST_COLUMNS]);
    const at = (row: number, column: string) => rows[row]?.[header.indexOf(column)];
    expect(rows).toHaveLength(3);
    expect([at(0, 'output_tokens'), at(0, 'token_source'), at(0, 'itl_mean_ms'), at(0, 'chunks')]).toEqual([
      '3',
      'server',
      '2',
      '3',
    ]);
    expect(at(0, 'ttst_ms')).toBeUndefined(); // NaN is an empty field
    expect([at(1, 'error_kind'), at(1, 'http_status'), at(1, 'error')]).toEqual([
      'http',
      '503',
      'busy, "try later"',
    ]);
    expect(at(1, 'output_tokens')).toBeUndefined();
    expect([at(2, 'queue_ms'), at(2, 'lateness_ms')]).toEqual(['4', '2']);
  });
});
