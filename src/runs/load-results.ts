/**
 * `openLoadResults`: the results files of a load's run folder — results.jsonl streamed a sweep point at a time,
 * results.csv and results.json when the row is done — written the same way by an unsharded load, by each point of
 * a shard and by the merge of shards.
 *
 * @packageDocumentation
 */
import type { Environment } from '../benchmarking/environment.js';
import type { Logger } from '../benchmarking/logger.js';
import { SuiteReport } from '../benchmarking/report.js';
import { fanOutSinks } from '../benchmarking/result-sink.js';
import type { RunDirectory } from '../benchmarking/run-directory.js';
import type { BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from '../benchmarking/task.js';

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

/** A load run folder's results being written: results.jsonl line by line, results.csv and .json at the end. */
export interface LoadResultsWriter {
  /** Streams a measured cell to results.jsonl. */
  cell(cell: CellRecord): Promise<void>;
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
  return {
    cell: async (cell) => {
      await sinks.onCell(cell, (performance.now() - t0) / 1000);
    },
    end: async (row, durationMs, aborted) => {
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
