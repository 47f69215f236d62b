/**
 * `runMatrix`: runs the variants of a plan one after the other — each model built (or loaded), measured and
 * disposed before the next, so peak memory is one model — with resume, shards and progress hooks, then writes the
 * combined results, charts and report.html and records the history. What the CLI's `dantinox bench` runs.
 *
 * One variant without a shard keeps the classic flat layout (results.* in the folder); otherwise the folder (or its
 * `shard-<i>-of-<n>` folder) holds `matrix.json`, one sub-folder per variant and the combined files.
 *
 * @packageDocumentation
 */
import { join } from 'node:path';
import type { BenchmarkConfig } from '../benchmarking/config.js';
import type { GitState } from '../benchmarking/environment.js';
import type { Logger, LogLevel, TextWriter } from '../benchmarking/logger.js';
import type { MatrixVariant } from '../benchmarking/matrix/expand-matrix.js';
import {
  createMatrixManifest,
  isMatrixDirectory,
  readMatrixManifest,
  writeMatrixManifest,
} from '../benchmarking/matrix/matrix-manifest.js';
import { MatrixReport, runState, variantDir } from '../benchmarking/matrix/matrix-report.js';
import { type ShardSpec, shardVariants } from '../benchmarking/matrix/shard.js';
import type { SuiteReport } from '../benchmarking/report.js';
import { type Awaitable, fanOutHooks, type HookCalls } from '../benchmarking/result-sink.js';
import { DantinoxError } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import type { PluginRegistries } from '../plugin.js';
import type { BenchMatrix, SharedSelection } from './bench-matrix.js';
import { roundFolderName } from './output-dir.js';
import {
  type HistoryOptions,
  type HistoryRecord,
  recordHistory,
  variantHistoryRun,
} from './record-history.js';
import type { RunLock } from './run-lock.js';
import { writeMatrixCharts, writeRepeatCharts } from './run-outputs.js';
import { runVariant, type VariantOutcome, type VariantRunOptions } from './run-variant.js';
import { runVariantProcess } from './variant-process.js';

/** How a run calibrates the machine's ceilings. */
export interface CalibrationPlan {
  /** Time budget of a measurement, in ms. */
  readonly budgetMs: number;
  /** Measure even when this machine's ceilings are cached. */
  readonly recalibrate: boolean;
}

/** Everything {@link runMatrix} needs, checked (see `buildBenchMatrix`, `checkVariants`, `resolveShard`). */
export interface RunPlan {
  /** The matrix of the run. */
  readonly matrix: BenchMatrix;
  /** This process's shard, if any. */
  readonly shard: ShardSpec | undefined;
  /** Absolute folder this process writes (the shard folder when sharded). */
  readonly dir: string;
  /** The folder as the user should read it in messages (e.g. relative to the working directory). */
  readonly shownDir: string;
  /** Skip variants already completed in `dir` (with `repeat`: in each round's folder). */
  readonly resume: boolean;
  /**
   * Runs of each variant, interleaved in rounds — round 1 runs every variant once, round 2 every variant again… —
   * so that slow drift of the machine spreads over all variants; round `r` is a complete run in `dir/run-<r>/`.
   * @default 1
   */
  readonly repeat?: number;
  /** The round (1-based) this plan measures inside a repeated run; its run ids end in `-run-<round>`. */
  readonly round?: number;
  /** The shared benchmark config. */
  readonly config: BenchmarkConfig;
  /** Task names, in order. */
  readonly tasks: readonly string[];
  /** The task and chart registries (built-ins plus plugin ones). */
  readonly registries: PluginRegistries;
  /** Validation text for perplexity and kld (absolute path; absent: the Brown corpus). */
  readonly dataPath: string | undefined;
  /** Write charts and report.html. */
  readonly charts: boolean;
  /** Where warnings go. */
  readonly logger: Logger;
  /** Start time of the run. */
  readonly startedAt: Date;
  /** The command line, recorded in every environment block. */
  readonly commandLine: string;
  /** Directory relative model paths are resolved against. */
  readonly cwd: string;
  /** What every variant's model selection shares (execution provider, force, head dtype, block size, reference). */
  readonly shared: SharedSelection;
  /** The ceilings calibration before timing tasks (`undefined`: no calibration). */
  readonly calibration: CalibrationPlan | undefined;
  /** Where finished runs are recorded. */
  readonly history: HistoryOptions;
  /** Add the profile task (ONNX Runtime's time per operator category) after the other tasks. */
  readonly profile?: boolean;
  /**
   * Write each variant's `trace.json` (Chrome trace event format): dantinox's spans, and ONNX Runtime's kernel
   * events of the timed calls (engine `ort`).
   */
  readonly trace?: boolean;
  /**
   * Run each variant in a fresh Node.js process, so that its peak RSS and load figures are its own, not the high
   * water mark of the variants before it. Needs the plugins as module specifiers (`plugins`), which the process
   * loads again.
   */
  readonly isolate?: boolean;
  /** Module specifiers of the plugins behind `registries` (loaded again by a variant's own process). */
  readonly plugins?: readonly string[];
  /** Least severe level a variant's own process logs. @default 'warn' */
  readonly logLevel?: LogLevel;
  /** The git state of the source tree being measured, read when the run was planned. */
  readonly git?: GitState;
  /**
   * The folder's lock, taken by `planRun` and released when {@link runMatrix} ends (or the process exits): call
   * `release()` on a plan that is not run, so that the folder can be written again in this process.
   */
  readonly lock?: RunLock;
}

/** A variant about to run. */
export interface VariantStart {
  /** The variant. */
  readonly variant: MatrixVariant;
  /** 0-based position among the variants assigned to this process. */
  readonly index: number;
  /** Number of variants assigned to this process. */
  readonly total: number;
  /** Variants still to run, this one included. */
  readonly remaining: number;
  /** Estimated time for the remaining variants in ms, from the mean of those run so far (absent before the first). */
  readonly etaMs?: number;
}

/**
 * Progress of a {@link runMatrix} run. Every hook is optional and awaited; one that throws is logged as an error
 * and the run goes on (as a `ResultSink`).
 */
export interface RunHooks {
  /** Name used when a failing hook is reported. */
  readonly name?: string;
  /** A line of progress for a person (shard, resume, model build, calibration), ending in a newline. */
  onNote?(text: string): Awaitable<void>;
  /** A variant is about to be built and measured. */
  onVariantStart?(start: VariantStart): Awaitable<void>;
  /** A variant completed in an earlier run is skipped (resume). */
  onVariantSkipped?(start: VariantStart): Awaitable<void>;
  /** A variant finished (its model disposed). */
  onVariantEnd?(outcome: VariantOutcome): Awaitable<void>;
  /** A round of a repeated run (`repeat` > 1) is about to run every variant into its folder. */
  onRoundStart?(round: RoundStart): Awaitable<void>;
}

/** A round of a repeated run about to start. */
export interface RoundStart {
  /** 1-based round. */
  readonly round: number;
  /** Number of rounds (`repeat`). */
  readonly count: number;
  /** The round's folder (absolute). */
  readonly dir: string;
  /** The round's folder as messages show it. */
  readonly shownDir: string;
}

/** Options of {@link runMatrix}. */
export interface RunMatrixOptions {
  /** Progress hooks. */
  readonly hooks?: RunHooks | readonly RunHooks[];
  /** Stops the run after the current engine call; everything measured is still written. */
  readonly signal?: AbortSignal;
  /** Where each suite's live progress is drawn (absent: none). */
  readonly progress?: TextWriter;
}

/** What {@link runMatrix} did. */
export interface RunResult {
  /**
   * `completed`: every assigned variant ran (some may have failed tasks); `stopped`: the signal ended it early;
   * `nothing-to-do`: a resumed single run that was already complete; `empty-shard`: a shard with no variant.
   */
  readonly status: 'completed' | 'stopped' | 'nothing-to-do' | 'empty-shard';
  /**
   * `flat`: results.* directly in the folder; `matrix`: `matrix.json`, per-variant folders and combined files;
   * `repeat`: one folder per round (`run-1/`, `run-2/`, … each flat or matrix) and the report of all rounds.
   */
  readonly layout: 'flat' | 'matrix' | 'repeat';
  /** Each round's own result (its files relative to its folder), with `repeat` > 1; absent otherwise. */
  readonly rounds?: readonly RunResult[];
  /** The variants measured by this call, in order (round after round with `repeat`). */
  readonly variants: readonly VariantOutcome[];
  /** The reports the run's verdict is read from (the folder's variants, those of earlier runs included). */
  readonly reports: readonly SuiteReport[];
  /** Every file written, relative to the folder, results first. */
  readonly files: readonly string[];
  /** Charts that threw while rendering. */
  readonly failedCharts: readonly string[];
  /** Results files that could not be written, relative to the folder. */
  readonly missingResultFiles: readonly string[];
  /** Assigned variants that left no results (stopped before them); `run-<r>/<variant>` or `run-<r>` with `repeat`. */
  readonly notRun: readonly string[];
  /** `<run id> <task> (<status>)` of every task that did not complete (run id only with several reports). */
  readonly failedTasks: readonly string[];
  /** What the history recorded, per report (empty without a history, or when stopped). */
  readonly history: readonly HistoryRecord[];
}

/** Whether a plan writes the classic single-run layout (results.* directly in the folder). */
export function isFlatLayout(plan: Pick<RunPlan, 'matrix' | 'shard' | 'repeat'>): boolean {
  return !plan.matrix.isMatrix && plan.shard === undefined && (plan.repeat ?? 1) === 1;
}

/** Heavy modules, loaded only once a run really starts. */
async function loadRuntime() {
  const [{ RunDirectory }, { writeRunOutputs }] = await Promise.all([
    import('../benchmarking/run-directory.js'),
    import('./run-outputs.js'),
  ]);
  return { RunDirectory, writeRunOutputs };
}

type Hooks = HookCalls<RunHooks>;

/** Every hook of {@link RunHooks}, for {@link fanOutHooks}. */
const RUN_HOOKS = {
  onNote: true,
  onVariantStart: true,
  onVariantSkipped: true,
  onVariantEnd: true,
  onRoundStart: true,
} as const;

/**
 * Runs the plan: every assigned variant in turn (one model alive at a time), then the combined results, charts,
 * report.html and history. With `repeat` > 1, runs it in rounds — every variant once per round, each round a
 * complete run in `run-<r>/` — then the report of all rounds at the top, and records every round in the history.
 * Returns what happened as data; nothing is printed but through `hooks`.
 *
 * @example
 * ```ts
 * const plan = planRun({ dir: 'results/study', axes: { config: ['tiny'], dtype: ['fp32', 'q8'] }, repeat: 3 });
 * const result = await runMatrix(plan, { hooks: { onVariantEnd: (v) => console.log(v.variant.id) } });
 * ```
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when resuming finds a run of another matrix in the folder;
 * `IO` when files cannot be written; in the flat layout, the errors of building the model.
 */
export async function runMatrix(plan: RunPlan, options: RunMatrixOptions = {}): Promise<RunResult> {
  try {
    const hooks = fanOutHooks(options.hooks, plan.logger, RUN_HOOKS);
    const signal = options.signal ?? new AbortController().signal;
    const repeat = plan.repeat ?? 1;
    if (repeat > 1) return await runRounds(plan, repeat, hooks, signal, options.progress);
    const result = await runOnce(plan, hooks, signal, options.progress);
    return { ...result, history: await recordRounds(plan, [{ plan, result }]) };
  } finally {
    plan.lock?.release();
  }
}

/** A round's plan and what it did. */
interface Round {
  readonly plan: RunPlan;
  readonly result: RunResult;
}

/** Runs the rounds of a repeated run into `run-1/` … `run-<repeat>/`, then the report of all rounds at the top. */
async function runRounds(
  plan: RunPlan,
  repeat: number,
  hooks: Hooks,
  signal: AbortSignal,
  progress: TextWriter | undefined,
): Promise<RunResult> {
  const { repeat: _repeat, ...single } = plan;
  const rounds: Round[] = [];
  for (let round = 1; round <= repeat && !signal.aborted; round++) {
    const folder = roundFolderName(round);
    const roundPlan: RunPlan = {
      ...single,
      round,
      dir: join(plan.dir, folder),
      shownDir: join(plan.shownDir, folder),
      // Each round has its own start, so the history orders its runs; the first is the run's.
      startedAt: round === 1 ? plan.startedAt : new Date(),
      charts: false,
    };
    makeDirectory(roundPlan.dir);
    await hooks.onRoundStart({ round, count: repeat, dir: roundPlan.dir, shownDir: roundPlan.shownDir });
    rounds.push({ plan: roundPlan, result: await runOnce(roundPlan, hooks, signal, progress) });
  }
  const results = rounds.map((r) => r.result);
  const status = signal.aborted
    ? 'stopped'
    : results.every((r) => r.status === 'nothing-to-do')
      ? 'nothing-to-do'
      : 'completed';
  const reports = results.flatMap((r) => r.reports);
  const runtime = await loadRuntime();
  const written =
    plan.charts && reports.length > 0
      ? await writeRepeatCharts(
          reports,
          new runtime.RunDirectory(plan.dir),
          { logger: plan.logger, registry: plan.registries.charts },
          `${plan.matrix.variants.length} variant(s) × ${repeat} runs`,
        )
      : undefined;
  const inRound = (r: Round, items: readonly string[]) =>
    items.map((item) => `${roundFolderName(r.plan.round ?? 1)}/${item}`);
  const started = rounds.length;
  return {
    status,
    layout: 'repeat',
    rounds: results,
    variants: results.flatMap((r) => r.variants),
    reports,
    files: [...(written?.files ?? []), ...rounds.map((r) => `${roundFolderName(r.plan.round ?? 1)}/`)],
    failedCharts: written?.failedCharts ?? [],
    missingResultFiles: rounds.flatMap((r) => inRound(r, r.result.missingResultFiles)),
    notRun: [
      ...rounds.flatMap((r) => inRound(r, r.result.notRun)),
      ...Array.from({ length: repeat - started }, (_, i) => roundFolderName(started + i + 1)),
    ],
    failedTasks: failedTasks(reports),
    history:
      status === 'completed' && rounds.every((r) => r.result.missingResultFiles.length === 0)
        ? await recordRounds(plan, rounds)
        : [],
  };
}

/**
 * Records the measured runs of completed rounds in the history: each variant's runs together (one round each), so
 * that `compareLast` compares them with the same number of earlier runs of the variant.
 */
async function recordRounds(plan: RunPlan, rounds: readonly Round[]): Promise<HistoryRecord[]> {
  const done = rounds.filter(
    (r) => r.result.status === 'completed' && r.result.missingResultFiles.length === 0,
  );
  if (done.length < rounds.length) return [];
  const byVariant = new Map<string, SuiteReport[]>();
  for (const { plan: p, result } of done)
    for (const outcome of result.variants) {
      const report =
        result.layout === 'flat' ? outcome.report : variantHistoryRun(outcome.report, p.startedAt);
      byVariant.set(outcome.variant.id, [...(byVariant.get(outcome.variant.id) ?? []), report]);
    }
  const records: HistoryRecord[] = [];
  for (const runs of byVariant.values()) records.push(await recordHistory(runs, plan.history, plan.cwd));
  return records;
}

/** One run of the plan (or of one round): its variants, combined results and charts; no history. */
async function runOnce(
  plan: RunPlan,
  hooks: Hooks,
  signal: AbortSignal,
  progress: TextWriter | undefined,
): Promise<RunResult> {
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
  if (shard !== undefined)
    await hooks.onNote(
      `Shard ${shard.index}/${shard.count} (from ${shard.source}): ${assigned.length} of ${matrix.variants.length} variant(s).\n`,
    );
  if (plan.resume)
    await hooks.onNote(
      `--resume: ${done.size} of ${assigned.length} variant(s) already complete; unfinished or failed ones are rerun from the start (their cells are remeasured).\n`,
    );
  const empty = {
    variants: [],
    reports: [],
    missingResultFiles: [],
    notRun: [],
    failedTasks: [],
    history: [],
  };
  if (!flat && assigned.length === 0) {
    // A shard with nothing to run (more shards than variants) still leaves its folder for the merge.
    MatrixReport.fromDirectory(dir, assigned).save(dir);
    return { status: 'empty-shard', layout: 'matrix', files: [], failedCharts: [], ...empty };
  }
  const runtime = await loadRuntime();
  const outcomes: VariantOutcome[] = [];
  const timings: number[] = [];
  for (const [index, variant] of assigned.entries()) {
    const remaining = assigned.slice(index).filter((v) => !done.has(v.id)).length;
    const mean = timings.length === 0 ? undefined : timings.reduce((a, b) => a + b, 0) / timings.length;
    const start: VariantStart = {
      variant,
      index,
      total: assigned.length,
      remaining,
      ...(mean === undefined ? {} : { etaMs: mean * remaining }),
    };
    if (done.has(variant.id)) {
      await hooks.onVariantSkipped(start);
      continue;
    }
    if (signal.aborted) break;
    await hooks.onVariantStart(start);
    const t0 = Date.now();
    const variantOptions: VariantRunOptions = {
      folder: folderOf(variant),
      flat,
      signal,
      note: (text) => void hooks.onNote(text),
      ...(progress === undefined ? {} : { progress }),
    };
    const outcome =
      plan.isolate === true && !flat
        ? await runVariantProcess(plan, variant, variantOptions)
        : await runVariant(plan, variant, variantOptions);
    timings.push(Date.now() - t0);
    outcomes.push(outcome);
    await hooks.onVariantEnd(outcome);
  }
  const status = signal.aborted ? 'stopped' : 'completed';
  if (flat) {
    const outcome = outcomes[0];
    if (outcome === undefined) {
      const earlier = done.size > 0 ? [runtime.RunDirectory.load(dir)] : [];
      return {
        status: done.size > 0 ? 'nothing-to-do' : status,
        layout: 'flat',
        files: [],
        failedCharts: [],
        ...empty,
        reports: earlier,
        notRun: done.size > 0 ? [] : assigned.map((v) => v.id),
      };
    }
    const runDir = new runtime.RunDirectory(dir);
    const missingResultFiles = runDir.missingResultFiles();
    // Results that could not be written (a full disk): no charts or report.html drawn from nothing saved.
    const written = await runtime.writeRunOutputs(outcome.report, runDir, {
      charts: plan.charts && missingResultFiles.length === 0,
      logger: plan.logger,
      registry: plan.registries.charts,
    });
    return {
      status,
      layout: 'flat',
      variants: outcomes,
      reports: [outcome.report],
      ...written,
      missingResultFiles,
      notRun: [],
      failedTasks: failedTasks([outcome.report]),
      history: [],
    };
  }
  const combined = MatrixReport.fromDirectory(dir, assigned, (note) => void hooks.onNote(`note: ${note}\n`));
  const files = [...combined.save(dir), 'matrix.json'];
  const written = plan.charts
    ? await writeMatrixCharts(
        combined,
        new runtime.RunDirectory(dir),
        { logger: plan.logger, registry: plan.registries.charts },
        `${assigned.length} variant(s)`,
      )
    : undefined;
  const reports = combined.variants.map((v) => v.report);
  return {
    status,
    layout: 'matrix',
    variants: outcomes,
    reports,
    files: [...files, ...(written?.files ?? []), ...assigned.map((v) => `${v.id}/`)],
    failedCharts: written?.failedCharts ?? [],
    missingResultFiles: [],
    notRun: assigned.filter((v) => !combined.variants.some((c) => c.id === v.id)).map((v) => v.id),
    failedTasks: failedTasks(reports),
    history: [],
  };
}

/** `<run id> <task> (<status>)` of every task that did not complete (the run id only with several reports). */
function failedTasks(reports: readonly SuiteReport[]): string[] {
  return reports.flatMap((r) =>
    r.results
      .filter((t) => t.status !== 'completed')
      .map((t) => `${reports.length > 1 ? `${r.runId} ` : ''}${t.task} (${t.status})`),
  );
}

function createManifest(plan: RunPlan, assigned: readonly MatrixVariant[]) {
  return createMatrixManifest(plan.matrix.definition, plan.matrix.variants, plan.shard ?? null, assigned);
}
