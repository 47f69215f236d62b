/**
 * One variant of a run: its model built (or loaded), measured by the plan's tasks into its folder, and disposed —
 * in this process, or in a fresh one (see `variant-process.ts`) so that its memory figures are its own.
 *
 * @packageDocumentation
 */
import type { Calibration } from '../benchmarking/calibration.js';
import type { BenchmarkConfig } from '../benchmarking/config.js';
import type { TextWriter } from '../benchmarking/logger.js';
import type { MatrixVariant } from '../benchmarking/matrix/expand-matrix.js';
import { SuiteReport } from '../benchmarking/report.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import { ProfileTask } from '../benchmarking/tasks/profile-task.js';
import { errorText } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelInfo } from '../models/model.js';
import type { ModelSelection } from '../models/model-selection.js';
import { hrtimeClock } from '../profiling/index.js';
import { variantConfig, variantSelection } from './bench-matrix.js';
import { runCalibration } from './calibration-step.js';
import type { OpenedModel } from './open-model.js';
import { timestampName } from './output-dir.js';
import type { ProfilerOverhead } from './profiler-overhead.js';
import type { RunPlan } from './run-matrix.js';
import { callCostsOf, finishTrace, profilerOverheadOf } from './trace-operators.js';
import { tracedModel } from './traced-model.js';
import { startVariantTrace } from './variant-trace.js';

/** One measured variant. */
export interface VariantOutcome {
  /** The variant. */
  readonly variant: MatrixVariant;
  /** Its report (failed rows when the model could not be built). */
  readonly report: SuiteReport;
  /** Its benchmark config (the shared one with the variant's threads). */
  readonly config: BenchmarkConfig;
  /** The model that ran (absent when it could not be built); it is disposed. */
  readonly model?: {
    /** Name, origin, architecture and whether its weights are trained. */
    readonly description: string;
    /** Engine, threads, dtype… */
    readonly info: ModelInfo;
    /** Whether the weights are a seeded random initialisation. */
    readonly randomWeights: boolean;
  };
}

/** How one variant runs: where it writes, what stops it, where its progress goes. */
export interface VariantRunOptions {
  /** The variant's folder (the run folder itself in the flat layout). */
  readonly folder: string;
  /** The flat layout: a model that fails to build throws instead of becoming failed rows. */
  readonly flat: boolean;
  /** Stops the suite after the current engine call. */
  readonly signal: AbortSignal;
  /** Receives progress lines for a person. */
  readonly note: (text: string) => void;
  /** Where the suite's live progress is drawn (absent: none). */
  readonly progress?: TextWriter;
}

/** Heavy modules, loaded only once a variant really runs. */
async function loadRuntime() {
  const [{ BenchmarkSuite, RunDirectory }, { openModel, openReference, opProfiler }] = await Promise.all([
    import('../benchmarking/index.js'),
    import('./open-model.js'),
  ]);
  return { BenchmarkSuite, RunDirectory, openModel, openReference, opProfiler };
}

/**
 * Builds, measures and disposes one variant in this process; in a matrix a model that fails to build becomes failed
 * rows of the variant.
 *
 * @throws in the flat layout, the errors of building the model.
 */
export async function runVariant(
  plan: RunPlan,
  variant: MatrixVariant,
  options: VariantRunOptions,
): Promise<VariantOutcome> {
  const runtime = await loadRuntime();
  const { folder, flat } = options;
  const config = variantConfig(variant, plan.config);
  const selection = variantSelection(variant, plan.config, plan.shared);
  // The kld task's reference is this variant's: its fp32 model (or the reference folder), opened only if kld runs.
  const tasks = plan.registries.tasks.create(plan.tasks, {
    ...(plan.dataPath === undefined ? {} : { data: plan.dataPath }),
    reference: () => runtime.openReference(selection, plan.cwd),
  });
  if (plan.profile === true)
    tasks.push(new ProfileTask({ profiler: runtime.opProfiler(selection, plan.cwd) }));
  options.note('Building the model…\n');
  const trace = plan.trace === true ? startVariantTrace(selection.engine ?? 'ort') : undefined;
  let opened: OpenedModel;
  try {
    opened = await runtime.openModel(
      selection,
      plan.cwd,
      trace?.profileFilePrefix === undefined ? {} : { profileFilePrefix: trace.profileFilePrefix },
    );
  } catch (error) {
    trace?.discard();
    if (flat) throw error;
    const message = errorText(error);
    plan.logger.log('error', `variant ${variant.id}: the model could not be built: ${message}`);
    const report = failedReport(
      tasks.map((t) => t.name),
      variant,
      folder,
      `model not built: ${message}`,
    );
    return { variant, report, config };
  }
  let report: SuiteReport | undefined;
  let calibration: Calibration | undefined;
  let overhead: ProfilerOverhead | undefined;
  const costs = trace === undefined ? undefined : callCostsOf(opened.model);
  try {
    const ceilings = await calibrationFor(plan, selection, opened.model.info, options.note);
    if (ceilings !== undefined && 'calibration' in ceilings) calibration = ceilings.calibration;
    const suite = new runtime.BenchmarkSuite({ tasks, config });
    const model = trace === undefined ? opened.model : tracedModel(opened.model, trace.recorder);
    report = await suite.run(opened.paradigm, model, {
      runId: `${flat ? `${opened.model.info.name}-${timestampName(plan.startedAt)}` : variant.id}${plan.round === undefined ? '' : `-run-${plan.round}`}`,
      jsonl: false,
      sinks: new runtime.RunDirectory(folder).sinks(),
      ...(options.progress === undefined ? {} : { writer: options.progress }),
      // --verbose (debug logging): a line for every cell, e.g. each perplexity batch.
      progress: plan.logLevel === 'debug' ? 'every' : 'auto',
      logger: plan.logger,
      signal: options.signal,
      startedAt: plan.startedAt,
      commandLine: plan.commandLine,
      identity: { weights: opened.weights },
      ...(plan.git === undefined ? {} : { git: plan.git }),
      ...(trace === undefined ? {} : { clock: hrtimeClock, tracer: trace.recorder }),
      ...(ceilings === undefined
        ? {}
        : 'calibration' in ceilings
          ? { calibration: ceilings.calibration }
          : { efficiencyUnavailable: ceilings.unavailable }),
    });
    // The overhead needs a second instance of the model: on Node only (a browser page per model is another story).
    const profiled = trace?.profileFilePrefix !== undefined && selection.target !== 'browser';
    if (profiled && !options.signal.aborted) {
      options.note('Measuring the profiler overhead…\n');
      try {
        overhead = await profilerOverheadOf(model, opened.paradigm, config, async () => {
          return (await runtime.openModel(selection, plan.cwd)).model;
        });
      } catch (error) {
        plan.logger.log('warn', messages.profilerOverheadNotMeasured(variant.id, errorText(error)));
      }
    }
  } finally {
    await opened.model.dispose();
    // Disposing wrote ONNX Runtime's profile: the trace can be assembled now.
    if (trace !== undefined) {
      try {
        const finished = await finishTrace({
          trace,
          folder,
          name: variant.id,
          ...(report === undefined ? {} : { report }),
          ...(costs === undefined ? {} : { costs }),
          ...(calibration === undefined ? {} : { calibration }),
          dtype: opened.model.info.dtype,
          ...(overhead === undefined ? {} : { overhead }),
          threads: opened.model.info.threads,
        });
        report = finished.report;
        for (const file of finished.files)
          options.note(`${file.endsWith('.csv') ? 'Operators' : 'Trace'}: ${file}\n`);
      } catch (error) {
        plan.logger.log('warn', messages.traceNotWritten(variant.id, errorText(error)));
      }
    }
  }
  return {
    variant,
    report: report as SuiteReport,
    config,
    model: {
      description: opened.description,
      info: opened.model.info,
      randomWeights: opened.randomWeights,
    },
  };
}

/**
 * The machine's ceilings for MFU/MBU when a timing task runs: one calibration per machine and thread count, shared by
 * every engine (its probes are ONNX Runtime CPU kernels) — or why there is none, recorded as `mfu_unavailable` and
 * `mbu_unavailable`.
 */
async function calibrationFor(
  plan: RunPlan,
  selection: ModelSelection,
  info: { readonly threads: number },
  note: (text: string) => void,
): Promise<{ readonly calibration: Calibration } | { readonly unavailable: string } | undefined> {
  if (!plan.tasks.some((t) => t === 'throughput' || t === 'latency')) return undefined;
  if (plan.calibration === undefined) return { unavailable: messages.noCalibration() };
  if (selection.target === 'browser') return { unavailable: messages.ceilingsNotInBrowser() };
  const provider = selection.executionProvider ?? 'cpu';
  if (provider !== 'cpu') return { unavailable: messages.ceilingsCpuOnly(provider) };
  const outcome = await runCalibration({
    threads: info.threads,
    budgetMs: plan.calibration.budgetMs,
    logger: plan.logger,
    notes: { write: note },
    ...(plan.calibration.recalibrate ? { recalibrate: true } : {}),
  });
  return { calibration: outcome.calibration };
}

/** The report of a variant that measured nothing: one failed row per task with `error`, saved in its folder. */
export function failedReport(
  tasks: readonly string[],
  variant: MatrixVariant,
  folder: string,
  error: string,
): SuiteReport {
  const files = new RunDirectory(folder);
  const report = new SuiteReport({
    results: tasks.map((task) => ({ task, status: 'failed' as const, error, metrics: {} })),
    modelMeta: { model: variant.id, run_id: variant.id },
    runId: variant.id,
  });
  report.save(files.csvPath);
  report.save(files.jsonPath);
  return report;
}
