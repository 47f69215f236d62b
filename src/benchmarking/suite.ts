/**
 * `BenchmarkSuite`: runs tasks in order on one model, each with its own split of the seeded generator, turns a
 * throwing task into a failed row and goes on, streams every finished cell to a JSONL file, shows progress, and
 * returns a {@link SuiteReport}.
 *
 * @packageDocumentation
 */
import os from 'node:os';
import { join } from 'node:path';
import { DantinoxError, errorText } from '../errors.js';
import { messages } from '../messages.js';
import type { Model } from '../models/model.js';
import type { Paradigm } from '../models/paradigm.js';
import {
  type Clock,
  calibrateTimer,
  hrtimeClock,
  readRss,
  resetPeakRss,
  type TraceRecorder,
} from '../profiling/index.js';
import { Rng } from '../rng.js';
import type { Calibration } from './calibration.js';
import { BenchmarkConfig, type BenchmarkConfigInput } from './config.js';
import { efficiencyIdentity, withEfficiency } from './efficiency-columns.js';
import type { GitState } from './environment.js';
import { collectEnvironment, othersCpus, readCpuMhz, readCpuTimes } from './environment.js';
import { JsonlSink } from './jsonl-sink.js';
import { createWriterLogger, type Logger, type TextWriter } from './logger.js';
import { partialResult } from './partial-result.js';
import { createProgress, type ProgressMode } from './progress.js';
import { SuiteReport } from './report.js';
import { ReportFileSink } from './report-file-sink.js';
import { fanOutSinks, type ResultSink } from './result-sink.js';
import type {
  BenchmarkContext,
  BenchmarkResult,
  BenchmarkTask,
  CellRecord,
  MetaValue,
  MetricDescriptor,
} from './task.js';
import { createTaskRegistry, DEFAULT_TASKS } from './task-registry.js';
import { type TaskWatch, watchTask } from './task-watchdog.js';
import { ThroughputTask } from './tasks/throughput-task.js';

/** Options of {@link BenchmarkSuite.run}. */
export interface SuiteRunOptions {
  /**
   * Where results go as they appear, in order, after the sinks that `jsonl`, `saveCsv` and `saveJson` create. A
   * sink that throws is logged and the run goes on.
   * @default []
   */
  readonly sinks?: readonly ResultSink[];
  /** Write the CSV report here (`true` → `{outDir}/{runId}.csv`): a {@link ReportFileSink}. @default undefined (no CSV) */
  readonly saveCsv?: string | boolean;
  /** Write the JSON report here (`true` → `{outDir}/{runId}.json`): a {@link ReportFileSink}. @default undefined (no JSON) */
  readonly saveJson?: string | boolean;
  /** Directory of the JSONL stream and of `true` report paths. @default config.outputDir */
  readonly outDir?: string;
  /** JSONL stream path ({@link JsonlSink}), `true` for `{outDir}/{runId}.jsonl`, `false` for none. @default true */
  readonly jsonl?: string | boolean;
  /** Progress display. @default 'auto' (a live bar when `writer` is a TTY, plain lines otherwise) */
  readonly progress?: ProgressMode;
  /** Where progress goes (the CLI passes `process.stderr`). @default undefined (no progress output) */
  readonly writer?: TextWriter;
  /** Where warnings and sink failures go. @default warnings and errors on stderr */
  readonly logger?: Logger;
  /** Stops the run between cells; the current task becomes failed, the rest skipped. */
  readonly signal?: AbortSignal;
  /** Clock of all timing. @default hrtimeClock */
  readonly clock?: Clock;
  /**
   * Records each task, cell, warm-up and timed call as trace spans (`bench --trace`); use the same clock.
   * @default undefined (no trace)
   */
  readonly tracer?: TraceRecorder;
  /** Run id (JSONL/report file stem and `run_id` column). @default `{model}-{ISO time}` */
  readonly runId?: string;
  /** Start time recorded in the environment. @default new Date() */
  readonly startedAt?: Date;
  /** Command line recorded in the environment. @default process.argv */
  readonly commandLine?: string;
  /** Re-throw the first task error instead of recording a failed row. @default false */
  readonly throwOnError?: boolean;
  /** This machine's ceilings ({@link loadOrCalibrate}): recorded in the environment, and MFU/MBU computed against them. */
  readonly calibration?: Calibration;
  /** The git state of the measured source tree (recorded in the environment, and by the history). */
  readonly git?: GitState;
  /** Why the run has no calibration (recorded as `mfu_unavailable` / `mbu_unavailable` on timing rows). */
  readonly efficiencyUnavailable?: string;
  /**
   * More identity columns of the model, e.g. `weights` (`seed 0`, or the hash of a weight file), recorded in
   * `modelMeta` and matched by comparisons.
   */
  readonly identity?: Readonly<Record<string, MetaValue>>;
}

/** Options of the {@link BenchmarkSuite} constructor. */
export interface BenchmarkSuiteOptions {
  /** Tasks, run in this order; names must be unique. */
  readonly tasks: readonly BenchmarkTask[];
  /** Configuration (validated). @default BenchmarkConfig.defaults() */
  readonly config?: BenchmarkConfig | BenchmarkConfigInput;
}

/** Model identity columns of the report (snake_case, as CSV columns). */
export function modelIdentity(
  paradigm: Paradigm,
  model: Model,
  runId: string,
  extra: Readonly<Record<string, MetaValue>> = {},
): Record<string, MetaValue> {
  const c = model.config;
  const q = model.info.quantization;
  let params: number | null = null;
  try {
    params = paradigm.numParameters(model);
  } catch {
    params = null;
  }
  return {
    model: model.info.name,
    paradigm: paradigm.type,
    params,
    dim: c.dim,
    num_blocks: c.numBlocks,
    n_heads: c.nHeads,
    kv_heads: c.kvHeads,
    vocab_size: c.vocabSize,
    max_context: c.maxContext,
    attention: c.attention,
    ffn: c.ffn,
    engine: model.info.engine,
    threads: model.info.threads,
    dtype: model.info.dtype,
    // The quantization plan: two runs that differ only in --head-dtype or --block-size are two variants.
    head_dtype: q?.headDtype ?? model.info.dtype,
    block_size: q?.blockSize ?? null,
    quantized_matrices: q === undefined ? 0 : Object.keys(q.matrices).length,
    ...(q === undefined ? {} : { quantized_matrix_names: quantizedMatrixNames(q.matrices) }),
    weight_bytes: model.info.weightBytes ?? null,
    ...browserIdentity(model.info),
    run_id: runId,
    ...extra,
  };
}

/**
 * The `quantized_matrix_names` column: which matrices were quantized and to what, as `name:dtype` pairs sorted by
 * name and separated by spaces (`blocks.0.attn.q:q4 … lm_head:q8`), so that two runs with the same count but a
 * different plan (the head kept in fp32, one block left out) differ in the column, not only in their timings.
 */
function quantizedMatrixNames(matrices: Readonly<Record<string, string>>): string {
  return Object.keys(matrices)
    .sort()
    .map((name) => `${name}:${matrices[name]}`)
    .join(' ');
}

/**
 * The identity columns of a model run in a browser page: `target`, the browser and what its page could do
 * (isolation, threads asked, logical CPUs seen, timer resolution, provider, WebGPU adapter, nodes placed on another
 * provider). None for a model run in this process (its `target` is `node`).
 */
function browserIdentity(info: Model['info']): Record<string, MetaValue> {
  const b = info.browser;
  if (info.target === undefined && b === undefined) return {};
  return {
    target: info.target ?? 'node',
    ...(b === undefined
      ? {}
      : {
          browser: b.name,
          cross_origin_isolated: b.crossOriginIsolated,
          threads_asked: b.threadsAsked,
          hardware_concurrency: b.hardwareConcurrency,
          timer_resolution_ms: b.timerResolutionMs,
          execution_provider: b.provider,
          ...(b.offProvider === undefined
            ? {}
            : {
                nodes_off_provider: b.offProvider.count,
                ...(b.offProvider.opTypes === '' ? {} : { ops_off_provider: b.offProvider.opTypes }),
              }),
          ...(b.adapter === undefined
            ? {}
            : {
                gpu_adapter: `${b.adapter.vendor} ${b.adapter.architecture}`.trim(),
                gpu_fallback_adapter: b.adapter.isFallbackAdapter,
              }),
        }),
  };
}

/**
 * Runs benchmark tasks on one model and collects a {@link SuiteReport}.
 *
 * @example
 * ```ts
 * const suite = new BenchmarkSuite({
 *   tasks: [new ThroughputTask(), new LatencyTask(), new MyTask()],
 *   config: { seq_lens: [128, 256, 512], n_measure: 30 },
 * });
 * const report = await suite.run(paradigm, model, { saveCsv: 'results.csv', writer: process.stderr });
 * console.log(report.summary());
 * ```
 */
export class BenchmarkSuite {
  /** Tasks, in run order. */
  readonly tasks: readonly BenchmarkTask[];
  /** Validated configuration. */
  readonly config: BenchmarkConfig;

  /**
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for an empty task list or duplicate task names, and
   * {@link dantinox!ValidationError} for an invalid config.
   */
  constructor(options: BenchmarkSuiteOptions) {
    if (options.tasks.length === 0) throw new DantinoxError('INVALID_OPTION', messages.emptySuite());
    const seen = new Set<string>();
    for (const t of options.tasks) {
      if (seen.has(t.name)) throw new DantinoxError('INVALID_OPTION', messages.duplicateTaskName(t.name));
      seen.add(t.name);
    }
    this.tasks = [...options.tasks];
    this.config = BenchmarkConfig.parse(options.config ?? {});
  }

  /** Throughput, latency and perplexity (Brown corpus) — the seed's default suite. */
  static default(config?: BenchmarkConfig | BenchmarkConfigInput): BenchmarkSuite {
    return new BenchmarkSuite({
      tasks: createTaskRegistry().create(DEFAULT_TASKS),
      ...(config === undefined ? {} : { config }),
    });
  }

  /** Throughput only, for a quick hardware check. */
  static throughputOnly(config?: BenchmarkConfig | BenchmarkConfigInput): BenchmarkSuite {
    return new BenchmarkSuite({ tasks: [new ThroughputTask()], ...(config === undefined ? {} : { config }) });
  }

  /**
   * Runs every task in order and returns the report. Never throws for a failing task (unless `throwOnError`):
   * the task's row gets `status: 'failed'` and its error, and the next task runs. Every cell goes to the sinks
   * as soon as it finishes (the JSONL file first); the CSV/JSON reports are written at the end. A sink that
   * throws is logged at `error` level and the run goes on.
   *
   * @throws {@link dantinox!DantinoxError} `IO` when the JSONL file cannot be created (before anything is measured).
   */
  async run(paradigm: Paradigm, model: Model, options: SuiteRunOptions = {}): Promise<SuiteReport> {
    const clock = options.clock ?? hrtimeClock;
    const startedAt = options.startedAt ?? new Date();
    const runId = options.runId ?? `${model.info.name}-${startedAt.toISOString().replace(/[:.]/g, '-')}`;
    const outDir = options.outDir ?? this.config.outputDir;
    const pathFor = (opt: string | boolean | undefined, ext: string): string | undefined =>
      opt === true ? join(outDir, `${runId}.${ext}`) : typeof opt === 'string' ? opt : undefined;
    // Warnings (a sink that throws, a clamped window) reach stderr unless the caller routes them elsewhere.
    const logger = options.logger ?? createWriterLogger(process.stderr, 'warn');
    const progress = createProgress(options.progress ?? 'auto', options.writer);
    const t0 = clock.now();
    const elapsedS = (): number => Number(clock.now() - t0) / 1e9;

    const modelMeta = {
      ...modelIdentity(paradigm, model, runId, options.identity),
      ...efficiencyIdentity(model, options.calibration),
    };
    const descriptors: MetricDescriptor[] = this.tasks.flatMap((t) => t.metrics ?? []);
    // A model that times its calls itself (the browser page) gives the tasks its clock: they time the engine.
    const taskClock = model.clock ?? clock;
    const pageTimer = model.info.browser?.timerResolutionMs;
    const timer =
      model.clock !== undefined
        ? {
            clockName: model.clock.name,
            ...(pageTimer === undefined ? {} : { resolutionNs: Math.round(pageTimer * 1e6) }),
          }
        : clock === hrtimeClock
          ? (({ clockName, overheadNs, resolutionNs }) => ({ clockName, overheadNs, resolutionNs }))(
              calibrateTimer(clock),
            )
          : { clockName: clock.name };
    const cpuStart = readCpuTimes();
    const environment = collectEnvironment({
      config: this.config,
      modelInfo: model.info,
      startedAt,
      timer,
      ...(options.calibration === undefined ? {} : { calibration: options.calibration }),
      ...(options.commandLine === undefined ? {} : { commandLine: options.commandLine }),
      ...(options.git === undefined ? {} : { git: options.git }),
    });
    const off = model.info.browser?.offProvider;
    if (off !== undefined && off.count > 0)
      logger.log('warn', messages.nodesOffProvider(off, model.info.browser?.provider ?? ''));
    const jsonl = pathFor(options.jsonl ?? true, 'jsonl');
    const csv = pathFor(options.saveCsv, 'csv');
    const json = pathFor(options.saveJson, 'json');
    const sinks = fanOutSinks(
      [
        ...(jsonl === undefined ? [] : [new JsonlSink(jsonl)]),
        ...(csv === undefined ? [] : [new ReportFileSink(csv)]),
        ...(json === undefined ? [] : [new ReportFileSink(json)]),
        ...(options.sinks ?? []),
      ],
      logger,
    );
    await sinks.onStart({ runId, tasks: this.tasks.map((t) => t.name), modelMeta, environment, descriptors });

    const taskRngs = new Rng(this.config.seed).split(this.tasks.length);
    const results: BenchmarkResult[] = [];
    let aborted = false;
    try {
      for (const [i, task] of this.tasks.entries()) {
        if (aborted || options.signal?.aborted) {
          aborted = true;
          const skipped: BenchmarkResult = {
            task: task.name,
            status: 'skipped',
            error: messages.taskNotRun(),
            metrics: {},
            cells: [],
          };
          results.push(skipped);
          await sinks.onTask(skipped);
          continue;
        }
        progress.taskStart(task.name, i, this.tasks.length);
        const cells: CellRecord[] = [];
        const context: BenchmarkContext = {
          logger,
          clock: taskClock,
          ...(options.tracer === undefined ? {} : { tracer: options.tracer }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          plan: (n) => progress.plan(task.name, n),
          recordCell: async (cell) => {
            cells.push(cell);
            progress.cell(cell);
            watch?.touch();
            await sinks.onCell(cell, elapsedS());
          },
        };
        let watch: TaskWatch<BenchmarkResult> | undefined;
        const start = clock.now();
        // Peak RSS is a real-process figure: a run on a manual clock is simulated and records none, and a model run
        // in a browser page holds its memory in the browser's processes, not this one.
        const measuresRss = clock === hrtimeClock && model.info.target !== 'browser';
        if (measuresRss) resetPeakRss();
        let result: BenchmarkResult;
        try {
          watch = watchTask(
            options.tracer === undefined
              ? task.run(paradigm, model, this.config, taskRngs[i] as Rng, context)
              : options.tracer.span(task.name, 'task', () =>
                  task.run(paradigm, model, this.config, taskRngs[i] as Rng, context),
                ),
            this.config.maxCellMs,
            options.signal,
          );
          const raw = await watch.result;
          const named = { ...raw, task: raw.task || task.name };
          result = named.status === undefined ? { ...named, status: 'completed' } : named;
        } catch (error) {
          if (options.throwOnError === true) throw error;
          aborted = options.signal?.aborted === true;
          const partial = aborted ? partialResult(task, cells, this.config, 'signal') : undefined;
          const message = aborted ? messages.benchAborted(task.name) : errorText(error);
          if (partial !== undefined)
            logger.log('warn', `task ${task.name}: ${partial.meta?.['interrupted']}`);
          else logger.log('error', messages.taskFailed(task.name, message));
          result = partial ?? { task: task.name, status: 'failed', error: message, metrics: {} };
        }
        result = { ...result, cells: result.cells ?? cells, durationMs: Number(clock.now() - start) / 1e6 };
        result = withEfficiency(result, {
          model,
          calibration: options.calibration,
          ...(options.efficiencyUnavailable === undefined
            ? {}
            : { unavailable: options.efficiencyUnavailable }),
          ...(measuresRss ? { peakRssBytes: readRss().peakRssBytes } : {}),
        });
        results.push(result);
        progress.taskEnd(result);
        await sinks.onTask(result);
      }
    } finally {
      progress.stop();
    }
    // A signal that arrived during the last call is delivered only now, once the event loop turns: honour it.
    await new Promise((resolve) => setImmediate(resolve));
    aborted ||= options.signal?.aborted === true;
    const totalTimeS = elapsedS();
    const mhzEnd = environment.cpuMhz === undefined ? undefined : readCpuMhz();
    const cpuEnd = readCpuTimes();
    const ended = {
      ...environment,
      loadAverage: { start: environment.loadAverage?.start ?? [], end: os.loadavg() },
      ...(environment.cpuMhz === undefined || mhzEnd === undefined
        ? {}
        : { cpuMhz: { start: environment.cpuMhz.start, end: mhzEnd } }),
      ...(cpuStart === undefined || cpuEnd === undefined ? {} : { othersCpus: othersCpus(cpuStart, cpuEnd) }),
    };
    const report = new SuiteReport({
      results,
      modelMeta,
      totalTimeS,
      environment: ended,
      runId,
      descriptors,
    });
    await sinks.onEnd(report, { aborted });
    return report;
  }

  /** `BenchmarkSuite(tasks=[…])`. */
  toString(): string {
    return `BenchmarkSuite(tasks=[${this.tasks.map((t) => `'${t.name}'`).join(', ')}])`;
  }
}
