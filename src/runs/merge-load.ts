/**
 * `mergedLoadReport` and `writeMergedLoad`: the sweep points of `dantinox load` shards (each point's own run folder)
 * as the one load run an unsharded load writes — what `dantinox merge` writes for load shards.
 *
 * @packageDocumentation
 */
import type { Logger } from '../benchmarking/logger.js';
import { SuiteReport } from '../benchmarking/report.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { RequestLine } from '../serving/index.js';
import type { ChartRegistry } from '../visualization/index.js';
import { openLoadResults } from './load-results.js';
import { SERVING_TASK, servingResult } from './run-load.js';
import { type RunOutputs, writeRunOutputs } from './run-outputs.js';

/**
 * The report of merged load shards as one load run: one `serving` row of the points' cells in the order given
 * (sweep order), under the meta, run id, environment and descriptors of the first point's run; its row carries
 * `interrupted` when a point was cut short (merged with `--allow-partial`).
 *
 * @param points - Each sweep point's own run (a shard's point folder), and whether it was cut short.
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when there is no point with a `serving` row.
 */
export function mergedLoadReport(
  points: readonly { readonly report: SuiteReport; readonly unfinished: boolean }[],
): SuiteReport {
  const first = points[0]?.report;
  const firstRow = first?.results.find((r) => r.task === SERVING_TASK);
  if (first === undefined || firstRow === undefined)
    throw new DantinoxError('INVALID_INPUT', messages.loadMergeNothing());
  const cells = points.flatMap((p) => p.report.results.find((r) => r.task === SERVING_TASK)?.cells ?? []);
  const { interrupted: _, ...meta } = firstRow.meta ?? {};
  const cut = points.filter((p) => p.unfinished).length;
  const row = servingResult(
    cells,
    cut === 0 ? meta : { ...meta, interrupted: messages.loadMergedInterrupted(cut) },
  );
  const durationMs = points.reduce((sum, p) => sum + p.report.totalTimeS * 1000, 0);
  return new SuiteReport({
    results: [{ ...row, durationMs }],
    modelMeta: first.modelMeta,
    totalTimeS: durationMs / 1000,
    ...(first.environment === undefined ? {} : { environment: first.environment }),
    ...(first.runId === undefined ? {} : { runId: first.runId }),
    descriptors: first.descriptors,
  });
}

/**
 * Writes merged load shards as one load run into `dir` (claimed): results.csv/json/jsonl of
 * {@link mergedLoadReport} and the points' requests (requests.jsonl and requests.csv), then its charts and
 * report.html, as an unsharded `dantinox load` writes them.
 */
export async function writeMergedLoad(
  report: SuiteReport,
  dir: string,
  options: {
    readonly charts: boolean;
    readonly logger: Logger;
    readonly registry: ChartRegistry;
    readonly requests: readonly RequestLine[];
  },
): Promise<RunOutputs> {
  const row = report.results[0];
  const runDir = new RunDirectory(dir);
  if (row !== undefined && report.environment !== undefined) {
    const { durationMs, ...task } = row;
    const results = await openLoadResults(
      runDir,
      {
        runId: report.runId ?? 'load',
        modelMeta: report.modelMeta,
        environment: report.environment,
        descriptors: report.descriptors,
      },
      SERVING_TASK,
      options.logger,
    );
    results.requests(options.requests);
    for (const cell of task.cells ?? []) await results.cell(cell);
    await results.end(task, durationMs ?? report.totalTimeS * 1000, false);
  } else for (const path of [runDir.csvPath, runDir.jsonPath]) report.save(path);
  return writeRunOutputs(report, runDir, {
    charts: options.charts,
    command: 'load',
    logger: options.logger,
    registry: options.registry,
  });
}
