/**
 * Runs the variants of a `dantinox bench` command one after the other — each model built (or loaded), measured
 * and disposed before the next, so peak memory is one model — with `--resume`, shards, `[3/12] id` progress
 * and an ETA, then writes the combined results, charts and report.html.
 *
 * One variant without a shard keeps the classic flat layout (results.* in `--out`); otherwise `--out` (or its
 * `shard-<i>-of-<n>` folder) holds `matrix.json`, one sub-folder per variant and the combined files.
 *
 * @packageDocumentation
 */
import type { BenchmarkConfig } from '../benchmarking/config.js';
import { BenchmarkConfig as BenchmarkConfigApi } from '../benchmarking/config.js';
import type { Calibration, Logger, RunDirectory } from '../benchmarking/index.js';
import type { MatrixVariant } from '../benchmarking/matrix/expand-matrix.js';
import {
  createMatrixManifest,
  isMatrixDirectory,
  readMatrixManifest,
  writeMatrixManifest,
} from '../benchmarking/matrix/matrix-manifest.js';
import { MatrixReport, runState, variantDir } from '../benchmarking/matrix/matrix-report.js';
import { type ShardSpec, shardVariants } from '../benchmarking/matrix/shard.js';
import { SuiteReport } from '../benchmarking/report.js';
import { ProfileTask, profileBreakdowns } from '../benchmarking/tasks/profile-task.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { PluginRegistries } from '../plugin.js';
import { formatTimeBreakdown } from '../profiling/op-time-breakdown.js';
import { type BenchMatrix, type SharedSelection, variantConfig, variantSelection } from './bench-matrix.js';
import { runCalibration } from './calibration-step.js';
import type { CliIo } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-code.js';
import { type HistoryCliOptions, recordHistory } from './history-options.js';
import { type StopSignal, watchInterrupts } from './interrupts.js';
import { underLauncher } from './malloc-tuning.js';
import type { OpenedModel } from './open-model.js';
import { timestampName } from './output-dir.js';
import { type RunOutputOptions, type RunOutputs, writeChartsAndReport } from './run-outputs.js';

/** Everything {@link runBenchMatrix} needs, checked. */
export interface BenchRunPlan {
  /** The matrix of the command. */
  readonly matrix: BenchMatrix;
  /** This process's shard, if any. */
  readonly shard: ShardSpec | undefined;
  /** Absolute folder this process writes (the shard folder when sharded). */
  readonly dir: string;
  /** The folder as the user should read it (relative to the working directory when it was given so). */
  readonly shownDir: string;
  /** Skip variants already completed in `dir`. */
  readonly resume: boolean;
  /** The shared benchmark config. */
  readonly config: BenchmarkConfig;
  /** Task names, in order. */
  readonly tasks: readonly string[];
  /** The task and chart registries (built-ins plus `--plugin` ones). */
  readonly registries: PluginRegistries;
  /** `--data` path (absolute). */
  readonly dataPath: string | undefined;
  /** Write charts and report.html. */
  readonly charts: boolean;
  /** No progress on stderr. */
  readonly quiet: boolean;
  /** Where warnings go. */
  readonly logger: Logger;
  /** Start time of the command. */
  readonly startedAt: Date;
  /** The command line, recorded in every environment block. */
  readonly commandLine: string;
  /** Directory relative model paths are resolved against. */
  readonly cwd: string;
  /** What every variant's model selection shares: `--ep`, `--force`, `--head-dtype`, `--block-size`, `--reference`. */
  readonly shared: SharedSelection;
  /** The ceilings calibration before timing tasks (`undefined`: `--no-calibrate`). */
  readonly calibration: { readonly budgetMs: number; readonly recalibrate: boolean } | undefined;
  /** `--history` / `--compare-last`: where finished runs are recorded. */
  readonly history: HistoryCliOptions;
  /** `--profile`: add the profile task (ONNX Runtime's time per operator category) after the other tasks. */
  readonly profile?: boolean;
}

/** Whether this command writes the classic single-run layout (results.* directly in the folder). */
export function isFlatLayout(plan: Pick<BenchRunPlan, 'matrix' | 'shard'>): boolean {
  return !plan.matrix.isMatrix && plan.shard === undefined;
}

/** `4 min 10 s`, `35 s`. */
function formatEta(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Heavy modules, loaded only once the arguments are known to be valid. */
async function loadRuntime() {
  const [{ BenchmarkSuite, RunDirectory }, { openModel, openReference, opProfiler }] = await Promise.all([
    import('../benchmarking/index.js'),
    import('./open-model.js'),
  ]);
  return { BenchmarkSuite, RunDirectory, openModel, openReference, opProfiler };
}

/** One variant's outcome. */
interface VariantOutcome {
  readonly report: SuiteReport;
  readonly config: BenchmarkConfig;
  readonly opened?: OpenedModel;
}

/**
 * Runs the plan and prints the summaries; resolves to the exit code (1 when a task or variant did not
 * complete or a chart failed).
 *
 * @throws {@link DantinoxError} `INVALID_OPTION` when `--resume` finds a run of another matrix in the folder;
 * `IO` when files cannot be written; in the flat layout, the errors of building the model.
 */
export async function runBenchMatrix(plan: BenchRunPlan, ctx: CommandContext): Promise<ExitCode> {
  const { io } = ctx;
  const flat = isFlatLayout(plan);
  const { matrix, shard, dir } = plan;
  const assigned = shardVariants(matrix.variants, shard);
  if (!flat) {
    if (
      plan.resume &&
      isMatrixDirectory(dir) &&
      readMatrixManifest(dir).key !== createManifest(plan, assigned).key
    )
      throw new DantinoxError('INVALID_OPTION', messages.resumeMismatch(plan.shownDir));
    writeMatrixManifest(dir, createManifest(plan, assigned));
  }
  const folderOf = (v: MatrixVariant): string => (flat ? dir : variantDir(dir, v.id));
  const done = new Set(
    plan.resume ? assigned.filter((v) => runState(folderOf(v)) === 'completed').map((v) => v.id) : [],
  );
  const say = (text: string): void => {
    if (!plan.quiet) io.stderr.write(text);
  };
  if (shard !== undefined)
    say(
      `Shard ${shard.index}/${shard.count} (from ${shard.source}): ${assigned.length} of ${matrix.variants.length} variant(s).\n`,
    );
  if (plan.resume)
    say(
      `--resume: ${done.size} of ${assigned.length} variant(s) already complete; unfinished or failed ones are rerun from the start (their cells are remeasured).\n`,
    );

  if (!flat && assigned.length === 0) {
    // A shard with nothing to run (more shards than variants) still leaves its folder for the merge.
    MatrixReport.fromDirectory(dir, assigned).save(dir);
    io.stdout.write(`Nothing to run in this shard: ${plan.shownDir} records it for the merge.\n`);
    return ExitCode.ok;
  }
  const runtime = await loadRuntime();
  const interrupts = watchInterrupts({ stderr: io.stderr, underLauncher: underLauncher() });
  const outcomes: VariantOutcome[] = [];
  const timings: number[] = [];
  try {
    for (const [k, variant] of assigned.entries()) {
      const label = `Variant [${k + 1}/${assigned.length}] ${variant.id}`;
      if (done.has(variant.id)) {
        say(`${label}: complete in an earlier run, skipped (--resume)\n`);
        continue;
      }
      if (interrupts.signal.aborted) break;
      const todo = assigned.slice(k).filter((v) => !done.has(v.id)).length;
      const mean = timings.length === 0 ? undefined : timings.reduce((a, b) => a + b, 0) / timings.length;
      if (!flat)
        say(
          `${label}${mean === undefined ? '' : ` (ETA ${formatEta(mean * todo)} for ${todo} variant(s))`}\n`,
        );
      const t0 = Date.now();
      outcomes.push(await runVariant(plan, variant, folderOf(variant), runtime, interrupts.signal, io, flat));
      timings.push(Date.now() - t0);
    }
  } finally {
    interrupts.dispose();
  }
  const stoppedBy = interrupts.received();
  if (flat) {
    const outcome = outcomes[0];
    if (outcome === undefined) {
      io.stdout.write(`Nothing to do: ${plan.shownDir} already holds a complete run (--resume).\n`);
      return ExitCode.ok;
    }
    const { writeRunOutputs } = await import('./run-outputs.js');
    const runDir = new runtime.RunDirectory(dir);
    const written = await writeRunOutputs(outcome.report, runDir, {
      charts: plan.charts,
      logger: plan.logger,
      registry: plan.registries.charts,
    });
    printVariant(outcome, plan, io);
    const missing = runDir.missingResultFiles();
    if (missing.length > 0) {
      io.stdout.write(`Results: ${plan.shownDir}\n  ${written.files.join('\n  ')}\n`);
      io.stderr.write(`${messages.resultsNotWritten(missing)}\n`);
      return ExitCode.taskFailed;
    }
    if (stoppedBy === undefined) await recordHistory(outcome.report, plan.history, ctx);
    return finish([outcome.report], written, plan, io, stoppedBy);
  }
  const combined = MatrixReport.fromDirectory(dir, assigned);
  const files = [...combined.save(dir), 'matrix.json'];
  const written = plan.charts
    ? await writeMatrixCharts(
        combined,
        new runtime.RunDirectory(dir),
        { logger: plan.logger, registry: plan.registries.charts },
        `${assigned.length} variant(s)`,
      )
    : undefined;
  for (const outcome of outcomes) printVariant(outcome, plan, io);
  const missing = assigned.filter((v) => !combined.variants.some((c) => c.id === v.id)).map((v) => v.id);
  if (missing.length > 0) io.stderr.write(`${messages.variantsNotRun(missing)}\n`);
  if (stoppedBy === undefined)
    for (const outcome of outcomes)
      await recordHistory(historyReport(outcome.report, plan), plan.history, ctx);
  return finish(
    combined.variants.map((v) => v.report),
    {
      files: [...files, ...(written?.files ?? []), ...assigned.map((v) => `${v.id}/`)],
      failedCharts: written?.failedCharts ?? [],
    },
    plan,
    io,
    stoppedBy,
  );
}

/**
 * A variant's report as the history records it: the variant id is the same in every run of a matrix, so the run
 * id gets the command's start time (`small-t2-20261130-161400`) to stay unique.
 */
function historyReport(report: SuiteReport, plan: BenchRunPlan): SuiteReport {
  const runId = `${report.runId ?? 'variant'}-${timestampName(plan.startedAt)}`;
  return new SuiteReport({
    results: report.results,
    modelMeta: { ...report.modelMeta, run_id: runId },
    totalTimeS: report.totalTimeS,
    ...(report.environment === undefined ? {} : { environment: report.environment }),
    runId,
    descriptors: report.descriptors,
  });
}

function createManifest(plan: BenchRunPlan, assigned: readonly MatrixVariant[]) {
  return createMatrixManifest(plan.matrix.definition, plan.matrix.variants, plan.shard ?? null, assigned);
}

/** Builds, measures and disposes one variant; in a matrix a model that fails to build becomes failed rows. */
async function runVariant(
  plan: BenchRunPlan,
  variant: MatrixVariant,
  folder: string,
  runtime: Awaited<ReturnType<typeof loadRuntime>>,
  signal: AbortSignal,
  io: CliIo,
  flat: boolean,
): Promise<VariantOutcome> {
  const config = variantConfig(variant, plan.config);
  const selection = variantSelection(variant, plan.config, plan.shared);
  // The kld task's reference is this variant's: its fp32 model (or --reference), opened only if kld runs.
  const tasks = plan.registries.tasks.create(plan.tasks, {
    ...(plan.dataPath === undefined ? {} : { data: plan.dataPath }),
    reference: () => runtime.openReference(selection, plan.cwd),
  });
  if (plan.profile === true)
    tasks.push(new ProfileTask({ profiler: runtime.opProfiler(selection, plan.cwd) }));
  if (!plan.quiet) io.stderr.write('Building the model…\n');
  let opened: OpenedModel;
  try {
    opened = await runtime.openModel(selection, plan.cwd);
  } catch (error) {
    if (flat) throw error;
    const message = error instanceof Error ? error.message : String(error);
    plan.logger.log('error', `variant ${variant.id}: the model could not be built: ${message}`);
    const report = new SuiteReport({
      results: tasks.map((t) => ({
        task: t.name,
        status: 'failed' as const,
        error: `model not built: ${message}`,
        metrics: {},
      })),
      modelMeta: { model: variant.id, run_id: variant.id },
      runId: variant.id,
    });
    const files = new runtime.RunDirectory(folder);
    report.save(files.csvPath);
    report.save(files.jsonPath);
    return { report, config };
  }
  try {
    const calibration = await calibrationFor(plan, opened.model.info, io);
    const suite = new runtime.BenchmarkSuite({ tasks, config });
    const report = await suite.run(opened.paradigm, opened.model, {
      runId: flat ? `${opened.model.info.name}-${timestampName(plan.startedAt)}` : variant.id,
      jsonl: false,
      sinks: new runtime.RunDirectory(folder).sinks(),
      ...(plan.quiet ? {} : { writer: io.stderr }),
      progress: 'auto',
      logger: plan.logger,
      signal,
      startedAt: plan.startedAt,
      commandLine: plan.commandLine,
      ...(calibration === undefined ? {} : { calibration }),
    });
    return { report, opened, config };
  } finally {
    await opened.model.dispose();
  }
}

/** The combined charts and report.html of a matrix folder: one series per variant. */
export async function writeMatrixCharts(
  combined: MatrixReport,
  dir: RunDirectory,
  options: Pick<RunOutputOptions, 'logger' | 'registry'>,
  what: string,
): Promise<RunOutputs> {
  return writeChartsAndReport(
    {
      rows: combined.toRows(),
      runs: combined.toRuns(),
      runName: 'matrix',
      title: `dantinox bench: ${what}`,
    },
    dir,
    options,
  );
}

/** Model, engine, config and summary of one variant, on stdout. */
function printVariant(outcome: VariantOutcome, plan: BenchRunPlan, io: CliIo): void {
  const { opened, report } = outcome;
  const out = io.stdout;
  if (!isFlatLayout(plan)) out.write(`── ${report.runId ?? ''} ──\n`);
  if (opened !== undefined) {
    out.write(`Model: ${opened.description}\n`);
    out.write(
      `Engine: ${opened.model.info.engine}, ${opened.model.info.threads} threads, ${opened.model.info.dtype}\n`,
    );
  }
  out.write(`Config: ${describeConfig(outcome.config)}\n\n`);
  out.write(`${report.summary()}\n\n`);
  const profile = profileText(report);
  if (profile !== undefined) out.write(`${profile}\n\n`);
  if (opened?.randomWeights === true) {
    out.write(`${messages.randomWeightsNote()}\n`);
  }
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

/** Prints where the results are and decides the exit code (130/143 when a signal stopped the run). */
function finish(
  reports: readonly SuiteReport[],
  written: RunOutputs,
  plan: BenchRunPlan,
  io: CliIo,
  stoppedBy: StopSignal | undefined,
): ExitCode {
  io.stdout.write(`Results: ${plan.shownDir}\n  ${written.files.join('\n  ')}\n`);
  if (stoppedBy !== undefined) {
    io.stderr.write(`${messages.benchStopped(stoppedBy)}\n`);
    return stoppedBy === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
  }
  const failed = reports.flatMap((r) =>
    r.results
      .filter((t) => t.status !== 'completed')
      .map((t) => `${reports.length > 1 ? `${r.runId} ` : ''}${t.task} (${t.status})`),
  );
  if (failed.length > 0) {
    io.stderr.write(`${messages.tasksIncomplete(failed)}\n`);
    return ExitCode.taskFailed;
  }
  if (written.failedCharts.length > 0) {
    io.stderr.write(`${messages.chartsFailed(written.failedCharts)}\n`);
    return ExitCode.taskFailed;
  }
  return ExitCode.ok;
}

/** The machine's ceilings for MFU/MBU when a timing task runs and the calibration is on (cached per engine and threads). */
async function calibrationFor(
  plan: BenchRunPlan,
  info: { readonly threads: number; readonly engine: string },
  io: CliIo,
): Promise<Calibration | undefined> {
  if (plan.calibration === undefined || !plan.tasks.some((t) => t === 'throughput' || t === 'latency'))
    return undefined;
  const outcome = await runCalibration({
    threads: info.threads,
    engine: info.engine,
    budgetMs: plan.calibration.budgetMs,
    logger: plan.logger,
    ...(plan.quiet ? {} : { notes: io.stderr }),
    ...(plan.calibration.recalibrate ? { recalibrate: true } : {}),
  });
  return outcome.calibration;
}

/** The sweep in one line, with the seed's snake_case names. */
function describeConfig(config: BenchmarkConfig): string {
  const entries = Object.entries(BenchmarkConfigApi.toSnakeCase(config)).filter(([k]) => k !== 'output_dir');
  return entries.map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`).join(' ');
}
