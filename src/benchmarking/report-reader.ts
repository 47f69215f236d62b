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
import type { BenchmarkResult, BenchmarkTask, CellRecord, MetaValue } from './task.js';
import { LatencyTask } from './tasks/latency-task.js';
import { PerplexityTask } from './tasks/perplexity-task.js';
import { ThroughputTask } from './tasks/throughput-task.js';

/** The built-in tasks by their default names: they rebuild the row of a task a crash cut short. */
const BUILTIN_TASKS: Readonly<Record<string, BenchmarkTask>> = {
  throughput: new ThroughputTask(),
  latency: new LatencyTask(),
  perplexity: new PerplexityTask(),
};

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

function reviveFlops(raw: unknown): FlopsBreakdown | undefined {
  return raw === null || typeof raw !== 'object' ? undefined : new FlopsBreakdown(raw as FlopsBreakdownInit);
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

/** Restores the class instances and NaNs of a result read from JSON. */
function reviveResult(raw: unknown): BenchmarkResult {
  const r = raw as Record<string, unknown>;
  const out: Record<string, unknown> = { ...r, metrics: numericMap(r['metrics']) };
  for (const key of ['profiling', 'flops', 'cells', 'error', 'meta', 'durationMs']) {
    if (r[key] === null || r[key] === undefined) delete out[key];
  }
  if (out['profiling'] !== undefined) out['profiling'] = reviveProfiling(r['profiling']);
  if (out['flops'] !== undefined) out['flops'] = reviveFlops(r['flops']);
  if (Array.isArray(r['cells'])) out['cells'] = r['cells'].map(reviveCell);
  return out as unknown as BenchmarkResult;
}

function reviveCell(raw: unknown): CellRecord {
  const c = raw as Record<string, unknown>;
  const { type: _type, elapsedS: _elapsed, ...rest } = c;
  const out: Record<string, unknown> = { ...rest, metrics: numericMap(c['metrics']) };
  for (const key of ['profiling', 'flops', 'error', 'batch', 'seqLen', 'samplesMs']) {
    if (c[key] === null || c[key] === undefined) delete out[key];
  }
  if (out['profiling'] !== undefined) out['profiling'] = reviveProfiling(c['profiling']);
  if (Array.isArray(c['samplesMs'])) out['samplesMs'] = c['samplesMs'].map(Number);
  if (out['flops'] !== undefined) out['flops'] = reviveFlops(c['flops']);
  return out as unknown as CellRecord;
}

function fromJson(path: string, text: string): SuiteReportData {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, 'JSON', cause), { cause });
  }
  if (raw?.['format'] !== 'dantinox-report' || !Array.isArray(raw['results'])) {
    throw new DantinoxError(
      'IO',
      messages.malformedReport(path, 'no "format": "dantinox-report" with "results"'),
    );
  }
  return {
    results: raw['results'].map(reviveResult),
    modelMeta: (raw['modelMeta'] ?? {}) as Record<string, MetaValue>,
    totalTimeS: Number(raw['totalTimeS'] ?? 0),
    ...(raw['environment']
      ? { environment: raw['environment'] as SuiteReportData['environment'] & object }
      : {}),
    ...(typeof raw['runId'] === 'string' ? { runId: raw['runId'] } : {}),
    descriptors: (raw['descriptors'] ?? []) as SuiteReportData['descriptors'] & object,
  };
}

function fromJsonl(path: string, text: string): SuiteReportData {
  const records: JsonlRecord[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as JsonlRecord);
    } catch (cause) {
      // A crash can cut the last line short: ignore only that one.
      if (i >= text.split('\n').length - 2) break;
      throw new DantinoxError('IO', messages.malformedFile(path, `JSONL (line ${i + 1})`, cause), { cause });
    }
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
      list.push(reviveCell(rec));
      pending.set(rec.task, list);
      lastElapsed = rec.elapsedS;
    } else if (rec.type === 'task') {
      // The task line leaves out the cells streamed before it: attach them.
      const result = reviveResult(rec.result);
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
 * @throws {@link DantinoxError} with code `IO` when the file cannot be read, has an unknown extension or is
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
