/**
 * `openLoadResults`: the results files of a load's run folder — results.jsonl and requests.jsonl streamed a sweep
 * point at a time, results.csv, results.json and requests.csv when the row is done — written the same way by an
 * unsharded load, by each point of a shard and by the merge of shards.
 *
 * @packageDocumentation
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { formatCsv } from '../benchmarking/csv.js';
import type { Environment } from '../benchmarking/environment.js';
import type { Logger } from '../benchmarking/logger.js';
import { SuiteReport } from '../benchmarking/report.js';
import { fanOutSinks } from '../benchmarking/result-sink.js';
import type { RunDirectory } from '../benchmarking/run-directory.js';
import type { BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from '../benchmarking/task.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { REQUEST_COLUMNS, type RequestLine, requestCsvRow } from '../serving/index.js';

/** Everything a load's run folders share: its identity, environment block and metric descriptors. */
export interface LoadRunHeader {
  /** The run id (`load-<start time>`). */
  readonly runId: string;
  /** The model columns: the served model's name and the engine (`openai-http (<endpoint>)`). */
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
  /** The client machine's environment block. */
  readonly environment: Environment;
  /** Descriptors of the cells' and the row's metrics. */
  readonly descriptors: readonly MetricDescriptor[];
}

/**
 * A load run folder's results being written: results.jsonl and requests.jsonl line by line, results.csv,
 * results.json and requests.csv at the end.
 */
export interface LoadResultsWriter {
  /** Streams a measured cell to results.jsonl. */
  cell(cell: CellRecord): Promise<void>;
  /** Streams a sweep point's requests to requests.jsonl. */
  requests(lines: readonly RequestLine[]): void;
  /** Writes the row, then results.csv and results.json; returns the report. */
  end(row: BenchmarkResult, durationMs: number, aborted: boolean): Promise<SuiteReport>;
}

/**
 * Opens a run folder's results, of the one task `task`, under a load's header: results.jsonl is created now, so an
 * unwritable folder fails before anything is measured.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when results.jsonl cannot be created.
 */
export async function openLoadResults(
  runDir: RunDirectory,
  header: LoadRunHeader,
  task: string,
  logger: Logger,
): Promise<LoadResultsWriter> {
  const sinks = fanOutSinks(runDir.sinks(), logger);
  const t0 = performance.now();
  await sinks.onStart({ ...header, tasks: [task] });
  const written: RequestLine[] = [];
  const write = (path: string, what: string, action: () => void): void => {
    try {
      action();
    } catch (cause) {
      throw new DantinoxError('IO', messages.benchWriteFailed(path, what, cause), { cause });
    }
  };
  write(runDir.requestsJsonlPath, "the load's request records", () =>
    writeFileSync(runDir.requestsJsonlPath, ''),
  );
  return {
    cell: async (cell) => {
      await sinks.onCell(cell, (performance.now() - t0) / 1000);
    },
    requests: (lines) => {
      written.push(...lines);
      const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
      write(runDir.requestsJsonlPath, "the load's request records", () =>
        appendFileSync(runDir.requestsJsonlPath, text),
      );
    },
    end: async (row, durationMs, aborted) => {
      const rows = written.map((line) => requestCsvRow(line.point, line));
      write(runDir.requestsCsvPath, "the load's requests table", () =>
        writeFileSync(runDir.requestsCsvPath, formatCsv(REQUEST_COLUMNS, rows)),
      );
      await sinks.onTask(row);
      const report = new SuiteReport({
        results: [{ ...row, durationMs }],
        ...header,
        totalTimeS: durationMs / 1000,
      });
      await sinks.onEnd(report, { aborted });
      return report;
    },
  };
}
