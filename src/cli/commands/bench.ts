/**
 * `dantinox bench`: builds (or loads) a model, runs the benchmark suite with live progress on stderr, prints
 * the summary on stdout and writes results.csv, results.json, results.jsonl, charts and report.html.
 *
 * @packageDocumentation
 */
import { isAbsolute, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { BenchmarkConfig, type BenchmarkConfigInput, MIN_TIMED_CALLS } from '../../benchmarking/config.js';
import type { LogLevel } from '../../benchmarking/index.js';
import { resolveShard, shardFolderName } from '../../benchmarking/matrix/shard.js';
import { SUMMARY_FORMATS, type SummaryFormat } from '../../benchmarking/summary-table.js';
import { builtinTasks, DEFAULT_TASKS } from '../../benchmarking/task-registry.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { ENGINE_NAMES, type EngineName } from '../../models/engines/engine-name.js';
import type { ExecutionProvider } from '../../models/engines/ort/index.js';
import { DEFAULT_PRESET } from '../../models/model-selection.js';
import {
  type HistoryOptions,
  loadPlugins,
  planRun,
  readBenchConfigFile,
  timestampName,
} from '../../runs/index.js';
import { addCalibrationOptions, type CalibrationFlags, calibrationPlan } from '../calibration-options.js';
import { addCliOptions, type CliOptions } from '../cli-options.js';
import type { CommandContext } from '../command-context.js';
import type { ExitCode } from '../exit-code.js';
import { addHistoryOptions, checkHistoryOptions } from '../history-options.js';
import { tellLauncher } from '../malloc-tuning.js';
import { addMatrixAxisOptions, axisFlags } from '../matrix-axis-options.js';
import {
  parseNameList,
  parseNonNegativeInt,
  parseNonNegativeIntList,
  parseNonNegativeNumber,
  parseOpenFraction,
  parsePositiveInt,
  parsePositiveIntList,
} from '../option-parsers.js';
import { checkPluginNames, collect } from '../plugin-names.js';
import { runBenchPlan } from '../run-bench-plan.js';

/**
 * The sweep `dantinox bench` runs when no `--bench-config` is given: the library defaults
 * ({@link BenchmarkConfig.defaults}) with sequence lengths and perplexity windows that fit the default preset's
 * context (128 tokens), a shorter batch sweep, fewer perplexity batches and slow cells timed for about 3 s (at
 * least ten calls) rather than twenty calls, so the default run on the default preset takes about 16 s on
 * 2 cores. Flags override it field by field (`--seq-lens 64,128,256,512` for a model with a longer context).
 */
export const CLI_BENCH_DEFAULTS: BenchmarkConfigInput = Object.freeze({
  seqLens: [32, 64, 128],
  evalSeqLen: 128,
  batchSizes: [1, 4, 16],
  evalBatches: 16,
  maxMeasureMs: 3000,
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
  depths: {
    flags: '--depths <list>',
    description:
      'latency: also time prefill and decode with this many tokens already in the KV cache, e.g. 0,512,1024 (default: none)',
    parse: parseNonNegativeIntList,
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
  maxMeasureMs: {
    flags: '--max-measure-ms <ms>',
    description: withDefault(
      `end a cell's timed calls once they have lasted this long, after at least ${MIN_TIMED_CALLS} (0: no cap)`,
      'maxMeasureMs',
    ),
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
  ciLevel: {
    flags: '--ci-level <fraction>',
    description: withDefault(
      'kld, choice: coverage of the bootstrap confidence intervals (over windows, items)',
      'ciLevel',
    ),
    parse: parseOpenFraction,
  },
  ciResamples: {
    flags: '--ci-resamples <n>',
    description: withDefault('kld, choice: bootstrap resamples of those intervals', 'ciResamples'),
    parse: parsePositiveInt,
  },
  choiceItems: {
    flags: '--choice-items <n>',
    description: withDefault('choice: multiple-choice items (held-out sentences)', 'choiceItems'),
    parse: parsePositiveInt,
  },
  choiceDistractors: {
    flags: '--choice-distractors <k>',
    description: withDefault(
      'choice: distractor continuations per item (chance is 1/(k+1))',
      'choiceDistractors',
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
  threads: null, // a matrix axis: `--threads 1,2` (see addMatrixAxisOptions); `threads:` in --bench-config
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
export type BenchCliOptions = CalibrationFlags & {
  -readonly [K in keyof BenchmarkConfig]?: BenchmarkConfig[K];
} & {
  readonly ep?: string;
  readonly browserPath?: string;
  readonly isolation: boolean;
  readonly tasks?: string[];
  readonly plugin?: string[];
  readonly data?: string;
  readonly headDtype?: string;
  readonly blockSize?: number;
  readonly reference?: string;
  readonly referenceEngine?: EngineName;
  readonly benchConfig?: string;
  readonly out?: string;
  readonly shard?: string;
  readonly shards?: number;
  readonly resume?: boolean;
  readonly repeat: number;
  readonly charts: boolean;
  readonly force?: boolean;
  readonly quiet?: boolean;
  readonly format: SummaryFormat;
  readonly verbose?: boolean;
  readonly profile?: boolean;
  readonly trace?: boolean;
} & HistoryOptions;

const EXAMPLES = `
Examples:
  $ dantinox bench                                   # default suite on the trained "${DEFAULT_PRESET}" preset, a few minutes
  $ dantinox bench --config tiny --tasks throughput --seq-lens 32,64 --out results/tiny
  $ dantinox bench --config gpt2-small --threads 2 --n-measure 50
  $ dantinox bench --config my-model.yaml --bench-config bench.yaml --data valid.txt
  $ dantinox bench --model models/gpt2-onnx --tasks latency,perplexity
  $ dantinox bench --config small --paradigm diffusion
  $ dantinox bench --config tiny,small --threads 1,2 --out results/study      # a matrix of 4 variants
  $ dantinox bench --bench-config study.yaml --out results/study --resume     # continue an interrupted matrix
  $ dantinox bench --bench-config study.yaml --out /shared/study --shard 0/4  # shard 0 of 4 (also: JOB_COMPLETION_INDEX
                                                                              #   with --shards, SLURM_ARRAY_TASK_ID)
  $ dantinox bench --config small --engine ort,llama.cpp --dtype q8 --threads 2  # same weights, two engines
  $ dantinox bench --config small --target node,browser --tasks throughput,latency  # Node vs onnxruntime-web in Chromium
  $ dantinox bench --config tiny --dtype fp32,q8 --repeat 5 --out results/base  # 5 interleaved runs per variant

Without --bench-config the sweep is the library default with --batch-sizes ${EFFECTIVE_DEFAULTS.batchSizes.join(',')},
--eval-batches ${EFFECTIVE_DEFAULTS.evalBatches} and --max-measure-ms ${EFFECTIVE_DEFAULTS.maxMeasureMs}; flags override the file or these
defaults field by field. Progress goes to stderr, the summary to stdout. Ctrl-C (or SIGTERM) stops after the
current engine call and still writes every output from what was measured, then exits 130 (143); a second one
quits at once.
Exit code 1 when a task did not complete.
`;

/**
 * The benchmark config: library defaults ← CLI defaults or the `--bench-config` file ← flags. A `--min-measure-ms`
 * above the default run's cap asks for more time per cell, not less: without `--max-measure-ms` the cap yields (0).
 */
export function benchmarkConfig(
  options: BenchCliOptions,
  file: Record<string, unknown> | undefined,
): BenchmarkConfig {
  const base: BenchmarkConfigInput =
    file === undefined ? { ...CLI_BENCH_DEFAULTS } : { ...BenchmarkConfig.parse(file) };
  const flags: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(BENCH_CONFIG_OPTIONS)) {
    const value = (options as Record<string, unknown>)[key];
    if (spec !== null && value !== undefined) flags[key] = value;
  }
  if (
    file === undefined &&
    options.maxMeasureMs === undefined &&
    (options.minMeasureMs ?? 0) > EFFECTIVE_DEFAULTS.maxMeasureMs
  )
    base.maxMeasureMs = 0;
  const config = { ...BenchmarkConfig.defaults(), ...base, ...flags };
  const [min, max] = [Number(config.minMeasureMs), Number(config.maxMeasureMs)];
  if (max > 0 && min > max)
    throw new DantinoxError('INVALID_OPTION', messages.measureCapBelowMinimum(min, max));
  return BenchmarkConfig.parse(config);
}

/** Registers `dantinox bench` on `program`. */
export function registerBenchCommand(program: Command, ctx: CommandContext): Command {
  const command = program
    .command('bench')
    .summary('run the benchmark suite (throughput, latency, perplexity) on a model and write results')
    .description(
      'Builds a model (or loads a Hugging Face ONNX folder), runs the benchmark tasks with live progress on stderr, prints the summary on stdout and writes results.csv, results.json, results.jsonl, charts/ (SVG and PNG) and report.html into --out. Lists on the model axes (--config, --model, --engine, --target, --dtype, --threads, --paradigm, or a matrix: section in --bench-config) run every combination as a variant, one model at a time, each in its own sub-folder of --out, with the combined results, charts and report at the top.',
    );
  addMatrixAxisOptions(command)
    .option(
      '--ep <name>',
      'ONNX Runtime execution provider (default: cpu); an unavailable one is refused, naming those available; --target browser: wasm (default) or webgpu',
    )
    .option(
      '--browser-path <path>',
      '--target browser: the Chromium (or Chrome) executable (default: chromium, chromium-browser or google-chrome on PATH, else /usr/bin/chromium)',
    )
    .option(
      '--no-isolation',
      '--target browser: serve the page without COOP/COEP, to measure what a page that forgot them gets (one WASM thread, a 100 µs timer)',
    )
    .option(
      '-t, --tasks <list>',
      `tasks to run, in order: ${Object.keys(builtinTasks).join(', ')}, or one registered by a --plugin (default: ${DEFAULT_TASKS.join(',')})`,
      parseNameList,
    )
    .option(
      '--plugin <module>',
      'ES module whose default export registers tasks and/or charts (repeatable)',
      collect,
    )
    .option(
      '--data <file>',
      'UTF-8 validation text for perplexity, kld and choice (default: the Brown corpus, held-out split)',
    )
    .option('--head-dtype <name>', 'built-in models: dtype of the LM head (default: --dtype)')
    .option('--block-size <n>', 'q4: weights per 4-bit block (default: 32)', parsePositiveInt)
    .option(
      '--reference <folder>',
      'kld: the reference model folder (default: fp32 of the same config and seed, or the fp32 file of --model)',
    )
    .addOption(
      new Option(
        '--reference-engine <name>',
        'kld: the engine that runs the fp32 reference (default: ort), e.g. to check one engine against another',
      ).choices([...ENGINE_NAMES]),
    )
    .option(
      '--bench-config <file>',
      'YAML/JSON BenchmarkConfig (seed snake_case accepted); flags override it',
    );
  addCliOptions(command, BENCH_CONFIG_OPTIONS);
  addHistoryOptions(command);
  command
    .option('-o, --out <dir>', 'output directory (default: results/<timestamp>)')
    .option(
      '--repeat <n>',
      'runs of each variant, interleaved in rounds (every variant once, then again…) into --out/run-1 … run-<n>, so machine drift spreads over all variants; "dantinox compare" takes such a folder as n runs per side',
      parsePositiveInt,
      1,
    )
    .option(
      '--resume',
      'continue the run in --out with the same flags as that run: variants (and rounds) that completed are skipped, the others measured again; a run of another model, task set, dtype, thread count, engine or sweep is refused',
    )
    .option(
      '--shard <i/n>',
      'run only shard i of n (0-based) of the matrix variants, into --out/shard-<i>-of-<n>',
    )
    .option(
      '--shards <n>',
      'number of shards when the index comes from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)',
      parsePositiveInt,
    )
    .option(
      '--profile',
      'add a "profile" row per variant: ONNX Runtime\'s kernel time per operator category (matmul, attention, norm, softmax, other) of one prefill and one decode step',
    )
    .option(
      '--trace',
      "write trace.json per variant (Chrome trace format, opens in Perfetto): dantinox's spans, and ONNX Runtime's kernel events of the timed calls (--engine ort) with their per-operator table (operators.csv, an \"operators\" row) and the profiler's measured overhead",
    )
    .option('--no-charts', 'skip charts/ and report.html');
  addCalibrationOptions(command, 'MFU/MBU then say unavailable');
  return command
    .option(
      '--force',
      'replace a run already in --out, build a model or measure a cell whose memory estimate exceeds the available memory, and (--target browser --ep webgpu) accept a fallback (software) adapter',
    )
    .addOption(
      new Option(
        '--format <format>',
        'summary on stdout: table (mean ± sd per timed cell), kv (key=value lines), or markdown, json, csv (the summary rows of every variant alone on stdout; everything else on stderr)',
      )
        .choices([...SUMMARY_FORMATS])
        .default('table'),
    )
    .option('-q, --quiet', 'no progress on stderr')
    .option('--verbose', 'debug logging, a progress line for every cell, and stack traces on errors')
    .addHelpText('after', EXAMPLES)
    .action(async (options: BenchCliOptions) => {
      ctx.exitCode = await runBench(options, ctx);
    });
}

async function runBench(options: BenchCliOptions, ctx: CommandContext): Promise<ExitCode> {
  const { io } = ctx;
  // Everything a newcomer can get wrong is checked before the (slow) model builds.
  const file =
    options.benchConfig === undefined
      ? undefined
      : readBenchConfigFile(
          isAbsolute(options.benchConfig) ? options.benchConfig : resolve(io.cwd, options.benchConfig),
        );
  const config = benchmarkConfig(options, file?.config);
  const registries = await loadPlugins(options.plugin ?? [], io.cwd);
  const tasks = options.tasks ?? DEFAULT_TASKS;
  checkPluginNames('task', tasks, registries.tasks.names());
  if (config.depths.length > 0 && !tasks.includes('latency'))
    throw new DantinoxError('INVALID_OPTION', messages.depthsWithoutLatency(tasks));
  const shard = resolveShard({
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(options.shards === undefined ? {} : { shards: options.shards }),
    env: process.env,
  });
  checkHistoryOptions(options, io.cwd);
  if (shard !== undefined && options.out === undefined)
    throw new DantinoxError('INVALID_OPTION', messages.shardWithoutOut());
  if (options.resume === true && options.out === undefined)
    throw new DantinoxError('INVALID_OPTION', messages.resumeWithoutOut());
  const startedAt = io.now();
  const outArg = options.out ?? join('results', timestampName(startedAt));
  const shownDir = shard === undefined ? outArg : join(outArg, shardFolderName(shard));
  const { createWriterLogger } = await import('../../benchmarking/index.js');
  const level: LogLevel = options.verbose === true ? 'debug' : options.quiet === true ? 'error' : 'warn';
  const plan = planRun({
    dir: shownDir,
    cwd: io.cwd,
    axes: axisFlags(options),
    ...(file?.matrix === undefined ? {} : { matrix: file.matrix }),
    config,
    tasks,
    registries,
    plugins: options.plugin ?? [],
    logLevel: level,
    ...(options.data === undefined ? {} : { data: options.data }),
    // Any --ep name is passed on: createModel/loadHfModel ask the binding and refuse one it does not carry.
    shared: {
      ...(options.ep === undefined ? {} : { executionProvider: options.ep as ExecutionProvider }),
      force: options.force === true,
      ...(options.headDtype === undefined ? {} : { headDtype: options.headDtype }),
      ...(options.blockSize === undefined ? {} : { blockSize: options.blockSize }),
      ...(options.reference === undefined ? {} : { reference: options.reference }),
      ...(options.referenceEngine === undefined ? {} : { referenceEngine: options.referenceEngine }),
      ...(options.browserPath === undefined ? {} : { browserPath: options.browserPath }),
      ...(options.isolation ? {} : { isolated: false }),
    },
    ...(shard === undefined ? {} : { shard }),
    resume: options.resume === true,
    repeat: options.repeat,
    force: options.force === true,
    charts: options.charts,
    calibration: calibrationPlan(options) ?? false,
    history: options,
    profile: options.profile === true,
    trace: options.trace === true,
    logger: createWriterLogger(io.stderr, level),
    startedAt,
    commandLine: ['dantinox', ...ctx.argv].join(' '),
  });
  tellLauncher({ cellsDir: shownDir });
  return runBenchPlan(plan, { quiet: options.quiet === true, format: options.format }, ctx);
}
