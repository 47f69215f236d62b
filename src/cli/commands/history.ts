/**
 * `dantinox history add|list|show|trend`: a results history in a DuckDB file.
 *
 * @packageDocumentation
 */
import { isAbsolute, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { ResultsHistory } from '../../benchmarking/index.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { addRunsToHistory, trendRows, writeTrendChart } from '../../runs/index.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';

/** The default history file, relative to the working directory. */
export const DEFAULT_HISTORY_FILE = 'results.duckdb';

interface HistoryOptions {
  readonly history: string;
}

interface TrendOptions extends HistoryOptions {
  readonly task?: string;
  readonly cell?: string;
  readonly model?: string;
  readonly machine?: string;
  readonly json?: boolean;
  readonly out?: string;
  readonly x: 'time' | 'commit';
}

const EXAMPLES = `
Examples:
  $ dantinox bench --config tiny --history results.duckdb --compare-last
  $ dantinox history add results/2026-01-31_14-05-09 results/2026-02-01_09-12-44
  $ dantinox history list
  $ dantinox history show tiny-2026-01-31_14-05-09
  $ dantinox history trend tps_seq128 --model tiny --out trend/   # + chart (SVG, PNG, HTML)
  $ duckdb results.duckdb "SELECT run_id, value FROM metrics WHERE metric = 'decode_tps'"

The file is a DuckDB database (tables runs, metrics, samples): query it with SQL from any DuckDB client.
Each add is one transaction (a crash or Ctrl-C never leaves half a run); a second writer waits up to 10 s.
`;

async function openHistory(
  options: HistoryOptions,
  ctx: CommandContext,
  readOnly: boolean,
): Promise<ResultsHistory> {
  const path = isAbsolute(options.history) ? options.history : resolve(ctx.io.cwd, options.history);
  return ResultsHistory.open(path, { readOnly });
}

async function withHistory<T>(
  options: HistoryOptions,
  ctx: CommandContext,
  readOnly: boolean,
  work: (h: ResultsHistory) => Promise<T>,
): Promise<T> {
  const history = await openHistory(options, ctx, readOnly);
  try {
    return await work(history);
  } finally {
    history.close();
  }
}

/** Left-aligned columns separated by two spaces. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string =>
    r
      .map((x, i) => x.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

const value4 = (v: number): string => (Number.isFinite(v) ? String(Number(v.toPrecision(4))) : '—');

/** Registers `dantinox history` and its subcommands on `program`. */
export function registerHistoryCommand(program: Command, ctx: CommandContext): Command {
  const history = program
    .command('history')
    .summary('keep runs in a DuckDB results history: add, list, show, trend')
    .description(
      'A results history in one DuckDB file: append runs, list them, show one, and chart a metric over runs.',
    )
    .addHelpText('after', EXAMPLES);
  const file = (c: Command): Command =>
    c.option('--history <file>', 'the DuckDB history file', DEFAULT_HISTORY_FILE);
  file(
    history
      .command('add')
      .description('append runs (directories written by "dantinox bench", or their results.json / .jsonl)')
      .argument('<runs...>', 'run directories or results files'),
  ).action(async (runs: string[], options: HistoryOptions) => {
    const { added, notes } = await addRunsToHistory(runs, options.history, ctx.io.cwd);
    for (const note of notes) ctx.io.stderr.write(`note: ${note}\n`);
    for (const { status, runId, path } of added)
      ctx.io.stdout.write(`${status === 'added' ? 'added' : 'already there'}: ${runId} (${path})\n`);
    ctx.exitCode = ExitCode.ok;
  });
  file(
    history
      .command('list')
      .description('list the runs, oldest first')
      .option('--model <name>', 'runs of this model only')
      .option('--machine <fingerprint>', 'runs on this machine only (as listed)'),
  ).action(async (options: TrendOptions) => {
    const runs = await withHistory(options, ctx, true, (h) =>
      h.runs({
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.machine === undefined ? {} : { machine: options.machine }),
      }),
    );
    const rows = runs.map((r) => [
      r.runId,
      r.startedAt ?? r.addedAt,
      r.gitCommit?.slice(0, 10) ?? '—',
      r.gitBranch ?? '—',
      r.model ?? '—',
      `${r.engine ?? '—'} ${r.dtype ?? ''} ${r.threads ?? ''}`.trim(),
      r.machine,
    ]);
    ctx.io.stdout.write(
      `${table(['run', 'started', 'commit', 'branch', 'model', 'engine', 'machine'], rows)}\n`,
    );
  });
  file(
    history.command('show').description('show one run: identity and summary').argument('<run>', 'run id'),
  ).action(async (runId: string, options: HistoryOptions) => {
    await withHistory(options, ctx, true, async (h) => {
      const report = await h.report(runId);
      const run = (await h.runs()).find((r) => r.runId === runId);
      if (report === undefined || run === undefined) {
        throw new DantinoxError('INVALID_INPUT', messages.historyUnknownRun(options.history, runId));
      }
      const lines = [
        `run ${run.runId}`,
        `  started ${run.startedAt ?? '—'}, added ${run.addedAt}`,
        `  git ${run.gitCommit ?? '—'} (${run.gitBranch ?? '—'})`,
        `  machine ${run.machine}`,
        '',
        report.summary(),
      ];
      ctx.io.stdout.write(`${lines.join('\n')}\n`);
    });
  });
  file(
    history
      .command('trend')
      .description('one metric over the runs (task metric, or --cell), with its interval from the samples')
      .argument('<metric>', 'metric key, e.g. tps_seq128, decode_tps, perplexity, or p99_ms with --cell')
      .option('--task <name>', 'metric of this task only')
      .option('--cell <id>', 'metric of this cell (e.g. "decode@128") instead of the task row')
      .option('--model <name>', 'runs of this model only')
      .option('--machine <fingerprint>', 'runs on this machine only (as listed)')
      .addOption(new Option('--x <axis>', 'x axis of the chart').choices(['time', 'commit']).default('time'))
      .option('--json', 'print the points as JSON')
      .option('-o, --out <dir>', 'write the trend chart (SVG, PNG) and an HTML report there'),
  ).action(async (metric: string, options: TrendOptions) => {
    const filter = {
      ...(options.task === undefined ? {} : { task: options.task }),
      ...(options.cell === undefined ? {} : { cell: options.cell }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.machine === undefined ? {} : { machine: options.machine }),
    };
    const points = await withHistory(options, ctx, true, (h) => h.trend(metric, filter));
    if (points.length === 0)
      throw new DantinoxError('INVALID_INPUT', messages.historyNoTrend(options.history, metric));
    if (options.json === true) {
      ctx.io.stdout.write(`${JSON.stringify(trendRows(points, metric), null, 2)}\n`);
    } else {
      const body = points.map((p) => [
        p.runId,
        p.time,
        p.gitCommit?.slice(0, 10) ?? '—',
        p.cell === null ? p.task : `${p.task} / ${p.cell}`,
        value4(p.value),
        Number.isNaN(p.ci[0]) ? 'n/a' : `[${value4(p.ci[0])}, ${value4(p.ci[1])}]`,
      ]);
      const unit = points[0]?.unit;
      ctx.io.stdout.write(
        `${table(['run', 'started', 'commit', 'where', `${metric}${unit ? ` (${unit})` : ''}`, '95% CI'], body)}\n`,
      );
    }
    if (options.out !== undefined) {
      const chart = await writeTrendChart(points, metric, options.out, { x: options.x, cwd: ctx.io.cwd });
      ctx.io.stderr.write(`wrote ${chart.dir}/{${chart.files.join(',')}}\n`);
    }
  });
  return history;
}
