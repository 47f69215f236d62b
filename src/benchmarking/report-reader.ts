/**
 * Reading reports back: the CSV layout written by {@link SuiteReport.save} (and the seed's CSVs), the full JSON
 * form, and a run's JSONL stream (including one cut short by a crash).
 *
 * @packageDocumentation
 */
import { extname } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import {
  FlopsBreakdown,
  type FlopsBreakdownInit,
  ProfilingResult,
  type ProfilingResultInit,
} from '../profiling/index.js';
import { readTextFile } from '../text-file.js';
import { BenchmarkConfig } from './config.js';
import { parseCsv, typedField } from './csv.js';
import type { JsonlRecord, JsonlRunRecord } from './jsonl-sink.js';
import { partialResult } from './partial-result.js';
import type { SuiteReportData } from './report.js';
import type { BenchmarkResult, BenchmarkTask, CellRecord, MetaValue, MetricDescriptor } from './task.js';
import { LatencyTask } from './tasks/latency-task.js';
import { PerplexityTask } from './tasks/perplexity-task.js';
import { ThroughputTask } from './tasks/throughput-task.js';

/** The built-in tasks by their default names: they rebuild the row of a task a crash cut short. */
const BUILTIN_TASKS: Readonly<Record<string, BenchmarkTask>> = {
  throughput: new ThroughputTask(),
  latency: new LatencyTask(),
  perplexity: new PerplexityTask(),
};

/** What a JSON value is, for a message: `null`, `an array`, `a number`… */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** `value` as an object, or a `DantinoxError` saying where in `path` something else was found. */
function objectAt(value: unknown, path: string, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DantinoxError(
      'IO',
      messages.malformedReport(path, `${where} is ${kindOf(value)}, not an object`),
    );
  }
  return value as Record<string, unknown>;
}

/** Checks that `value[key]`, when present (not null/undefined), is of `kind`. */
function checkField(
  value: Record<string, unknown>,
  key: string,
  kind: 'string' | 'boolean' | 'object' | 'array',
  path: string,
  where: string,
): void {
  const v = value[key];
  if (v === null || v === undefined) return;
  const ok =
    kind === 'array'
      ? Array.isArray(v)
      : kind === 'object'
        ? typeof v === 'object' && !Array.isArray(v)
        : typeof v === kind;
  if (!ok) {
    const want = kind === 'array' ? 'an array' : kind === 'object' ? 'an object' : `a ${kind}`;
    throw new DantinoxError(
      'IO',
      messages.malformedReport(path, `${where} has "${key}" ${kindOf(v)}, not ${want}`),
    );
  }
}

/** The metric descriptors of a report, checked: objects with a string `key`, `unit` and `description`. */
function descriptorsAt(value: unknown, path: string, where: string): MetricDescriptor[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new DantinoxError(
      'IO',
      messages.malformedReport(path, `${where} has "descriptors" ${kindOf(value)}, not an array`),
    );
  }
  return value.map((raw, i) => {
    const at = `descriptor ${i + 1} of ${where}`;
    const d = objectAt(raw, path, at);
    for (const key of ['key', 'unit', 'description']) {
      if (typeof d[key] !== 'string') {
        throw new DantinoxError('IO', messages.malformedReport(path, `${at} has no string "${key}"`));
      }
    }
    checkField(d, 'higherIsBetter', 'boolean', path, at);
    return d as unknown as MetricDescriptor;
  });
}

/** The config a run recorded in its environment (the defaults when it is missing or unreadable). */
function runConfig(run: JsonlRunRecord): BenchmarkConfig {
  try {
    return BenchmarkConfig.parse(run.environment?.config ?? {});
  } catch {
    return BenchmarkConfig.defaults();
  }
}

/** JSON turns NaN into null: turn null back into NaN in numeric maps. */
function numericMap(obj: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (obj !== null && typeof obj === 'object') {
    for (const [k, v] of Object.entries(obj)) out[k] = v === null ? Number.NaN : Number(v);
  }
  return out;
}

const FLOPS_NUMBERS = [
  'attentionProjections',
  'attentionScores',
  'ffn',
  'router',
  'lmHead',
  'seqLen',
  'batchSize',
  'pastLength',
] as const;

/** Rebuilds a {@link FlopsBreakdown} from its JSON form; its counts are numbers (null/garbage → NaN). */
function reviveFlops(raw: unknown): FlopsBreakdown | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const init: Record<string, unknown> = { ...raw };
  for (const key of FLOPS_NUMBERS) {
    const v = init[key];
    init[key] = v === null || v === undefined ? Number.NaN : Number(v);
  }
  return new FlopsBreakdown(init as unknown as FlopsBreakdownInit);
}

/** Rebuilds a {@link ProfilingResult} from its JSON form (null stood for NaN). */
function reviveProfiling(raw: unknown): ProfilingResult | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const o = raw as Record<string, unknown>;
  const num = (v: unknown): number => (v === null || v === undefined ? Number.NaN : Number(v));
  const ci = (v: unknown): [number, number] =>
    Array.isArray(v) ? [num(v[0]), num(v[1])] : [Number.NaN, Number.NaN];
  const init: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) init[k] = num(v);
  return new ProfilingResult({
    ...(init as unknown as ProfilingResultInit),
    p50CiMs: ci(o['p50CiMs']),
    p99CiMs: ci(o['p99CiMs']),
    flops: reviveFlops(o['flops']),
  });
}

/**
 * Restores the class instances and NaNs of a result read from JSON; `where` names it in `path` for errors.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it is not an object, has no task name, or a field of the wrong kind.
 */
function reviveResult(raw: unknown, path: string, where: string): BenchmarkResult {
  const r = objectAt(raw, path, where);
  if (typeof r['task'] !== 'string') {
    throw new DantinoxError('IO', messages.malformedReport(path, `${where} has no "task" name`));
  }
  checkField(r, 'cells', 'array', path, where);
  checkField(r, 'meta', 'object', path, where);
  checkField(r, 'error', 'string', path, where);
  const out: Record<string, unknown> = { ...r, metrics: numericMap(r['metrics']) };
  for (const key of ['profiling', 'flops', 'cells', 'error', 'meta', 'durationMs']) {
    if (r[key] === null || r[key] === undefined) delete out[key];
  }
  if (out['profiling'] !== undefined) out['profiling'] = reviveProfiling(r['profiling']);
  if (out['flops'] !== undefined) out['flops'] = reviveFlops(r['flops']);
  if (Array.isArray(r['cells'])) {
    out['cells'] = r['cells'].map((c, i) => reviveCell(c, path, `cell ${i + 1} of ${where}`));
  }
  if (out['durationMs'] !== undefined) out['durationMs'] = Number(out['durationMs']);
  return out as unknown as BenchmarkResult;
}

function reviveCell(raw: unknown, path: string, where: string): CellRecord {
  const c = objectAt(raw, path, where);
  checkField(c, 'samplesMs', 'array', path, where);
  checkField(c, 'metricSamples', 'object', path, where);
  checkField(c, 'error', 'string', path, where);
  const { type: _type, elapsedS: _elapsed, ...rest } = c;
  const out: Record<string, unknown> = { ...rest, metrics: numericMap(c['metrics']) };
  for (const key of ['profiling', 'flops', 'error', 'batch', 'seqLen', 'samplesMs', 'metricSamples']) {
    if (c[key] === null || c[key] === undefined) delete out[key];
  }
  if (out['profiling'] !== undefined) out['profiling'] = reviveProfiling(c['profiling']);
  if (Array.isArray(c['samplesMs'])) out['samplesMs'] = c['samplesMs'].map(Number);
  if (out['metricSamples'] !== undefined) {
    const lists = c['metricSamples'] as Record<string, unknown>;
    for (const key of Object.keys(lists)) checkField(lists, key, 'array', path, `${where} metricSamples`);
    out['metricSamples'] = Object.fromEntries(
      Object.entries(lists)
        .filter(([, v]) => Array.isArray(v))
        .map(([k, v]) => [k, (v as unknown[]).map(Number)]),
    );
  }
  if (out['flops'] !== undefined) out['flops'] = reviveFlops(c['flops']);
  return out as unknown as CellRecord;
}

function fromJson(path: string, text: string): SuiteReportData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, 'JSON', cause), { cause });
  }
  const raw = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  if (raw['format'] !== 'dantinox-report' || !Array.isArray(raw['results'])) {
    throw new DantinoxError(
      'IO',
      messages.malformedReport(path, 'no "format": "dantinox-report" with "results"'),
    );
  }
  checkField(raw, 'modelMeta', 'object', path, 'the report');
  checkField(raw, 'environment', 'object', path, 'the report');
  return {
    results: raw['results'].map((r, i) => reviveResult(r, path, `result ${i + 1}`)),
    modelMeta: (raw['modelMeta'] ?? {}) as Record<string, MetaValue>,
    totalTimeS: Number(raw['totalTimeS'] ?? 0),
    ...(raw['environment']
      ? { environment: raw['environment'] as SuiteReportData['environment'] & object }
      : {}),
    ...(typeof raw['runId'] === 'string' ? { runId: raw['runId'] } : {}),
    descriptors: descriptorsAt(raw['descriptors'], path, 'the report'),
  };
}

/** Checks one parsed JSONL line against the record shapes {@link JsonlSink} writes. */
function jsonlRecord(parsed: unknown, path: string, line: number): JsonlRecord {
  const where = `line ${line}`;
  const rec = objectAt(parsed, path, where);
  const type = rec['type'];
  if (type === 'run') {
    checkField(rec, 'modelMeta', 'object', path, where);
    checkField(rec, 'environment', 'object', path, where);
    descriptorsAt(rec['descriptors'], path, where);
    checkField(rec, 'tasks', 'array', path, where);
  } else if (type === 'cell') {
    if (typeof rec['task'] !== 'string') {
      throw new DantinoxError(
        'IO',
        messages.malformedReport(path, `${where} is a cell without a "task" name`),
      );
    }
  } else if (type === 'task') objectAt(rec['result'], path, `the result of ${where}`);
  return rec as unknown as JsonlRecord;
}

function fromJsonl(path: string, text: string): SuiteReportData {
  const records: JsonlRecord[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (cause) {
      // A crash can cut the last line short: ignore only that one.
      if (i >= lines.length - 2) break;
      throw new DantinoxError('IO', messages.malformedFile(path, `JSONL (line ${i + 1})`, cause), { cause });
    }
    records.push(jsonlRecord(parsed, path, i + 1));
  }
  const runs = records.filter((r): r is JsonlRunRecord => r.type === 'run');
  const run = runs[0];
  if (run === undefined) throw new DantinoxError('IO', messages.malformedReport(path, 'no "run" record'));
  if (runs.length > 1)
    throw new DantinoxError(
      'IO',
      messages.severalRunsInJsonl(
        path,
        runs.map((r) => String(r.runId)),
      ),
    );
  const results: BenchmarkResult[] = [];
  const pending = new Map<string, CellRecord[]>();
  let totalTimeS: number | undefined;
  let lastElapsed = 0;
  for (const rec of records) {
    if (rec.type === 'cell') {
      const list = pending.get(rec.task) ?? [];
      list.push(reviveCell(rec, path, `a cell of ${rec.task}`));
      pending.set(rec.task, list);
      lastElapsed = rec.elapsedS;
    } else if (rec.type === 'task') {
      // The task line leaves out the cells streamed before it: attach them.
      const result = reviveResult(rec.result, path, `the result of task ${excerptName(rec.result)}`);
      const streamed = pending.get(result.task) ?? [];
      results.push(result.cells === undefined ? { ...result, cells: streamed } : result);
      pending.delete(result.task);
    } else if (rec.type === 'end') totalTimeS = rec.totalTimeS;
  }
  // The process ended mid-run (crash, SIGKILL, out of memory): a task cut short keeps a row built from the
  // cells it measured (built-in tasks), and the tasks never reached are listed as not run.
  const config = runConfig(run);
  for (const [task, cells] of pending) {
    const builtin = BUILTIN_TASKS[task];
    const partial = builtin === undefined ? undefined : partialResult(builtin, cells, config, 'crash');
    results.push(
      partial === undefined
        ? { task, status: 'failed', error: messages.taskIncomplete(), metrics: {}, cells }
        : { ...partial, cells },
    );
  }
  const ended = records.some((r) => r.type === 'end');
  if (!ended) {
    for (const task of Array.isArray(run.tasks) ? run.tasks : []) {
      if (!results.some((r) => r.task === task))
        results.push({ task, status: 'skipped', error: messages.taskNeverRan(), metrics: {} });
    }
  }
  return {
    results,
    modelMeta: run.modelMeta,
    totalTimeS: totalTimeS ?? lastElapsed,
    environment: run.environment,
    runId: run.runId,
    descriptors: run.descriptors,
  };
}

/** A record's task name for a message (short, whatever it holds). */
function excerptName(result: unknown): string {
  const task = (result as Record<string, unknown> | null)?.['task'];
  return typeof task === 'string' ? `"${task.slice(0, 40)}"` : '(unnamed)';
}

function fromCsv(path: string, text: string): SuiteReportData {
  let parsed: ReturnType<typeof parseCsv>;
  try {
    parsed = parseCsv(text);
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, 'CSV', cause), { cause });
  }
  const { header, rows } = parsed;
  if (header[0] !== 'task')
    throw new DantinoxError('IO', messages.malformedReport(path, 'its first column is not "task"'));
  const durationAt = header.indexOf('duration_ms');
  const identityFrom = durationAt >= 0 ? durationAt + 1 : header.length;
  const middle = header.slice(1, identityFrom).filter((c) => !['status', 'error', 'duration_ms'].includes(c));
  const at = (row: (string | undefined)[], col: string): MetaValue | undefined =>
    typedField(row[header.indexOf(col)]);
  const modelMeta: Record<string, MetaValue> = {};
  const first = rows[0] ?? [];
  for (const col of header.slice(identityFrom))
    modelMeta[col] = typedField(first[header.indexOf(col)]) ?? null;
  const results = rows.map((row): BenchmarkResult => {
    const metrics: Record<string, number> = {};
    const meta: Record<string, MetaValue> = {};
    for (const col of middle) {
      const v = at(row, col);
      if (typeof v === 'number') metrics[col] = v;
      else if (v !== undefined) meta[col] = v;
    }
    const status = String(at(row, 'status') ?? 'completed');
    const error = at(row, 'error');
    const duration = at(row, 'duration_ms');
    const base = {
      task: String(at(row, 'task') ?? ''),
      metrics,
      ...(Object.keys(meta).length > 0 ? { meta } : {}),
      ...(typeof duration === 'number' ? { durationMs: duration } : {}),
    };
    return status === 'failed' || status === 'skipped'
      ? { ...base, status, error: String(error ?? '') }
      : { ...base, status: 'completed' };
  });
  return { results, modelMeta, columnOrder: middle };
}

/**
 * Reads a report file into {@link SuiteReportData}, choosing the format by extension.
 *
 * @throws {@link dantinox!DantinoxError} with code `IO` when the file cannot be read, has an unknown extension or is
 * not a report; `INVALID_INPUT` when it is empty, binary or not UTF-8/UTF-16 text.
 */
export function readReportFile(path: string): SuiteReportData {
  const ext = extname(path).toLowerCase();
  if (!['.csv', '.json', '.jsonl'].includes(ext))
    throw new DantinoxError('IO', messages.unknownReportFormat(path));
  const text = readTextFile(path, 'report');
  if (text.trim() === '') throw new DantinoxError('INVALID_INPUT', messages.emptyDataFile(path));
  if (ext === '.json') return fromJson(path, text);
  if (ext === '.jsonl') return fromJsonl(path, text);
  return fromCsv(path, text);
}
