/**
 * A load's results.csv: one row per sweep point (its metrics, its task's meta, its model identity), read back into a
 * report whose task row holds the points as cells, so that a CSV round trip gives the same table; reports whose
 * cells are not sweep points keep one row per task.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/benchmarking/csv.js';
import { isPointTable } from '../../src/benchmarking/point-table.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { type BenchmarkResult, type CellRecord, SERVING_PHASE } from '../../src/benchmarking/task.js';

const point = (
  cell: string,
  metrics: Record<string, number>,
  extra: Partial<CellRecord> = {},
): CellRecord => ({
  task: 'serving',
  cell,
  phase: SERVING_PHASE,
  status: 'completed',
  metrics,
  ...extra,
});

const LOAD: BenchmarkResult = {
  task: 'serving',
  status: 'completed',
  metrics: { peak_output_tps: 250 },
  meta: { base_url: 'http://127.0.0.1:8080/v1', stream: true, slo: 'ttft=500ms' },
  cells: [
    point('concurrency=1,rate=inf', { concurrency: 1, rate: 0, ttft_p50_ms: 12.5, output_tps: 100 }),
    point('concurrency=4,rate=inf', { concurrency: 4, rate: 0, ttft_p50_ms: Number.NaN, output_tps: 250 }),
    point(
      'concurrency=8,rate=inf',
      { concurrency: 8, rate: 0, requests: 3, succeeded: 0 },
      { status: 'failed', error: 'no request succeeded (3 sent)' },
    ),
  ],
};

const report = (results: readonly BenchmarkResult[]): SuiteReport =>
  new SuiteReport({
    results,
    runId: 'load-1',
    modelMeta: { model: 'mock', engine: 'openai-http (completions)' },
  });

describe("a load's CSV", () => {
  it('has one row per sweep point: run id, task, cell, status, its metrics, the meta, error, model identity', () => {
    const { header, rows } = parseCsv(report([LOAD]).toCsv());
    expect(header).toEqual([
      'run_id',
      'task',
      'cell',
      'status',
      'concurrency',
      'rate',
      'ttft_p50_ms',
      'output_tps',
      'requests',
      'succeeded',
      'base_url',
      'stream',
      'slo',
      'error',
      'model',
      'engine',
    ]);
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r[2])).toEqual(LOAD.cells?.map((c) => c.cell));
    // A NaN metric and a metric the point lacks are empty fields; the failed point keeps its error.
    expect(rows[1]).toEqual([
      'load-1',
      'serving',
      'concurrency=4,rate=inf',
      'completed',
      '4',
      '0',
      undefined,
      '250',
      undefined,
      undefined,
      'http://127.0.0.1:8080/v1',
      'true',
      'ttft=500ms',
      undefined,
      'mock',
      'openai-http (completions)',
    ]);
    expect(rows[2]?.slice(0, 4)).toEqual(['load-1', 'serving', 'concurrency=8,rate=inf', 'failed']);
    expect(rows[2]?.[13]).toBe('no request succeeded (3 sent)');
  });

  it('reads back as the points of one task row and writes the same table again', () => {
    const original = report([LOAD]);
    const read = SuiteReport.load(
      original.save(join(mkdtempSync(join(tmpdir(), 'dantinox-points-')), 'r.csv')),
    );
    expect(read.toCsv()).toBe(original.toCsv());
    expect(read.modelMeta).toEqual({ model: 'mock', engine: 'openai-http (completions)' });
    expect(read.runId).toBe('load-1');
    const [row] = read.results;
    expect(row?.task).toBe('serving');
    expect(row?.status).toBe('completed');
    expect(row?.meta).toEqual({ base_url: 'http://127.0.0.1:8080/v1', stream: true, slo: 'ttft=500ms' });
    expect(row?.cells?.map((c) => [c.cell, c.phase, c.status])).toEqual([
      ['concurrency=1,rate=inf', SERVING_PHASE, 'completed'],
      ['concurrency=4,rate=inf', SERVING_PHASE, 'completed'],
      ['concurrency=8,rate=inf', SERVING_PHASE, 'failed'],
    ]);
    expect(row?.cells?.[0]?.metrics).toEqual(LOAD.cells?.[0]?.metrics);
    expect(row?.cells?.[1]?.metrics).toEqual({ concurrency: 4, rate: 0, output_tps: 250 });
    expect(row?.cells?.[2]?.error).toBe('no request succeeded (3 sent)');
  });

  it('a load whose every point failed reads back as a failed row with the first point’s error', () => {
    const failed: BenchmarkResult = { ...LOAD, cells: LOAD.cells?.slice(2) ?? [] };
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-points-'));
    const read = SuiteReport.load(report([failed]).save(join(dir, 'r.csv')));
    expect(read.results[0]).toMatchObject({ status: 'failed', error: 'no request succeeded (3 sent)' });
  });

  it('renames a metric named like a column of the row; keeps one row per task for other reports', () => {
    const odd = point('p', { cell: 1, status: 2, model: 3 });
    const { header } = parseCsv(report([{ ...LOAD, cells: [odd] }]).toCsv());
    expect(header.slice(0, 7)).toEqual([
      'run_id',
      'task',
      'cell',
      'status',
      'metric_cell',
      'metric_status',
      'metric_model',
    ]);
    const bench: BenchmarkResult = {
      task: 'throughput',
      metrics: { tps: 1 },
      cells: [{ ...odd, task: 'throughput', phase: 'prefill' }],
    };
    expect(isPointTable([bench])).toBe(false);
    expect(isPointTable([LOAD, { task: 'serving', metrics: {} }])).toBe(false);
    expect(isPointTable([])).toBe(false);
    expect(parseCsv(report([bench]).toCsv()).header.slice(0, 2)).toEqual(['task', 'status']);
  });
});
