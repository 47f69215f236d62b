/**
 * A metric over the runs of a results history, as rows and as a chart: what `dantinox history trend` prints with
 * `--json` and writes with `--out`.
 *
 * @packageDocumentation
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { TrendPoint } from '../benchmarking/index.js';
import { DantinoxError } from '../errors.js';
import { Visualizer } from '../visualization/index.js';

/** One point of a trend as a row: the run, its time and commit, where the metric is, its value and interval. */
export type TrendRow = {
  /** The run's id in the history. */
  readonly run_id: string;
  /** When it ran (ISO). */
  readonly time: string;
  /** Its git commit, if recorded. */
  readonly git_commit: string | null;
  /** The task. */
  readonly task: string;
  /** The cell, `null` for the task's own metric. */
  readonly cell: string | null;
  /** The metric's key. */
  readonly metric: string;
  /** Its value, in `unit`. */
  readonly value: number;
  /** Low end of its 95% interval from the run's samples, `null` without samples. */
  readonly ci_low: number | null;
  /** High end of the interval. */
  readonly ci_high: number | null;
  /** The metric's unit. */
  readonly unit: string | null;
  /** The line it belongs to: `model · variant · machine`. */
  readonly series: string;
};

/** The rows of a trend of `metric` (the trend chart's data, and `history trend --json`). */
export function trendRows(points: readonly TrendPoint[], metric: string): TrendRow[] {
  return points.map((p) => ({
    run_id: p.runId,
    time: p.time,
    git_commit: p.gitCommit,
    task: p.task,
    cell: p.cell,
    metric,
    value: p.value,
    ci_low: Number.isFinite(p.ci[0]) ? p.ci[0] : null,
    ci_high: Number.isFinite(p.ci[1]) ? p.ci[1] : null,
    unit: p.unit,
    series: `${p.model ?? '?'} · ${p.variant} · ${p.machine}`,
  }));
}

/** What {@link writeTrendChart} wrote. */
export interface WrittenTrend {
  /** The folder (absolute). */
  readonly dir: string;
  /** The files, relative to it: the chart's SVG and PNG and its HTML report. */
  readonly files: readonly string[];
}

/**
 * Writes the trend chart of `metric` (`history-trend.svg` / `.png`) and its HTML report (`history-report.html`)
 * into `dir` (relative to `cwd`), x the run's time or its commit; returns the folder (absolute) and the files written,
 * relative to it.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the chart cannot be drawn (one run, no value).
 */
export async function writeTrendChart(
  points: readonly TrendPoint[],
  metric: string,
  dir: string,
  options: { readonly x?: 'time' | 'commit'; readonly cwd?: string } = {},
): Promise<WrittenTrend> {
  const outDir = isAbsolute(dir) ? dir : resolve(options.cwd ?? process.cwd(), dir);
  const results = await new Visualizer().render(trendRows(points, metric), {
    charts: [['trend', { x: options.x ?? 'time' }]],
    outDir,
    formats: ['svg', 'png', 'html'],
    runName: 'history',
    overwrite: true,
    title: `dantinox history: ${metric}`,
  });
  const r = results['trend'];
  if (r !== undefined && r.status !== 'rendered') throw new DantinoxError('INVALID_INPUT', r.reason);
  return {
    dir: outDir,
    files: r === undefined ? [] : Object.values(r.paths).map((p) => relative(outDir, p)),
  };
}
