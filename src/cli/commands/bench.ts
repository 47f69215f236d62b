/**
 * `dantinox bench`: builds (or loads) a model, runs the benchmark suite with live progress on stderr, prints
 * the summary on stdout and writes results.csv, results.json, results.jsonl, charts and report.html.
 *
 * @packageDocumentation
 */
import { accessSync, constants } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { BenchmarkConfig, type BenchmarkConfigInput } from '../../benchmarking/config.js';
import type { Calibration, Logger, LogLevel, SuiteReport } from '../../benchmarking/index.js';
import { DEFAULT_TASKS } from '../../benchmarking/task-registry.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { ENGINE_NAMES, type EngineName } from '../../models/engines/engine-name.js';
import type { ExecutionProvider } from '../../models/engines/ort/index.js';
import type { ParadigmKind } from '../../models/model-config.js';
import { DEFAULT_CALIBRATION_MS, runCalibration } from '../calibration-step.js';
import type { CliWriter } from '../cli-io.js';
import { addCliOptions, type CliOptions } from '../cli-options.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { watchInterrupts } from '../interrupts.js';
import { loadPlugins } from '../load-plugins.js';
import { tellLauncher, underLauncher } from '../malloc-tuning.js';
import { checkModelSelection, DEFAULT_PRESET } from '../model-selection.js';
import {
  parseNameList,
  parseNonNegativeInt,
  parseNonNegativeNumber,
  parsePositiveInt,
  parsePositiveIntList,
} from '../option-parsers.js';
import { prepareOutputDir, timestampName } from '../output-dir.js';
import { checkPluginNames, collect } from '../plugin-names.js';

/**
 * The sweep `dantinox bench` runs when no `--bench-config` is given: the library defaults
 * ({@link BenchmarkConfig.defaults}) with a shorter batch sweep and fewer perplexity batches, so the default run
 * on the default preset takes a few minutes on 2 cores. Flags override it field by field.
 */
export const CLI_BENCH_DEFAULTS: BenchmarkConfigInput = Object.freeze({
  batchSizes: [1, 4, 16],
  evalBatches: 16,
});

/** The values the flags default to: the library defaults with {@link CLI_BENCH_DEFAULTS} applied. */
const EFFECTIVE_DEFAULTS: BenchmarkConfig = BenchmarkConfig.parse({
  ...BenchmarkConfig.defaults(),
  ...CLI_BENCH_DEFAULTS,
});

/** `text (default: <value>)`, the value read from {@link EFFECTIVE_DEFAULTS} so help never drifts from the code. */
function withDefault(text: string, key: keyof BenchmarkConfig, whenNull = 'engine default'): string {
  const value = EFFECTIVE_DEFAULTS[key];
  const shown = value === null ? whenNull : Array.isArray(value) ? value.join(',') : String(value);
  return `${text} (default: ${shown})`;
}

/** Every {@link BenchmarkConfig} field as a flag (no commander defaults: unset flags keep the file's value). */
const BENCH_CONFIG_OPTIONS: CliOptions<BenchmarkConfig> = {
  seqLens: {
    flags: '--seq-lens <list>',
    description: withDefault(
      'sequence lengths of the throughput sweep; the last that fits is the latency prompt',
      'seqLens',
    ),
    parse: parsePositiveIntList,
  },
  batchSizes: {
    flags: '--batch-sizes <list>',
    description: withDefault(
      'batch sizes of the throughput sweep at the first sequence length',
      'batchSizes',
    ),
    parse: parsePositiveIntList,
  },
  nWarmup: {
    flags: '--n-warmup <n>',
    description: withDefault('untimed warm-up calls per cell', 'nWarmup'),
    parse: parseNonNegativeInt,
  },
  nMeasure: {
    flags: '--n-measure <n>',
    description: withDefault('timed calls per cell', 'nMeasure'),
    parse: parsePositiveInt,
  },
  minWarmupMs: {
    flags: '--min-warmup-ms <ms>',
    description: withDefault('warm-up also lasts at least this long per cell', 'minWarmupMs'),
    parse: parseNonNegativeNumber,
  },
  minMeasureMs: {
    flags: '--min-measure-ms <ms>',
    description: withDefault('keep timing until this much time is measured per cell', 'minMeasureMs'),
    parse: parseNonNegativeNumber,
  },
  evalBatches: {
    flags: '--eval-batches <n>',
    description: withDefault('perplexity: number of batches of windows', 'evalBatches'),
    parse: parsePositiveInt,
  },
  evalSeqLen: {
    flags: '--eval-seq-len <n>',
    description: withDefault('perplexity: tokens scored per window', 'evalSeqLen'),
    parse: parsePositiveInt,
  },
  evalBatchSize: {
    flags: '--eval-batch-size <n>',
    description: withDefault('perplexity: windows per batch', 'evalBatchSize'),
    parse: parsePositiveInt,
  },
  evalStride: {
    flags: '--eval-stride <n>',
    description: withDefault(
      'perplexity: sliding windows every n tokens, each token scored once',
      'evalStride',
      'random windows',
    ),
    parse: parsePositiveInt,
  },
  genTokens: {
    flags: '--gen-tokens <n>',
    description: withDefault('tokens generated for TTFT/TPOT', 'genTokens'),
    parse: parsePositiveInt,
  },
  diffusionSteps: {
    flags: '--diffusion-steps <n>',
    description: withDefault('denoising passes of a diffusion generation', 'diffusionSteps'),
    parse: parsePositiveInt,
  },
  threads: {
    flags: '--threads <n>',
    description: withDefault('ONNX Runtime intra-op threads', 'threads', 'all cores'),
    parse: parsePositiveInt,
  },
  maxCellMs: {
    flags: '--max-cell-ms <ms>',
    description: withDefault(
      'time budget of one measurement cell; longer cells are skipped or failed',
      'maxCellMs',
    ),
    parse: parsePositiveInt,
  },
  seed: {
    flags: '--seed <n>',
    description: withDefault('seed of the inputs and of the random weights', 'seed'),
    parse: parseNonNegativeInt,
  },
  outputDir: null, // the CLI writes everything into --out
};

/** Parsed options of `dantinox bench`. */
type BenchCliOptions = { -readonly [K in keyof BenchmarkConfig]?: BenchmarkConfig[K] } & {
  readonly config?: string;
  readonly model?: string;
  readonly paradigm?: ParadigmKind;
  readonly ep?: string;
  readonly engine?: EngineName;
  readonly tasks?: string[];
  readonly plugin?: string[];
  readonly data?: string;
  readonly benchConfig?: string;
  readonly out?: string;
  readonly charts: boolean;
  readonly quiet?: boolean;
  readonly verbose?: boolean;
  readonly calibrate: boolean;
  readonly recalibrate?: boolean;
  readonly calibrationMs: number;
};

const EXAMPLES = `
Examples:
  $ dantinox bench                                   # default suite on the "${DEFAULT_PRESET}" preset, a few minutes
  $ dantinox bench --config tiny --tasks throughput --seq-lens 32,64 --out results/tiny
  $ dantinox bench --config gpt2-small --threads 2 --n-measure 50
  $ dantinox bench --config my-model.yaml --bench-config bench.yaml --data valid.txt
  $ dantinox bench --model models/gpt2-onnx --tasks latency,perplexity
  $ dantinox bench --config small --paradigm diffusion
  $ dantinox bench --config small --engine llama.cpp --threads 2 # same weights, GGUF on llama.cpp

Without --bench-config the sweep is the library default with --batch-sizes ${EFFECTIVE_DEFAULTS.batchSizes.join(',')} and
--eval-batches ${EFFECTIVE_DEFAULTS.evalBatches}; flags override the file or these defaults field by field. Progress goes
to stderr, the summary to stdout. Ctrl-C (or SIGTERM) stops after the current engine call and still
writes every output from what was measured, then exits 130 (143); a second one quits at once.
Exit code 1 when a task did not complete.
`;

/** The benchmark config: library defaults ← CLI defaults or `--bench-config` file ← flags. */
function benchmarkConfig(options: BenchCliOptions, cwd: string): BenchmarkConfig {
  const base: BenchmarkConfigInput =
    options.benchConfig === undefined
      ? { ...CLI_BENCH_DEFAULTS }
      : {
          ...BenchmarkConfig.load(
            isAbsolute(options.benchConfig) ? options.benchConfig : resolve(cwd, options.benchConfig),
          ),
        };
  const flags: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(BENCH_CONFIG_OPTIONS)) {
    const value = (options as Record<string, unknown>)[key];
    if (spec !== null && value !== undefined) flags[key] = value;
  }
  return BenchmarkConfig.parse({ ...base, ...flags });
}

/** Checks `--data` before any model is built. */
function checkDataFile(data: string | undefined, cwd: string): string | undefined {
  if (data === undefined) return undefined;
  const path = isAbsolute(data) ? data : resolve(cwd, data);
  try {
    accessSync(path, constants.R_OK);
  } catch (cause) {
    throw new DantinoxError('IO', messages.dataFileMissing(data), { cause });
  }
  return path;
}

/** Registers `dantinox bench` on `program`. */
export function registerBenchCommand(program: Command, ctx: CommandContext): Command {
  const command = program
    .command('bench')
    .summary('run the benchmark suite (throughput, latency, perplexity) on a model and write results')
    .description(
      'Builds a model (or loads a Hugging Face ONNX folder), runs the benchmark tasks with live progress on stderr, prints the summary on stdout and writes results.csv, results.json, results.jsonl, charts/ (SVG and PNG) and report.html into --out.',
    )
    .option(
      '-c, --config <file|preset>',
      `built-in model: preset (tiny, small, gpt2-small) or YAML/JSON config (default: ${DEFAULT_PRESET})`,
    )
    .option(
      '-m, --model <folder>',
      'a Hugging Face ONNX folder (config.json, tokenizer.json, onnx/model.onnx) instead',
    )
    .addOption(
      new Option('--paradigm <kind>', "override the config's paradigm (built-in models)").choices([
        'ar',
        'diffusion',
      ]),
    )
    .addOption(new Option('--engine <name>', 'inference engine (default: ort)').choices([...ENGINE_NAMES]))
    .option(
      '--ep <name>',
      'ONNX Runtime execution provider (default: cpu); an unavailable one is refused, naming those available',
    )
    .option(
      '-t, --tasks <list>',
      `tasks to run, in order: built-in or registered by a --plugin (default: ${DEFAULT_TASKS.join(',')})`,
      parseNameList,
    )
    .option(
      '--plugin <module>',
      'ES module whose default export registers tasks and/or charts (repeatable)',
      collect,
    )
    .option('--data <file>', 'UTF-8 validation text for perplexity (default: the Brown corpus)')
    .option(
      '--bench-config <file>',
      'YAML/JSON BenchmarkConfig (seed snake_case accepted); flags override it',
    );
  addCliOptions(command, BENCH_CONFIG_OPTIONS);
  return command
    .option('-o, --out <dir>', 'output directory (default: results/<timestamp>)')
    .option('--no-charts', 'skip charts/ and report.html')
    .option('--no-calibrate', 'skip the ceilings calibration (MFU/MBU then say unavailable)')
    .option('--recalibrate', "measure this machine's ceilings again instead of using the cache")
    .option(
      '--calibration-ms <ms>',
      'time budget of a calibration in ms',
      parsePositiveInt,
      DEFAULT_CALIBRATION_MS,
    )
    .option('-q, --quiet', 'no progress on stderr')
    .option('--verbose', 'debug logging, and stack traces on errors')
    .addHelpText('after', EXAMPLES)
    .action(async (options: BenchCliOptions) => {
      ctx.exitCode = await runBench(options, ctx);
    });
}

async function runBench(options: BenchCliOptions, ctx: CommandContext): Promise<ExitCode> {
  const { io } = ctx;
  // Everything a newcomer can get wrong is checked before the (slow) model build.
  const config = benchmarkConfig(options, io.cwd);
  const dataPath = checkDataFile(options.data, io.cwd);
  const registries = await loadPlugins(options.plugin ?? [], io.cwd);
  const taskNames = options.tasks ?? DEFAULT_TASKS;
  checkPluginNames('task', taskNames, registries.tasks.names());
  registries.tasks.check(taskNames);
  const selection = {
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.paradigm === undefined ? {} : { paradigm: options.paradigm }),
    // Any name is passed on: createModel/loadHfModel ask the binding and refuse one it does not carry.
    ...(options.ep === undefined ? {} : { executionProvider: options.ep as ExecutionProvider }),
    ...(options.engine === undefined ? {} : { engine: options.engine }),
    ...(config.threads === null ? {} : { threads: config.threads }),
    seed: config.seed,
  };
  checkModelSelection(selection, io.cwd);
  const startedAt = io.now();
  const outArg = options.out ?? join('results', timestampName(startedAt));
  const outDir = prepareOutputDir(outArg, io.cwd);
  tellLauncher({ outDir: outArg });
  // The heavy modules (ONNX Runtime, the suite, charts) load only once the arguments are known to be valid.
  const [{ BenchmarkSuite, createWriterLogger, RunDirectory }, { openModel }, { writeRunOutputs }] =
    await Promise.all([
      import('../../benchmarking/index.js'),
      import('../open-model.js'),
      import('../run-outputs.js'),
    ]);
  const tasks = registries.tasks.create(taskNames, dataPath === undefined ? {} : { data: dataPath });
  const level: LogLevel = options.verbose === true ? 'debug' : options.quiet === true ? 'error' : 'warn';
  const logger = createWriterLogger(io.stderr, level);
  if (dataPath !== undefined && !taskNames.includes('perplexity')) logger.log('warn', messages.dataUnused());

  if (options.quiet !== true) io.stderr.write('Building the model…\n');
  const opened = await openModel(selection, io.cwd);
  const calibration = await calibrationFor(options, taskNames, opened.model.info, logger, io.stderr);
  const interrupts = watchInterrupts({ stderr: io.stderr, underLauncher: underLauncher() });
  const runDir = new RunDirectory(outDir);
  let report: SuiteReport;
  let written: Awaited<ReturnType<typeof writeRunOutputs>>;
  try {
    const suite = new BenchmarkSuite({ tasks, config });
    report = await suite.run(opened.paradigm, opened.model, {
      runId: `${opened.model.info.name}-${timestampName(startedAt)}`,
      jsonl: false,
      sinks: runDir.sinks(),
      ...(options.quiet === true ? {} : { writer: io.stderr }),
      progress: 'auto',
      logger,
      signal: interrupts.signal,
      startedAt,
      commandLine: ['dantinox', ...ctx.argv].join(' '),
      ...(calibration === undefined ? {} : { calibration }),
    });
    await opened.model.dispose();
    written = await writeRunOutputs(report, runDir, {
      charts: options.charts,
      logger,
      registry: registries.charts,
    });
  } finally {
    interrupts.dispose();
    await opened.model.dispose();
  }
  const out = io.stdout;
  out.write(`Model: ${opened.description}\n`);
  out.write(
    `Engine: ${opened.model.info.engine}, ${opened.model.info.threads} threads, ${opened.model.info.dtype}\n`,
  );
  out.write(`Config: ${describeConfig(config)}\n\n`);
  out.write(`${report.summary()}\n\n`);
  if (opened.randomWeights) {
    out.write(`${messages.randomWeightsNote()}\n`);
  }
  out.write(`Results: ${outArg}\n  ${written.files.join('\n  ')}\n`);
  const missing = runDir.missingResultFiles();
  if (missing.length > 0) {
    io.stderr.write(`${messages.resultsNotWritten(missing)}\n`);
    return ExitCode.taskFailed;
  }
  const stoppedBy = interrupts.received();
  if (stoppedBy !== undefined) {
    io.stderr.write(`${messages.benchStopped(stoppedBy)}\n`);
    return stoppedBy === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
  }
  const failed = report.results.filter((r) => r.status !== 'completed');
  if (failed.length > 0) {
    io.stderr.write(`${messages.tasksIncomplete(failed.map((r) => `${r.task} (${r.status})`))}\n`);
    return ExitCode.taskFailed;
  }
  if (written.failedCharts.length > 0) {
    io.stderr.write(`${messages.chartsFailed(written.failedCharts)}\n`);
    return ExitCode.taskFailed;
  }
  return ExitCode.ok;
}

/** The machine's ceilings for MFU/MBU when a timing task runs and `--no-calibrate` is not given. */
async function calibrationFor(
  options: BenchCliOptions,
  taskNames: readonly string[],
  info: { readonly threads: number; readonly engine: string },
  logger: Logger,
  stderr: CliWriter,
): Promise<Calibration | undefined> {
  if (!options.calibrate || !taskNames.some((t) => t === 'throughput' || t === 'latency')) return undefined;
  const outcome = await runCalibration({
    threads: info.threads,
    engine: info.engine,
    budgetMs: options.calibrationMs,
    logger,
    ...(options.quiet === true ? {} : { notes: stderr }),
    ...(options.recalibrate === true ? { recalibrate: true } : {}),
  });
  return outcome.calibration;
}

/** The sweep in one line, with the seed's snake_case names. */
function describeConfig(config: BenchmarkConfig): string {
  const entries = Object.entries(BenchmarkConfig.toSnakeCase(config)).filter(([k]) => k !== 'output_dir');
  return entries.map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`).join(' ');
}
