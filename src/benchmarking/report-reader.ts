/**
 * Reading reports back: the CSV layout written by {@link SuiteReport.save} (and the seed's CSVs), the full JSON
 * form, and a run's JSONL stream (including one cut short by a crash).
 *
 * @packageDocumentation
 */
import { extname } from 'node:path';
import type { z } from 'zod';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { readTextFile } from '../text-file.js';
import { BenchmarkConfig } from './config.js';
import { parseCsv, typedField } from './csv.js';
import type { Environment } from './environment.js';
import { partialResult } from './partial-result.js';
import { isPointTableHeader, readPointTable } from './point-table.js';
import type { SuiteReportData } from './report.js';
import {
  type JsonlLine,
  type JsonlRunLine,
  jsonlLineHeadSchema,
  jsonlLineSchema,
  reportProblem,
  suiteReportDataSchema,
} from './report-schema.js';
import type { BenchmarkResult, BenchmarkTask, CellRecord, MetaValue } from './task.js';
import { LatencyTask } from './tasks/latency-task.js';
import { PerplexityTask } from './tasks/perplexity-task.js';
import { ThroughputTask } from './tasks/throughput-task.js';

/** What an `end` line adds to the run line's environment. */
interface EndSamples {
  readonly loadAverageEnd?: readonly number[] | undefined;
  readonly cpuMhzEnd?: readonly number[] | undefined;
  readonly othersCpus?: number | undefined;
}

/** A run line's environment with the end-of-run samples of its `end` line put back. */
function withEnd(
  environment: Environment,
  { loadAverageEnd, cpuMhzEnd, othersCpus }: EndSamples,
): Environment {
  const { loadAverage, cpuMhz } = environment;
  return {
    ...environment,
    ...(othersCpus === undefined ? {} : { othersCpus }),
    ...(loadAverage === undefined || loadAverageEnd === undefined
      ? {}
      : { loadAverage: { ...loadAverage, end: loadAverageEnd } }),
    ...(cpuMhz === undefined || cpuMhzEnd === undefined ? {} : { cpuMhz: { ...cpuMhz, end: cpuMhzEnd } }),
  };
}

/** The built-in tasks by their default names: they rebuild the row of a task a crash cut short. */
const BUILTIN_TASKS: Readonly<Record<string, BenchmarkTask>> = {
  throughput: new ThroughputTask(),
  latency: new LatencyTask(),
  perplexity: new PerplexityTask(),
};

/**
 * `value` parsed with `schema`, or a `DantinoxError` naming the file and where in it (from `root`) the problem is.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when `value` does not fit `schema`.
 */
function parsed<T>(schema: z.ZodType<T>, value: unknown, path: string, root: string): T {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new DantinoxError('IO', messages.malformedReport(path, reportProblem(result.error, root)));
}

/** The config a run recorded in its environment (the defaults when it is missing or unreadable). */
function runConfig(run: JsonlRunLine): BenchmarkConfig {
  try {
    return BenchmarkConfig.parse(run.environment?.config ?? {});
  } catch {
    return BenchmarkConfig.defaults();
  }
}

function fromJson(path: string, text: string): SuiteReportData {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, 'JSON', cause), { cause });
  }
  return parsed(suiteReportDataSchema, raw, path, messages.reportItself());
}

/** One parsed JSONL line checked against the record shapes {@link JsonlSink} writes; `undefined` for another type. */
function jsonlLine(raw: unknown, path: string, line: number): JsonlLine | undefined {
  const where = messages.reportLine(line);
  const schema = jsonlLineSchema(parsed(jsonlLineHeadSchema, raw, path, where).type);
  return schema === undefined ? undefined : parsed(schema, raw, path, where);
}

function fromJsonl(path: string, text: string): SuiteReportData {
  const records: JsonlLine[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (cause) {
      // A crash can cut the last line short: ignore only that one.
      if (i >= lines.length - 2) break;
      throw new DantinoxError('IO', messages.malformedFile(path, `JSONL (line ${i + 1})`, cause), { cause });
    }
    const record = jsonlLine(raw, path, i + 1);
    if (record !== undefined) records.push(record);
  }
  const runs = records.filter((r): r is JsonlRunLine => r.type === 'run');
  const run = runs[0];
  if (run === undefined)
    throw new DantinoxError('IO', messages.malformedReport(path, messages.reportNoRunLine()));
  // INVALID_INPUT, not IO: the stream is ours but holds several runs; `plot` and `report` must not read it as a table.
  if (runs.length > 1)
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.severalRunsInJsonl(
        path,
        runs.map((r) => String(r.runId)),
      ),
    );
  const results: BenchmarkResult[] = [];
  const pending = new Map<string, CellRecord[]>();
  let totalTimeS: number | undefined;
  let end: EndSamples = {};
  let lastElapsed = 0;
  for (const rec of records) {
    if (rec.type === 'cell') {
      const { type: _type, elapsedS, ...cell } = rec;
      const list = pending.get(cell.task) ?? [];
      list.push(cell);
      pending.set(cell.task, list);
      lastElapsed = elapsedS;
    } else if (rec.type === 'task') {
      // The task line leaves out the cells streamed before it: attach them.
      const result = rec.result;
      const streamed = pending.get(result.task) ?? [];
      results.push(result.cells === undefined ? { ...result, cells: streamed } : result);
      pending.delete(result.task);
    } else if (rec.type === 'end') {
      // An end line without its time (null: NaN) leaves the time of the last cell.
      if (!Number.isNaN(rec.totalTimeS)) totalTimeS = rec.totalTimeS;
      end = rec;
    }
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
    for (const task of run.tasks) {
      if (!results.some((r) => r.task === task))
        results.push({ task, status: 'skipped', error: messages.taskNeverRan(), metrics: {} });
    }
  }
  return {
    results,
    modelMeta: run.modelMeta,
    totalTimeS: totalTimeS ?? lastElapsed,
    ...(run.environment === undefined ? {} : { environment: withEnd(run.environment, end) }),
    ...(run.runId === undefined ? {} : { runId: run.runId }),
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
  if (isPointTableHeader(header)) return readPointTable(header, rows);
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
