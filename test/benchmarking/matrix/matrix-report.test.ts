/**
 * `MatrixReport` on reports built in memory (known rows, columns and CSV), and the state of a variant's folder from
 * the files in it: completed, failed (one task is enough), unfinished (a stream only, a torn `results.json`, or a
 * row cut short — even when it is not the first), missing.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../../src/benchmarking/environment.js';
import {
  MatrixReport,
  readVariantRun,
  runState,
  variantDir,
  variantState,
} from '../../../src/benchmarking/matrix/matrix-report.js';
import { SuiteReport } from '../../../src/benchmarking/report.js';
import type { BenchmarkResult } from '../../../src/benchmarking/task.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'dantinox-matrix-report-'));

const ENV = { cpuModel: 'Test CPU', logicalCpus: 2 } as unknown as Environment;

/** Variant `a`: one throughput row, with an environment. */
const A = new SuiteReport({
  results: [{ task: 'throughput', metrics: { tps: 10 } }],
  modelMeta: { model: 'tiny' },
  environment: ENV,
  runId: 'a',
});
/** Variant `b`: a latency row (a column `a` lacks) before its throughput row, no environment. */
const B = new SuiteReport({
  results: [
    { task: 'latency', metrics: { p50_ms: 2 } },
    { task: 'throughput', status: 'failed', error: 'out of memory', metrics: { tps: 5 } },
  ],
  modelMeta: { model: 'tiny' },
  runId: 'b',
});

const matrix = (): MatrixReport =>
  new MatrixReport([
    { id: 'a', axes: { dtype: 'fp32' }, report: A },
    { id: 'b', axes: { dtype: 'q8' }, report: B },
  ]);

/** The rows of `results` as a run folder's `results.json` (`folder` created). */
function saveRun(folder: string, results: BenchmarkResult[]): void {
  new SuiteReport({ results, runId: 'r' }).save(join(folder, 'results.json'));
}

/** A `results.jsonl` stream of a run that started and measured nothing yet. */
function saveStream(folder: string): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'results.jsonl'),
    `${JSON.stringify({ type: 'run', runId: 'r', tasks: ['throughput'] })}\n`,
  );
}

const done = (task: string): BenchmarkResult => ({ task, status: 'completed', metrics: { x: 1 } });
const failed = (task: string): BenchmarkResult => ({ task, status: 'failed', error: 'boom', metrics: {} });

describe('MatrixReport', () => {
  it('gives one row per (variant, task), the variant column first, and the union of the columns in first-seen order', () => {
    const m = matrix();
    expect(m.columns()).toEqual([
      'variant',
      'task',
      'status',
      'tps',
      'error',
      'duration_ms',
      'model',
      'p50_ms',
    ]);
    const rows = m.toRows();
    expect(rows.map((r) => [r['variant'], r['task']])).toEqual([
      ['a', 'throughput'],
      ['b', 'latency'],
      ['b', 'throughput'],
    ]);
    expect(rows.map((r) => Object.keys(r)[0])).toEqual(['variant', 'variant', 'variant']);
    expect(m.toCsv()).toBe(
      [
        'variant,task,status,tps,error,duration_ms,model,p50_ms',
        'a,throughput,completed,10,,,tiny,',
        'b,latency,completed,,,,tiny,2',
        'b,throughput,failed,5,out of memory,,tiny,',
        '',
      ].join('\n'),
    );
  });

  it('keeps the variant id in the variant column when a task reports a metric named variant', () => {
    const report = new SuiteReport({ results: [{ task: 'custom', metrics: { variant: 7 } }], runId: 'c' });
    const m = new MatrixReport([{ id: 'c', axes: {}, report }]);
    expect(m.toRows()).toEqual([expect.objectContaining({ variant: 'c', task: 'custom' })]);
    expect(Object.keys(m.toRows()[0] ?? {})[0]).toBe('variant');
    expect(m.toCsv().split('\n')[1]?.startsWith('c,custom,')).toBe(true);
  });

  it('gives one run per variant, with a copy of its environment only when it has one', () => {
    const runs = matrix().toRuns();
    expect(runs.map((r) => [r.name, r.rows.length])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(runs[0]?.environment).toEqual(ENV);
    expect(runs[0]?.environment).not.toBe(ENV);
    expect(runs[1]).not.toHaveProperty('environment');
    expect(runs[1]?.rows[1]).toMatchObject({ variant: 'b', task: 'throughput', error: 'out of memory' });
  });

  it('saves the CSV and the JSON (each variant with its axes and full report), creating the folder', () => {
    const m = matrix();
    const dir = join(tmp(), 'nested', 'study');
    expect(m.save(dir)).toEqual(['results.csv', 'results.json']);
    expect(readFileSync(join(dir, 'results.csv'), 'utf8')).toBe(m.toCsv());
    const text = readFileSync(join(dir, 'results.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify(m.toJSON(), null, 2)}\n`);
    expect(JSON.parse(text)).toEqual({
      format: 'dantinox-matrix-report',
      version: 1,
      variants: [
        { id: 'a', axes: { dtype: 'fp32' }, report: JSON.parse(JSON.stringify(A.toJSON())) },
        { id: 'b', axes: { dtype: 'q8' }, report: JSON.parse(JSON.stringify(B.toJSON())) },
      ],
    });
  });

  it('reports a folder it cannot write as IO, naming the file and what is in the way', () => {
    const root = tmp();
    writeFileSync(join(root, 'file'), 'in the way');
    const dir = join(root, 'file', 'study');
    let error: unknown;
    try {
      matrix().save(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DantinoxError);
    expect((error as DantinoxError).code).toBe('IO');
    expect((error as Error).message).toBe(
      `Cannot write the combined matrix results to "${join(dir, 'results.csv')}": a file is in the way where a folder is needed; move that file or pass another --out (outDir in TypeScript).`,
    );
  });

  it('reads the variants that have results from a matrix folder, leaving the others out, with a note for a torn file', () => {
    const dir = tmp();
    saveRun(join(dir, 'a'), [done('throughput')]);
    saveRun(join(dir, 'c'), [done('throughput')]);
    writeFileSync(join(dir, 'c', 'results.json'), '');
    saveStream(join(dir, 'c'));
    const notes: string[] = [];
    const variants = [
      { id: 'a', axes: { dtype: 'fp32' } },
      { id: 'b', axes: { dtype: 'fp16' } },
      { id: 'c', axes: { dtype: 'q8' } },
    ];
    const m = MatrixReport.fromDirectory(dir, variants, (line) => notes.push(line));
    expect(m.variants.map((v) => [v.id, v.axes])).toEqual([
      ['a', { dtype: 'fp32' }],
      ['c', { dtype: 'q8' }],
    ]);
    expect(m.variants[0]?.report.results.map((r) => r.task)).toEqual(['throughput']);
    expect(notes).toEqual([
      messages.resultsJsonUnreadable(join(dir, 'c', 'results.json'), join(dir, 'c', 'results.jsonl')),
    ]);
    // Without a note callback, the same folder reads the same.
    expect(MatrixReport.fromDirectory(dir, variants).variants.map((v) => v.id)).toEqual(['a', 'c']);
  });
});

describe('readVariantRun', () => {
  it('reads results.json, else the stream; a folder with only a CSV, or none, has no run', () => {
    const dir = tmp();
    saveRun(join(dir, 'json'), [done('latency')]);
    saveStream(join(dir, 'stream'));
    A.save(join(dir, 'csv', 'results.csv'));
    const json = readVariantRun(dir, 'json');
    expect(json?.report.results.map((r) => r.task)).toEqual(['latency']);
    expect(json?.note).toBeUndefined();
    const stream = readVariantRun(dir, 'stream');
    expect(stream?.path).toBe(join(dir, 'stream', 'results.jsonl'));
    expect(stream?.note).toBeUndefined();
    expect(readVariantRun(dir, 'csv')).toBeUndefined();
    expect(readVariantRun(dir, 'absent')).toBeUndefined();
    expect(variantDir(dir, 'json')).toBe(join(dir, 'json'));
  });
});

describe('runState', () => {
  it('tells completed, failed, unfinished and missing folders apart', () => {
    const dir = tmp();
    const state = (id: string, results?: BenchmarkResult[]): string => {
      if (results !== undefined) saveRun(join(dir, id), results);
      return variantState(dir, id);
    };
    expect(state('completed', [done('throughput'), done('latency')])).toBe('completed');
    // One failed task of two is enough; a skipped one is not completed either.
    expect(state('failed', [done('throughput'), failed('latency')])).toBe('failed');
    const skipped: BenchmarkResult = { task: 'latency', status: 'skipped', error: 'not run', metrics: {} };
    expect(state('skipped', [skipped])).toBe('failed');
    // A row rebuilt from part of its cells, even after a complete one, is unfinished.
    const cut: BenchmarkResult = {
      task: 'latency',
      metrics: { x: 1 },
      meta: { interrupted: 'stopped after 1 of 2 cells' },
    };
    expect(state('interrupted', [done('throughput'), cut])).toBe('unfinished');
    saveStream(join(dir, 'stream'));
    expect(state('stream')).toBe('unfinished');
    mkdirSync(join(dir, 'torn'));
    writeFileSync(join(dir, 'torn', 'results.json'), '{"format":');
    expect(state('torn')).toBe('unfinished');
    mkdirSync(join(dir, 'empty'));
    expect(state('empty')).toBe('missing');
    expect(state('absent')).toBe('missing');
    expect(runState(join(dir, 'completed'))).toBe('completed');
  });
});
