/**
 * `planRun`: checks everything a run can get wrong before the first (slow) model build — tasks, data file,
 * matrix, every variant's model selection and memory estimate, shard and resume — and claims the output folder.
 *
 * @packageDocumentation
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { BenchmarkConfig, type BenchmarkConfigInput } from '../benchmarking/config.js';
import { createWriterLogger, type Logger, type LogLevel } from '../benchmarking/logger.js';
import { isMatrixDirectory } from '../benchmarking/matrix/matrix-manifest.js';
import type { ShardSpec } from '../benchmarking/matrix/shard.js';
import { SuiteReport } from '../benchmarking/report.js';
import { RUN_FILES } from '../benchmarking/run-directory.js';
import { createTaskRegistry, DEFAULT_TASKS } from '../benchmarking/task-registry.js';
import { dataSourceName } from '../benchmarking/tasks/eval-windows.js';
import {
  type IdentityField,
  identityDifferences,
  type VariantIdentity,
  variantIdentity,
} from '../benchmarking/variant-identity.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { EngineName } from '../models/engines/engine-name.js';
import { defaultEngines } from '../models/engines/engine-registry.js';
import { DEFAULT_EXECUTION_PROVIDER } from '../models/engines/ort/execution-provider.js';
import { ortLabelProvider } from '../models/engines/ort/ort-session.js';
import type { TargetName } from '../models/engines/target-name.js';
import { checkThreads } from '../models/engines/threads.js';
import {
  type CheckedSelection,
  checkedModelName,
  type ModelSelection,
  referenceModelName,
} from '../models/model-selection.js';
import type { PluginRegistries } from '../plugin.js';
import { createChartRegistry } from '../visualization/chart-registry.js';
import {
  type AxisFlags,
  buildBenchMatrix,
  checkVariants,
  type MatrixSection,
  type SharedSelection,
  variantConfig,
  variantSelection,
} from './bench-matrix.js';
import { DEFAULT_CALIBRATION_MS } from './calibration-step.js';
import { gitInfo } from './git-info.js';
import { claimRunDir, prepareOutputDir, RUN_ARTIFACTS, roundFolders } from './output-dir.js';
import type { HistoryOptions } from './record-history.js';
import { acquireRunLock } from './run-lock.js';
import type { CalibrationPlan, RunPlan } from './run-matrix.js';

/** What a run is asked to do; every field but `dir` has a default. */
export interface RunPlanInput {
  /** Output folder (relative paths against `cwd`). */
  readonly dir: string;
  /** The folder as messages show it. @default dir */
  readonly shownDir?: string;
  /** Directory relative paths are resolved against. @default process.cwd() */
  readonly cwd?: string;
  /** Matrix axes, e.g. `{ config: ['tiny'], dtype: ['fp32', 'q8'] }`; `config`/`model` replace the section's. @default the `small` preset */
  readonly axes?: AxisFlags;
  /** A `matrix:` section (axes and excludes), e.g. from {@link readBenchConfigFile}. */
  readonly matrix?: MatrixSection;
  /** The benchmark config shared by every variant. @default the library defaults */
  readonly config?: BenchmarkConfigInput | BenchmarkConfig;
  /** Task names, in order. @default DEFAULT_TASKS */
  readonly tasks?: readonly string[];
  /** Task and chart registries. @default the built-ins (and those of `plugins`, when given) */
  readonly registries?: PluginRegistries;
  /** Module specifiers of the plugins behind `registries`, so that a variant's own process can load them again. */
  readonly plugins?: readonly string[];
  /**
   * Run each variant of a matrix in a fresh process (its peak RSS and load figures its own). @default true for a
   * matrix whose registries are the built-ins or come from `plugins`
   */
  readonly isolate?: boolean;
  /** Least severe level a variant's own process logs (match `logger`'s). @default 'warn' */
  readonly logLevel?: LogLevel;
  /** Validation text for perplexity and kld. @default the Brown corpus */
  readonly data?: string;
  /** What every variant's model selection shares. @default {} */
  readonly shared?: SharedSelection;
  /** This process's shard (see `resolveShard`). */
  readonly shard?: ShardSpec;
  /** Skip variants already completed in the folder (with `repeat`: rounds and variants). @default false */
  readonly resume?: boolean;
  /**
   * Runs of each variant, interleaved in rounds (every variant once, then every variant again…) into the folders
   * `run-1/` … `run-<repeat>/`, each a complete run. Not with `shard`. @default 1
   */
  readonly repeat?: number;
  /** Replace a run already in the folder. @default false */
  readonly force?: boolean;
  /** Write charts and report.html. @default true */
  readonly charts?: boolean;
  /** The ceilings calibration, with its budget in ms; `false`: none. @default a 20 s budget, cached */
  readonly calibration?: CalibrationPlan | false;
  /** Where finished runs are recorded. @default {} */
  readonly history?: HistoryOptions;
  /** Add the profile task. @default false */
  readonly profile?: boolean;
  /** Write each variant's `trace.json`. @default false */
  readonly trace?: boolean;
  /** Where warnings go. @default warnings on stderr */
  readonly logger?: Logger;
  /** Start time of the run. @default now */
  readonly startedAt?: Date;
  /** The command line recorded in every environment block. @default the process's */
  readonly commandLine?: string;
}

/** Checks `data` (a readable file, not a folder) before any model is built; its absolute path. */
function checkDataFile(data: string | undefined, cwd: string): string | undefined {
  if (data === undefined) return undefined;
  const path = isAbsolute(data) ? data : resolve(cwd, data);
  try {
    accessSync(path, constants.R_OK);
  } catch (cause) {
    throw new DantinoxError('IO', messages.dataFileMissing(data), { cause });
  }
  if (statSync(path).isDirectory()) throw new DantinoxError('IO', messages.dataFileIsFolder(data));
  return path;
}

/** The checked number of runs per variant. */
function checkRepeat(input: RunPlanInput): number {
  const repeat = input.repeat ?? 1;
  if (!Number.isSafeInteger(repeat) || repeat < 1)
    throw new DantinoxError('INVALID_OPTION', messages.badRepeat(repeat));
  if (repeat > 1 && input.shard !== undefined)
    throw new DantinoxError('INVALID_OPTION', messages.repeatWithShard());
  return repeat;
}

/** Refuses to resume repeated runs as a single run, or a single run as repeated runs. */
function checkResumedLayout(path: string, shownDir: string, repeat: number): void {
  const repeated = roundFolders(path).length > 0;
  const single = RUN_ARTIFACTS.some(
    (f) => f !== 'charts' && f !== 'report.html' && existsSync(join(path, f)),
  );
  if (repeat === 1 && repeated && !single)
    throw new DantinoxError('INVALID_OPTION', messages.resumeRepeatMismatch(shownDir, true));
  if (repeat > 1 && single)
    throw new DantinoxError('INVALID_OPTION', messages.resumeRepeatMismatch(shownDir, false));
}

/** What a run (a single run, or a matrix variant) resumed into a folder must have measured there. */
interface ResumedRun {
  /** The identity fields known before the model is built (model, paradigm, dtype, head dtype, block size). */
  readonly identity: VariantIdentity;
  /** The engine that runs it. */
  readonly engine: EngineName;
  /** Where it runs (`--target`). */
  readonly target: TargetName;
  /** Its benchmark config (threads and sweep included). */
  readonly config: BenchmarkConfig;
  /** The task rows it writes, in order. */
  readonly tasks: readonly string[];
  /** `--ep`, for an engine that takes one. */
  readonly executionProvider?: string;
  /** The evaluation text's name, as perplexity and kld record it (`meta.data_source`). */
  readonly dataSource: string;
  /** The kld task's reference: its model name and engine. */
  readonly reference: { readonly name: string; readonly engine: EngineName };
}

/** The first word of a browser run's engine label. */
const BROWSER_RUNTIME = 'onnxruntime-web';

/** The flag of each identity field a command sets. */
const IDENTITY_FLAGS: Partial<Record<IdentityField, string>> = {
  model: '--config/--model',
  paradigm: '--paradigm',
  dtype: '--dtype',
  head_dtype: '--head-dtype',
  block_size: '--block-size',
};

/** A recorded or asked value as a message shows it: lists comma-separated, `null` as `(default)`. */
const shown = (value: unknown): string =>
  value === null ? '(default)' : Array.isArray(value) ? value.join(',') : String(value);

/** The run a command asks for (one variant), known from its checked selection before any model is built. */
function resumedRun(
  selection: CheckedSelection,
  chosen: ModelSelection,
  context: { readonly cwd: string; readonly dataPath: string | undefined },
  config: BenchmarkConfig,
  tasks: readonly string[],
): ResumedRun {
  const engine = chosen.engine ?? 'ort';
  const target = chosen.target ?? 'node';
  const precision = selection.precision;
  const identity: VariantIdentity = {
    model: checkedModelName(selection),
    ...(selection.config === undefined ? {} : { paradigm: selection.config.paradigm }),
    ...(selection.dtype === undefined ? {} : { dtype: selection.dtype }),
    ...(precision === undefined
      ? {}
      : { dtype: precision.dtype, head_dtype: precision.headDtype, block_size: precision.blockSize }),
  };
  return {
    identity,
    engine,
    target,
    config,
    tasks,
    ...(defaultEngines.get(engine).executionProviders && target === 'node'
      ? { executionProvider: chosen.executionProvider ?? DEFAULT_EXECUTION_PROVIDER }
      : {}),
    dataSource: dataSourceName(context.dataPath),
    reference: {
      name: referenceModelName(chosen, selection, context.cwd),
      engine: chosen.referenceEngine ?? 'ort',
    },
  };
}

/**
 * How the run `report` in a folder differs from the run `asked`: its identity fields, engine, tasks and
 * benchmark config (every option but the output folder), each with its flag. Fields the folder does not record
 * (a file of an older version) are not differences.
 */
function resumedRunDifferences(
  report: SuiteReport,
  asked: ResumedRun,
): { readonly flag: string; readonly there: string; readonly here: string }[] {
  const identity = identityDifferences(variantIdentity(report), asked.identity).flatMap((d) => {
    const flag = IDENTITY_FLAGS[d.field];
    return flag === undefined ? [] : [{ flag, there: shown(d.baseline), here: shown(d.candidate) }];
  });
  const engineLabel = report.modelMeta['engine'];
  // A browser run's engine label names the runtime of the page (onnxruntime-web), not the engine's Node package.
  const runtime = asked.target === 'browser' ? BROWSER_RUNTIME : defaultEngines.get(asked.engine).runtime;
  const byTarget = asked.target === 'browser' || String(engineLabel).startsWith(`${BROWSER_RUNTIME} `);
  const engine =
    typeof engineLabel !== 'string' || runtime === undefined || engineLabel.startsWith(`${runtime} `)
      ? []
      : [
          byTarget
            ? { flag: '--target', there: engineLabel, here: asked.target }
            : { flag: '--engine', there: engineLabel, here: asked.engine },
        ];
  const provider = typeof engineLabel === 'string' ? ortLabelProvider(engineLabel) : undefined;
  const executionProvider =
    engine.length > 0 ||
    provider === undefined ||
    asked.executionProvider === undefined ||
    provider === asked.executionProvider
      ? []
      : [{ flag: '--ep', there: provider, here: asked.executionProvider }];
  const tasks = [...new Set(report.results.map((r) => r.task))];
  const sameTasks = tasks.length === asked.tasks.length && asked.tasks.every((t) => tasks.includes(t));
  const recorded = report.environment?.config;
  const there = recorded === undefined ? {} : BenchmarkConfig.toSnakeCase(recorded);
  const { output_dir: _out, ...here } = BenchmarkConfig.toSnakeCase(asked.config);
  // The thread count left at its default is the one the run used (recorded) or would use (every core): `--threads 2`
  // resumes a run that took the default of 2.
  const effective = (key: string, value: unknown, recordedRun: boolean): unknown =>
    key !== 'threads' || value !== null
      ? value
      : recordedRun
        ? (report.environment?.threads ?? null)
        : checkThreads(undefined);
  const config = Object.entries(here).flatMap(([key, value]) =>
    there[key] === undefined ||
    JSON.stringify(there[key]) === JSON.stringify(value) ||
    JSON.stringify(effective(key, there[key], true)) === JSON.stringify(effective(key, value, false))
      ? []
      : [{ flag: `--${key.replace(/_/g, '-')}`, there: shown(there[key]), here: shown(value) }],
  );
  return [
    ...identity,
    ...engine,
    ...executionProvider,
    ...evaluationDifferences(report, asked),
    ...(sameTasks ? [] : [{ flag: '--tasks', there: tasks.join(','), here: asked.tasks.join(',') }]),
    ...config,
  ];
}

/**
 * How the evaluation rows of `report` differ from the run `asked`: the text perplexity and kld scored (`--data`),
 * and kld's reference model (`--reference`) and its engine (`--reference-engine`). Rows that record none (failed,
 * or cut short) are not differences.
 */
function evaluationDifferences(
  report: SuiteReport,
  asked: ResumedRun,
): { readonly flag: string; readonly there: string; readonly here: string }[] {
  const meta = (task: string, key: string): string | undefined => {
    const value = report.results.find((r) => r.task === task && r.meta?.[key] !== undefined)?.meta?.[key];
    return value === undefined ? undefined : String(value);
  };
  const data = meta('perplexity', 'data_source') ?? meta('kld', 'data_source');
  const reference = meta('kld', 'reference');
  const referenceEngine = meta('kld', 'reference_engine');
  const runtime = defaultEngines.get(asked.reference.engine).runtime;
  return [
    ...(data === undefined || data === asked.dataSource
      ? []
      : [{ flag: '--data', there: data, here: asked.dataSource }]),
    ...(reference === undefined || reference.startsWith(`${asked.reference.name} (`)
      ? []
      : [{ flag: '--reference', there: reference, here: asked.reference.name }]),
    ...(referenceEngine === undefined || runtime === undefined || referenceEngine.startsWith(`${runtime} `)
      ? []
      : [{ flag: '--reference-engine', there: referenceEngine, here: asked.reference.engine }]),
  ];
}

/** The report of the run in `folder` (its results.json, else its stream), or `undefined` when none is readable. */
function earlierReport(folder: string): SuiteReport | undefined {
  for (const file of [RUN_FILES.json, RUN_FILES.jsonl]) {
    try {
      if (existsSync(join(folder, file))) return SuiteReport.load(join(folder, file));
    } catch {
      // An unreadable file resumes nothing: the run is measured again, whatever it was.
    }
  }
  return undefined;
}

/**
 * Refuses to resume, into the run folder `folder`, a run of another layout (a matrix into a single run, a single
 * run into a matrix) or a run measured otherwise (see {@link resumedRunDifferences}): for a single run (`single`)
 * the folder's run, for a matrix each variant folder that holds one — which would otherwise be taken for the
 * command's own and skipped.
 */
function checkResumedRun(
  folder: string,
  shownDir: string,
  single: boolean,
  asked: readonly { readonly id: string; readonly run: ResumedRun }[],
): void {
  const matrix = isMatrixDirectory(folder);
  const flat =
    !matrix && [RUN_FILES.json, RUN_FILES.jsonl, RUN_FILES.csv].some((f) => existsSync(join(folder, f)));
  if (single && matrix)
    throw new DantinoxError('INVALID_OPTION', messages.resumeLayoutMismatch(shownDir, 'matrix'));
  if (!single && flat)
    throw new DantinoxError('INVALID_OPTION', messages.resumeLayoutMismatch(shownDir, 'single'));
  const runs = single
    ? asked.slice(0, 1).map((a) => ({ folder, shown: shownDir, run: a.run }))
    : asked.map((a) => ({ folder: join(folder, a.id), shown: join(shownDir, a.id), run: a.run }));
  for (const { folder: runFolder, shown, run } of runs) {
    const report = earlierReport(runFolder);
    const differences = report === undefined ? [] : resumedRunDifferences(report, run);
    if (differences.length > 0)
      throw new DantinoxError('INVALID_OPTION', messages.resumeRunMismatch(shown, differences));
  }
}

/**
 * A checked {@link RunPlan}: the matrix expanded, every variant's model selection checked (and a built-in model
 * that cannot fit refused) and the output folder claimed (refused when it holds a run, unless `force` or
 * `resume`) before anything is measured. The folder is locked for the plan's run (see {@link RunPlan.lock}): a
 * folder another live process is writing is refused, even with `force`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` (also for a `repeat` that is not an integer ≥ 1, or with
 * `shard`), `UNKNOWN_TASK`, `IO`… naming the first problem.
 */
export function planRun(input: RunPlanInput): RunPlan {
  const cwd = input.cwd ?? process.cwd();
  const config = BenchmarkConfig.parse({ ...input.config });
  const logger = input.logger ?? createWriterLogger(process.stderr, 'warn');
  const dataPath = checkDataFile(input.data, cwd);
  const registries = input.registries ?? { tasks: createTaskRegistry(), charts: createChartRegistry() };
  const tasks = input.tasks ?? DEFAULT_TASKS;
  registries.tasks.check(tasks);
  const matrix = buildBenchMatrix({
    flags: input.axes ?? {},
    ...(input.matrix === undefined ? {} : { file: input.matrix }),
    config,
    tasks,
    ...(input.data === undefined ? {} : { data: input.data }),
  });
  const shared = input.shared ?? {};
  const checked = checkVariants(matrix.variants, config, cwd, shared);
  // Before the folder is touched: a count far beyond the machine is a usage error, not a run.
  const threadCounts = new Set(matrix.variants.map((v) => variantConfig(v, config).threads));
  for (const threads of threadCounts) if (threads !== null) checkThreads(threads);
  const shownDir = input.shownDir ?? input.dir;
  const repeat = checkRepeat(input);
  const dir = prepareOutputDir(shownDir, cwd);
  // The lock first: a second process must not clear (--force) or resume a folder being written.
  const lock = acquireRunLock(dir, shownDir);
  try {
    if (input.resume !== true) claimRunDir(shownDir, cwd, input.force === true);
    else {
      checkResumedLayout(dir, shownDir, repeat);
      const runTasks = [...tasks, ...(input.profile === true ? ['profile'] : [])];
      // What each variant measures; a single run is one variant and no shard (a shard folder holds a matrix).
      const asked = matrix.variants.flatMap((v) => {
        const selection = checked.get(v.id);
        const chosen = variantSelection(v, config, shared);
        const context = { cwd, dataPath };
        return selection === undefined
          ? []
          : [{ id: v.id, run: resumedRun(selection, chosen, context, variantConfig(v, config), runTasks) }];
      });
      const single = !matrix.isMatrix && input.shard === undefined;
      const folders = repeat === 1 ? [dir] : roundFolders(dir).map((f) => join(dir, f));
      for (const folder of folders)
        checkResumedRun(
          folder,
          folder === dir ? shownDir : join(shownDir, relative(dir, folder)),
          single,
          asked,
        );
    }
  } catch (error) {
    lock.release();
    throw error;
  }
  for (const threads of threadCounts)
    if (threads !== null && threads > availableParallelism())
      logger.log('warn', messages.threadsAboveCores(threads, availableParallelism()));
  if (dataPath !== undefined && !['perplexity', 'kld', 'choice'].some((t) => tasks.includes(t)))
    logger.log('warn', messages.dataUnused());
  return {
    matrix,
    shard: input.shard,
    dir,
    shownDir,
    resume: input.resume === true,
    ...(repeat === 1 ? {} : { repeat }),
    config,
    tasks,
    registries,
    dataPath,
    charts: input.charts ?? true,
    logger,
    startedAt: input.startedAt ?? new Date(),
    commandLine: input.commandLine ?? process.argv.join(' '),
    cwd,
    shared,
    calibration:
      input.calibration === false
        ? undefined
        : (input.calibration ?? { budgetMs: DEFAULT_CALIBRATION_MS, recalibrate: false }),
    history: input.history ?? {},
    ...(input.profile === true ? { profile: true } : {}),
    ...(input.trace === true ? { trace: true } : {}),
    isolate:
      input.isolate ?? (matrix.isMatrix && (input.registries === undefined || input.plugins !== undefined)),
    ...(input.plugins === undefined ? {} : { plugins: input.plugins }),
    logLevel: input.logLevel ?? 'warn',
    git: gitInfo(cwd),
    lock,
  };
}
