/**
 * Known answers for the result-file schemas: a valid record of each shape, the revival steps (null → NaN, class
 * instances rebuilt, `null` optional fields absent, unknown fields kept), and each refused shape with the one line
 * `reportProblem` words for it.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  benchmarkResultSchema,
  cellRecordSchema,
  flopsBreakdownSchema,
  jsonlLineHeadSchema,
  jsonlLineSchema,
  metricDescriptorSchema,
  profilingResultSchema,
  reportProblem,
  suiteReportDataSchema,
} from '../../src/benchmarking/report-schema.js';
import { FlopsBreakdown, ProfilingResult } from '../../src/profiling/index.js';

/** The JSON form of a value, as a results file holds it (NaN and ±Infinity written as null). */
const asJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)));

const FLOPS = new FlopsBreakdown({
  attentionProjections: 4e6,
  attentionScores: 1e6,
  ffn: 8e6,
  router: 0,
  lmHead: 2e6,
  seqLen: 16,
  batchSize: 2,
  pastLength: 0,
  formula: 'exact',
  moe: 'active',
  pass: 'forward',
});

const PROFILING = new ProfilingResult({
  nSamples: 3,
  totalTokens: 48,
  totalMs: 6,
  meanMs: 2,
  p50Ms: 2,
  p90Ms: 2.8,
  p95Ms: 2.9,
  p99Ms: 2.98,
  stdMs: 1,
  minMs: 1,
  maxMs: 3,
  madMs: 1,
  p50CiMs: [Number.NaN, Number.NaN],
  p99CiMs: [Number.NaN, Number.NaN],
  throughputTps: 8000,
  firstMs: 5,
  nRecorded: 3,
  flops: FLOPS,
});

const CELL = {
  task: 'throughput',
  cell: 'seq=16,batch=2',
  phase: 'prefill',
  batch: 2,
  seqLen: 16,
  status: 'completed',
  metrics: { tps: 8000, gflops_per_s: Number.NaN },
  profiling: PROFILING,
  samplesMs: [1, 2, 3],
  flops: FLOPS,
} as const;

const RESULT = {
  task: 'throughput',
  metrics: { peak_tps: 8000, decode_tps: Number.NaN },
  profiling: PROFILING,
  flops: FLOPS,
  meta: { profiling_cell: 'seq=16,batch=2', note: null, warm: true },
  status: 'completed',
  cells: [CELL],
  durationMs: 12.5,
} as const;

const DESCRIPTOR = { key: 'peak_tps', unit: 'tok/s', description: 'Peak throughput.', higherIsBetter: true };

const REPORT = {
  format: 'dantinox-report',
  version: 1,
  runId: 'run-1',
  totalTimeS: 1.5,
  modelMeta: { model: 'tiny', params: 1000 },
  environment: { cpuModel: 'test CPU', threads: null },
  descriptors: [DESCRIPTOR],
  results: [RESULT, { task: 'boom', status: 'failed', error: 'it threw', metrics: {} }],
};

/** The problem `reportProblem` words for `value` refused by `schema`, from `root`. */
function refusal(schema: z.ZodType, value: unknown, root = 'the report'): string {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) throw new Error(`accepted: ${JSON.stringify(value)}`);
  return reportProblem(result.error, root);
}

/** Stands for "delete the field" in {@link reportWith}. */
const DELETE = Symbol('delete');

/** The JSON form of the report with the field at `path` set to `value` (or deleted). */
function reportWith(path: readonly (string | number)[], value: unknown): unknown {
  const json = asJson(REPORT);
  let node = json as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (value === DELETE) delete node[last];
  else node[last] = value;
  return json;
}

describe('valid records', () => {
  it('a FLOPs breakdown is rebuilt as a FlopsBreakdown with its sums recomputed', () => {
    const flops = flopsBreakdownSchema.parse({ ...(asJson(FLOPS) as object), total: 1 });
    expect(flops).toBeInstanceOf(FlopsBreakdown);
    expect(flops).toEqual(FLOPS);
    expect(flops.total).toBe(15e6);
  });

  it("a FLOPs breakdown keeps its logit positions; one written before them counted every position's", () => {
    const prefill = new FlopsBreakdown({ ...FLOPS, lmHead: 2e6 / 16, logitPositions: 1 });
    expect(flopsBreakdownSchema.parse(asJson(prefill))).toEqual(prefill);
    const { logitPositions, ...older } = asJson(FLOPS) as { logitPositions: number };
    expect(logitPositions).toBe(16);
    expect(flopsBreakdownSchema.parse(older).logitPositions).toBe(16);
  });

  it('profiling statistics are rebuilt as a ProfilingResult: null is NaN, the FLOPs attached', () => {
    const profiling = profilingResultSchema.parse(asJson(PROFILING));
    expect(profiling).toBeInstanceOf(ProfilingResult);
    expect(profiling.flops).toBeInstanceOf(FlopsBreakdown);
    expect(profiling.p50CiMs).toEqual([Number.NaN, Number.NaN]);
    expect(profiling).toEqual(PROFILING);
    expect(Object.isFrozen(profiling)).toBe(true);
  });

  it('a cell reads back to the cell written', () => {
    expect(cellRecordSchema.parse(asJson(CELL))).toEqual(CELL);
  });

  it('a result reads back to the result written, NaN metrics and class instances included', () => {
    const result = benchmarkResultSchema.parse(asJson(RESULT));
    expect(result).toEqual(RESULT);
    expect(result.metrics['decode_tps']).toBeNaN();
    expect(result.cells?.[0]?.profiling).toBeInstanceOf(ProfilingResult);
  });

  it('a descriptor reads back to the descriptor written', () => {
    expect(metricDescriptorSchema.parse(DESCRIPTOR)).toEqual(DESCRIPTOR);
  });

  it('a JSON report reads back to its data', () => {
    expect(suiteReportDataSchema.parse(asJson(REPORT))).toEqual({
      results: [RESULT, { task: 'boom', status: 'failed', error: 'it threw', metrics: {} }],
      modelMeta: REPORT.modelMeta,
      totalTimeS: 1.5,
      environment: REPORT.environment,
      runId: 'run-1',
      descriptors: [DESCRIPTOR],
    });
  });

  it('each JSONL line kind reads back; a line of another type has no schema (skipped)', () => {
    const run = {
      type: 'run',
      runId: 'r',
      tasks: ['throughput'],
      modelMeta: {},
      environment: {},
      descriptors: [],
    };
    expect(jsonlLineSchema('run')?.parse(run)).toEqual(run);
    const cell = { ...(asJson(CELL) as object), type: 'cell', elapsedS: 0.5 };
    expect(jsonlLineSchema('cell')?.parse(cell)).toEqual({ ...CELL, type: 'cell', elapsedS: 0.5 });
    const task = { type: 'task', result: asJson(RESULT) };
    expect(jsonlLineSchema('task')?.parse(task)).toEqual({ type: 'task', result: RESULT });
    expect(jsonlLineSchema('end')?.parse({ type: 'end', totalTimeS: null, aborted: false })).toEqual({
      type: 'end',
      totalTimeS: Number.NaN,
      aborted: false,
    });
    expect(jsonlLineSchema('note')).toBeUndefined();
    expect(jsonlLineHeadSchema.parse({ no: 'type' })).toEqual({ no: 'type' });
  });
});

describe('revival', () => {
  it('null (NaN in JSON) and missing statistics read as NaN; numbers written as strings as numbers', () => {
    const profiling = profilingResultSchema.parse({ nSamples: '3', meanMs: null, p50CiMs: [1, null] });
    expect(profiling.nSamples).toBe(3);
    expect(profiling.meanMs).toBeNaN();
    expect(profiling.p99Ms).toBeNaN();
    expect(profiling.p50CiMs).toEqual([1, Number.NaN]);
    expect(profiling.p99CiMs).toEqual([Number.NaN, Number.NaN]);
    expect(profiling.flops).toBeUndefined();
    const flops = flopsBreakdownSchema.parse({ ...(asJson(FLOPS) as object), ffn: null });
    expect(flops.ffn).toBeNaN();
    expect(flops.total).toBeNaN();
  });

  it('metrics: null values are NaN, anything but an object is no metrics', () => {
    const read = (metrics: unknown) => benchmarkResultSchema.parse({ task: 't', metrics }).metrics;
    expect(read({ a: null, b: 2, c: '3' })).toEqual({ a: Number.NaN, b: 2, c: 3 });
    expect(read('nope')).toEqual({});
    expect(read(undefined)).toEqual({});
  });

  it('null optional fields are absent; profiling and flops that are not objects are ignored', () => {
    const result = benchmarkResultSchema.parse({
      task: 't',
      metrics: {},
      status: null,
      error: null,
      meta: null,
      cells: null,
      durationMs: null,
      profiling: 'n/a',
      flops: [1],
    });
    expect(result).toStrictEqual({ task: 't', metrics: {} });
    const descriptor = metricDescriptorSchema.parse({
      key: 'k',
      unit: '1',
      description: 'd',
      higherIsBetter: null,
    });
    expect(descriptor).toStrictEqual({ key: 'k', unit: '1', description: 'd' });
  });

  it('durationMs is a number in ms; a cell drops the JSONL-only type and elapsedS', () => {
    expect(benchmarkResultSchema.parse({ task: 't', metrics: {}, durationMs: '12.5' }).durationMs).toBe(12.5);
    const cell = cellRecordSchema.parse({ ...(asJson(CELL) as object), type: 'cell', elapsedS: 3 });
    expect(cell).not.toHaveProperty('type');
    expect(cell).not.toHaveProperty('elapsedS');
  });

  it('unknown extra fields are kept as written (files of other versions load)', () => {
    const result = benchmarkResultSchema.parse({ task: 't', metrics: {}, added: { later: [1] } });
    expect(result).toEqual({ task: 't', metrics: {}, added: { later: [1] } });
    const profiling = profilingResultSchema.parse({ ...(asJson(PROFILING) as object), p999Ms: 4 });
    expect(profiling).toHaveProperty('p999Ms', 4);
    const report = suiteReportDataSchema.parse(reportWith(['runId'], DELETE));
    expect(report.runId).toBeUndefined();
  });

  it('a report without blocks reads with empty ones; a runId that is not a string is ignored', () => {
    expect(suiteReportDataSchema.parse({ format: 'dantinox-report', results: [], runId: 3 })).toStrictEqual({
      results: [],
      modelMeta: {},
      totalTimeS: 0,
      descriptors: [],
    });
  });
});

describe('refused shapes, with the place and the problem', () => {
  it.each<[string, unknown, string]>([
    ['no format', { results: [] }, 'no "format": "dantinox-report" with "results"'],
    [
      'results not a list',
      { format: 'dantinox-report', results: {} },
      'no "format": "dantinox-report" with "results"',
    ],
    ['an array', [], 'no "format": "dantinox-report" with "results"'],
    [
      'modelMeta an array',
      reportWith(['modelMeta'], []),
      'the report has "modelMeta" an array, not an object',
    ],
    [
      'a nested modelMeta value',
      reportWith(['modelMeta', 'model'], { name: 'tiny' }),
      'the report has "modelMeta.model" an object, not a string, a number, a boolean or null',
    ],
    [
      'environment a string',
      reportWith(['environment'], 'linux'),
      'the report has "environment" a string, not an object',
    ],
    [
      'descriptors a string',
      reportWith(['descriptors'], 'none'),
      'the report has "descriptors" a string, not an array',
    ],
    [
      'a descriptor not an object',
      reportWith(['descriptors'], [3]),
      'descriptor 1 of the report is a number, not an object',
    ],
    [
      'a descriptor without its unit',
      reportWith(['descriptors', 0, 'unit'], DELETE),
      'descriptor 1 of the report has no string "unit"',
    ],
    [
      'higherIsBetter a string',
      reportWith(['descriptors', 0, 'higherIsBetter'], 'yes'),
      'descriptor 1 of the report has "higherIsBetter" a string, not a boolean',
    ],
    ['a result not an object', reportWith(['results', 1], 3), 'result 2 is a number, not an object'],
    ['a result without a task name', reportWith(['results', 1, 'task'], 7), 'result 2 has no "task" name'],
    [
      'cells a string',
      reportWith(['results', 1, 'cells'], 'none'),
      'result 2 has "cells" a string, not an array',
    ],
    ['meta an array', reportWith(['results', 0, 'meta'], []), 'result 1 has "meta" an array, not an object'],
    [
      'an error that is not a string',
      reportWith(['results', 1, 'error'], 42),
      'result 2 has "error" a number, not a string',
    ],
    [
      'an unknown status',
      reportWith(['results', 1, 'status'], 'done'),
      'result 2 has "status" "done", not "completed", "failed" or "skipped"',
    ],
    [
      'a failed result without its error',
      reportWith(['results', 1, 'error'], DELETE),
      'result 2 is "failed" without an "error"',
    ],
    [
      'a completed result with an error',
      reportWith(['results', 0, 'error'], 'oops'),
      'result 1 is completed but has an "error"',
    ],
    [
      'a FLOPs formula of another name',
      reportWith(['results', 0, 'flops', 'formula'], 'guess'),
      'result 1 has "flops.formula" "guess", not "exact" or "seed"',
    ],
    [
      'a FLOPs pass of profiling missing',
      reportWith(['results', 0, 'profiling', 'flops', 'pass'], DELETE),
      'result 1 has no "profiling.flops.pass"',
    ],
    [
      'a cell not an object',
      reportWith(['results', 0, 'cells', 0], null),
      'cell 1 of result 1 is null, not an object',
    ],
    [
      'samplesMs an object',
      reportWith(['results', 0, 'cells', 0, 'samplesMs'], {}),
      'cell 1 of result 1 has "samplesMs" an object, not an array',
    ],
    [
      'a cell without its phase',
      reportWith(['results', 0, 'cells', 0, 'phase'], DELETE),
      'cell 1 of result 1 has no "phase"',
    ],
    [
      'a batch that is not a number',
      reportWith(['results', 0, 'cells', 0, 'batch'], '2'),
      'cell 1 of result 1 has "batch" a string, not a number',
    ],
  ])('the report: %s', (_name, json, problem) => {
    expect(refusal(suiteReportDataSchema, json)).toBe(problem);
  });

  it.each<[string, unknown, string]>([
    ['a line that is an array', [], 'line 3 is an array, not an object'],
    [
      'a run line with tasks a string',
      { type: 'run', tasks: 'all' },
      'line 3 has "tasks" a string, not an array',
    ],
    [
      'a run line with a task that is not a name',
      { type: 'run', tasks: ['a', 2] },
      'line 3 has "tasks[1]" a number, not a string',
    ],
    [
      'a cell line without a task',
      { ...CELL, task: undefined, type: 'cell' },
      'line 3 is a cell without a "task" name',
    ],
    [
      'a task line whose result is a string',
      { type: 'task', result: 'x' },
      'the result of line 3 is a string, not an object',
    ],
    [
      'a task line whose result has a cell without a phase',
      { type: 'task', result: { task: 't', metrics: {}, cells: [{ ...CELL, phase: undefined }] } },
      'cell 1 of the result of line 3 has no "phase"',
    ],
    [
      'an end line whose aborted is not a flag',
      { type: 'end', totalTimeS: 1, aborted: 'no' },
      'line 3 has "aborted" a string, not a boolean',
    ],
  ])('a JSONL line: %s', (_name, line, problem) => {
    const head = jsonlLineHeadSchema.safeParse(line, { reportInput: true });
    if (!head.success) {
      expect(reportProblem(head.error, 'line 3')).toBe(problem);
      return;
    }
    const schema = jsonlLineSchema(head.data.type);
    if (schema === undefined) throw new Error('no schema');
    expect(refusal(schema, asJson(line), 'line 3')).toBe(problem);
  });
});
