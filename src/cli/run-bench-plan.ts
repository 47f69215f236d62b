/**
 * `dantinox bench`'s side of a run: progress lines on stderr, Ctrl-C and SIGTERM, the variants' summaries and
 * the files on stdout, and the exit code — the run itself is `runMatrix`'s.
 *
 * @packageDocumentation
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchmarkConfig } from '../benchmarking/config.js';
import { BenchmarkConfig as BenchmarkConfigApi } from '../benchmarking/config.js';
import { formatNoiseWarnings, noiseWarnings } from '../benchmarking/noise-warnings.js';
import type { SuiteReport } from '../benchmarking/report.js';
import { formatSummary, type SummaryFormat } from '../benchmarking/summary-table.js';
import { profileBreakdowns } from '../benchmarking/tasks/profile-task.js';
import { formatDifferences } from '../benchmarking/variant-identity.js';
import { messages } from '../messages.js';
import { formatTimeBreakdown } from '../profiling/op-time-breakdown.js';
import {
  type HistoryRecord,
  isFlatLayout,
  type RunHooks,
  type RunPlan,
  type RunResult,
  runMatrix,
  type VariantOutcome,
} from '../runs/index.js';
import type { CliWriter } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { writeComparisons } from './commands/compare.js';
import { ExitCode } from './exit-code.js';
import { type StopSignal, watchInterrupts } from './interrupts.js';
import { tellLauncher, underLauncher } from './malloc-tuning.js';
import { wrappingWriter } from './wrap-lines.js';

/** `4 min 10 s`, `35 s`. */
function formatEta(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Progress on stderr: notes, `Round [2/3] dir`, `Variant [2/4] id (ETA …)`, resume skips. */
function progressHooks(flat: boolean, ctx: CommandContext): RunHooks {
  const say = (text: string): void => {
    ctx.io.stderr.write(text);
  };
  return {
    name: 'progress',
    onNote: say,
    onRoundStart: ({ round, count, shownDir }) => say(`Round [${round}/${count}] → ${shownDir}\n`),
    onVariantSkipped: ({ variant, index, total }) =>
      say(`Variant [${index + 1}/${total}] ${variant.id}: complete in an earlier run, skipped (--resume)\n`),
    onVariantStart: ({ variant, index, total, etaMs, remaining }) => {
      if (!flat)
        say(
          `Variant [${index + 1}/${total}] ${variant.id}${etaMs === undefined ? '' : ` (ETA ${formatEta(etaMs)} for ${remaining} variant(s))`}\n`,
        );
    },
  };
}

/**
 * Keeps the launcher (if any) told which `results.jsonl` holds the cells being measured, so that its notice after a
 * second Ctrl-C or a SIGKILL names that stream: a round's folder with `--repeat`, and in a matrix (or a shard) the
 * folder of the variant being measured, not the top folder.
 */
function launcherHooks(plan: RunPlan): RunHooks {
  const inVariantFolders = plan.matrix.isMatrix || plan.shard !== undefined;
  let runDir = plan.shownDir;
  return {
    name: 'launcher',
    onRoundStart: ({ shownDir }) => {
      runDir = shownDir;
      tellLauncher({ cellsDir: runDir });
    },
    onVariantStart: ({ variant }) =>
      tellLauncher({ cellsDir: inVariantFolders ? join(runDir, variant.id) : runDir }),
  };
}

/** How `dantinox bench` prints: progress or not, and the summary's format. */
export interface BenchPrinting {
  /** No progress on stderr. */
  readonly quiet: boolean;
  /**
   * The summary's format. `table` and `kv` print each variant's summary among the run's other lines; `markdown`,
   * `json` and `csv` print one document with every variant's rows alone on stdout, everything else on stderr.
   */
  readonly format: SummaryFormat;
}

/** Formats whose stdout is the summary document alone, for a script or a pull request. */
const DOCUMENT_FORMATS: ReadonlySet<SummaryFormat> = new Set(['markdown', 'json', 'csv']);

/**
 * Runs the plan with progress on stderr (none when `quiet`), stops cleanly on Ctrl-C or SIGTERM, prints every
 * variant's summary and where the results are, and resolves to the exit code (1 when a task or variant did not
 * complete or a chart failed, 130/143 when a signal stopped it).
 */
export async function runBenchPlan(
  plan: RunPlan,
  { quiet, format }: BenchPrinting,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const document = DOCUMENT_FORMATS.has(format);
  // What a person reads goes to stderr when stdout carries a document, wrapped to MAX_LINE on stdout (not the
  // seed's `kv` lines, which scripts parse).
  const wrapped = document || format === 'kv' ? undefined : wrappingWriter(io.stdout);
  const human = wrapped ?? (document ? io.stderr : io.stdout);
  try {
    return await runAndPrint(plan, { format, quiet, human }, ctx);
  } finally {
    wrapped?.flush();
  }
}

/** {@link runBenchPlan} once its writer is chosen: what a person reads goes to `human`. */
async function runAndPrint(
  plan: RunPlan,
  { quiet, format, human }: BenchPrinting & { human: CliWriter },
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const document = DOCUMENT_FORMATS.has(format);
  const flat = isFlatLayout(plan);
  const interrupts = watchInterrupts({ stderr: io.stderr, underLauncher: underLauncher() });
  let result: RunResult;
  try {
    result = await runMatrix(plan, {
      hooks: quiet ? [launcherHooks(plan)] : [launcherHooks(plan), progressHooks(flat, ctx)],
      signal: interrupts.signal,
      ...(quiet ? {} : { progress: io.stderr }),
    });
  } finally {
    interrupts.dispose();
  }
  const stoppedBy = interrupts.received();
  if (result.status === 'empty-shard') {
    human.write(`Nothing to run in this shard: ${plan.shownDir} records it for the merge.\n`);
    return ExitCode.ok;
  }
  if (result.status === 'nothing-to-do') {
    human.write(`Nothing to do: ${plan.shownDir} already holds a complete run (--resume).\n`);
    return ExitCode.ok;
  }
  for (const outcome of result.variants) printVariant(outcome, { flat, format, out: human });
  if (document) io.stdout.write(`${formatSummary(result.reports, format)}\n`);
  const results =
    result.files.length === 0 ? '' : `Results: ${plan.shownDir}\n  ${result.files.join('\n  ')}\n`;
  if (result.missingResultFiles.length > 0) {
    human.write(results);
    const noneWritten = !result.files.some((f) => /(^|\/)results\.(csv|json|jsonl)$/.test(f));
    io.stderr.write(`${messages.resultsNotWritten(result.missingResultFiles, noneWritten)}\n`);
    return ExitCode.taskFailed;
  }
  if (result.notRun.length > 0) io.stderr.write(`${messages.variantsNotRun(result.notRun)}\n`);
  const warnings = formatNoiseWarnings(noiseWarnings(result.reports));
  if (warnings !== '') human.write(`${warnings}\n\n`);
  for (const record of result.history) await printHistory(record, human, ctx);
  human.write(results);
  human.write(nextSteps(plan, result));
  return exitCode(result, stoppedBy, ctx);
}

/** The exit code of a finished run, with the reason on stderr. */
function exitCode(result: RunResult, stoppedBy: StopSignal | undefined, ctx: CommandContext): ExitCode {
  const { io } = ctx;
  if (stoppedBy !== undefined) {
    io.stderr.write(`${messages.benchStopped(stoppedBy)}\n`);
    return stoppedBy === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
  }
  if (result.failedTasks.length > 0) {
    io.stderr.write(`${messages.tasksIncomplete(result.failedTasks)}\n`);
    return ExitCode.taskFailed;
  }
  if (result.failedCharts.length > 0) {
    io.stderr.write(`${messages.chartsFailed(result.failedCharts)}\n`);
    return ExitCode.taskFailed;
  }
  return ExitCode.ok;
}

/** What the history recorded, and the `--compare-last` comparison on stdout. */
async function printHistory(record: HistoryRecord, out: CliWriter, ctx: CommandContext): Promise<void> {
  if (record.status === 'not-recorded') return;
  ctx.io.stderr.write(
    `History: run${record.runIds.length === 1 ? '' : 's'} ${record.runIds.join(', ')} appended to ${record.path}\n`,
  );
  if (record.status === 'no-previous-run') {
    out.write(`\n${messages.noPreviousRun(record.path)}\n`);
    if (record.nearest !== undefined)
      out.write(
        `${messages.previousRunDiffers(record.nearest.runId, formatDifferences(record.nearest.differences))}\n`,
      );
  }
  if (record.status === 'compared') {
    out.write('\n');
    await writeComparisons([record.comparison], { format: 'text' }, ctx, out);
  }
}

/** Model, engine and config of one variant on `out`; its summary too, unless the format is a document. */
function printVariant(
  outcome: VariantOutcome,
  { flat, format, out }: { flat: boolean; format: SummaryFormat; out: CliWriter },
): void {
  const { model, report } = outcome;
  if (!flat) out.write(`── ${report.runId ?? ''} ──\n`);
  if (model !== undefined) {
    out.write(`Model: ${model.description}\n`);
    out.write(`Engine: ${model.info.engine}, ${model.info.threads} threads, ${model.info.dtype}\n`);
  }
  out.write(`Config: ${describeConfig(outcome.config)}\n\n`);
  if (!DOCUMENT_FORMATS.has(format)) out.write(`${formatSummary([report], format, { warnings: false })}\n\n`);
  const profile = profileText(report);
  if (profile !== undefined) out.write(`${profile}\n\n`);
  const note =
    model?.randomWeights === true ? messages.randomWeightsNote(report.results.map((r) => r.task)) : undefined;
  if (note !== undefined) out.write(`${note}\n`);
}

/** The `profile` row of a report as a table (or why it is unavailable); `undefined` without a profile row. */
export function profileText(report: SuiteReport): string | undefined {
  const row = report.results.find((r) => r.task === 'profile');
  if (row === undefined || row.status !== 'completed') return undefined;
  const unavailable = row.meta?.['profile_unavailable'];
  if (typeof unavailable === 'string') return unavailable;
  const prompt = row.meta?.['profile_prompt'];
  return `Where the time goes (ONNX Runtime profiler, kernel time per operator category, prompt ${String(prompt)}):\n${formatTimeBreakdown(
    profileBreakdowns(row.metrics).map(({ phase, breakdown }) => ({ label: phase, breakdown })),
  )}`;
}

/** The sweep in one line, with the seed's snake_case names. */
function describeConfig(config: BenchmarkConfig): string {
  const entries = Object.entries(BenchmarkConfigApi.toSnakeCase(config)).filter(([k]) => k !== 'output_dir');
  return entries.map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`).join(' ');
}

/** A task metric of a report's row, when the row completed. */
function metric(report: SuiteReport, task: string, key: string): number | undefined {
  const row = report.results.find((r) => r.task === task && r.status === 'completed');
  const value = row?.metrics[key];
  return value === undefined || !Number.isFinite(value) ? undefined : value;
}

const ratio = (a: number | undefined, b: number | undefined): string | undefined =>
  a === undefined || b === undefined || b === 0 ? undefined : `${(a / b).toPrecision(3)}×`;

/**
 * What to do next: the report to open, the command that compares a later run with this one, and for a matrix one
 * line per variant against the first ("brown-q4: KLD 0.014 nats, top-1 90%, choice 39.4% (McNemar p 0.22)").
 */
export function nextSteps(plan: RunPlan, result: RunResult): string {
  const lines: string[] = [];
  if (result.files.includes('report.html'))
    lines.push(`Open: ${pathToFileURL(join(plan.dir, 'report.html')).href}`);
  lines.push(
    result.layout === 'repeat'
      ? `Compare later runs with these (every round on each side): dantinox compare ${plan.shownDir} -- <later --repeat folder>`
      : `Compare a later run with this one: dantinox compare ${plan.shownDir} <later run folder>`,
  );
  const [base, ...others] = result.rounds?.[0]?.reports ?? result.reports;
  if (base !== undefined && others.length > 0) {
    lines.push(`Against ${base.runId} (the first variant):`);
    for (const r of others) {
      const parts = [
        ratio(metric(r, 'throughput', 'peak_tps'), metric(base, 'throughput', 'peak_tps')),
        ratio(metric(r, 'latency', 'decode_tps'), metric(base, 'latency', 'decode_tps')),
      ];
      const kld = metric(r, 'kld', 'kld_mean');
      const top1 = metric(r, 'kld', 'top1_agreement');
      const choice = metric(r, 'choice', 'accuracy');
      const mcnemar = metric(r, 'choice', 'mcnemar_p');
      const said = [
        parts[0] === undefined ? undefined : `throughput ${parts[0]}`,
        parts[1] === undefined ? undefined : `decode ${parts[1]}`,
        kld === undefined ? undefined : `KLD ${kld.toPrecision(2)} nats`,
        top1 === undefined ? undefined : `top-1 ${(top1 * 100).toFixed(0)}%`,
        choice === undefined
          ? undefined
          : `choice ${(choice * 100).toFixed(1)}%${mcnemar === undefined ? '' : ` (McNemar p ${mcnemar.toPrecision(2)})`}`,
      ].filter((p) => p !== undefined);
      if (said.length > 0) lines.push(`  ${r.runId}: ${said.join(', ')}`);
    }
  }
  return `\n${lines.join('\n')}\n`;
}
