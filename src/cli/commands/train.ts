/**
 * `dantinox train`: trains the built-in transformer of a `--config` on a text file or the Brown corpus and writes
 * a run folder (log, checkpoint, chart, the trained model). Parses flags, shows progress, maps the outcome to an
 * exit code; {@link runTraining} does the rest.
 *
 * @packageDocumentation
 */
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { DEFAULT_TRAINING_CONFIG, runTraining, timestampName } from '../../runs/index.js';
import {
  CHECKPOINT_FOLDER,
  defaultWarmupSteps,
  TRAINING_DEFAULTS,
  type TrainingOptions,
} from '../../training/index.js';
import { addCalibrationOptions, type CalibrationFlags, calibrationPlan } from '../calibration-options.js';
import { addCliOptions, type CliOptions } from '../cli-options.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { signalExitCode, watchInterrupts } from '../interrupts.js';
import {
  parseNonNegativeInt,
  parseNonNegativeNumber,
  parsePositiveInt,
  parsePositiveNumber,
  parseUnitFraction,
} from '../option-parsers.js';
import { trainingProgress } from '../training-progress.js';

/** `text (default: <value>)`, the value read from {@link TRAINING_DEFAULTS}. */
const withDefault = (text: string, key: keyof typeof TRAINING_DEFAULTS): string =>
  `${text} (default: ${TRAINING_DEFAULTS[key]})`;

/** Every {@link TrainingOptions} field as a flag (no commander defaults: a flag given is a flag the user typed). */
const TRAINING_OPTIONS: CliOptions<TrainingOptions> = {
  steps: {
    flags: '--steps <n>',
    description: withDefault('optimizer updates', 'steps'),
    parse: parsePositiveInt,
  },
  batchSize: {
    flags: '--batch-size <n>',
    description: withDefault('sequences per batch', 'batchSize'),
    parse: parsePositiveInt,
  },
  seqLen: {
    flags: '--seq-len <n>',
    description: "tokens per sequence (default: the config's max_context)",
    parse: parsePositiveInt,
  },
  lr: {
    flags: '--lr <rate>',
    description: withDefault('peak learning rate', 'lr'),
    parse: parsePositiveNumber,
  },
  minLr: {
    flags: '--min-lr <rate>',
    description: 'learning rate at the last step, the floor of the cosine decay (default: --lr / 10)',
    parse: parseNonNegativeNumber,
  },
  warmupSteps: {
    flags: '--warmup-steps <n>',
    description: `steps of linear warm-up (default: min(100, steps / 10): ${defaultWarmupSteps(TRAINING_DEFAULTS.steps)} for ${TRAINING_DEFAULTS.steps} steps)`,
    parse: parseNonNegativeInt,
  },
  beta1: { flags: '--beta1 <b>', description: withDefault("AdamW's β1", 'beta1'), parse: parseUnitFraction },
  beta2: { flags: '--beta2 <b>', description: withDefault("AdamW's β2", 'beta2'), parse: parseUnitFraction },
  eps: { flags: '--eps <e>', description: withDefault("AdamW's ε", 'eps'), parse: parsePositiveNumber },
  weightDecay: {
    flags: '--weight-decay <w>',
    description: withDefault(
      'decoupled weight decay of matrices and embeddings (never norms)',
      'weightDecay',
    ),
    parse: parseNonNegativeNumber,
  },
  gradClip: {
    flags: '--grad-clip <norm>',
    description: withDefault('clip gradients to this global norm (0: never)', 'gradClip'),
    parse: parseNonNegativeNumber,
  },
  dropout: {
    flags: '--dropout <p>',
    description:
      "dropout of the embedding and of each block's attention and MLP outputs (default: the config's dropout)",
    parse: parseUnitFraction,
  },
  seed: {
    flags: '--seed <n>',
    description: withDefault('seed of the initial weights and of every batch and dropout draw', 'seed'),
    parse: parseNonNegativeInt,
  },
  valEvery: {
    flags: '--val-every <n>',
    description: withDefault(
      'validate on the held-out text every n steps and after the last (0: last only)',
      'valEvery',
    ),
    parse: parseNonNegativeInt,
  },
  valBatches: {
    flags: '--val-batches <n>',
    description: withDefault('held-out batches each validation scores', 'valBatches'),
    parse: parsePositiveInt,
  },
  logEvery: {
    flags: '--log-every <n>',
    description: withDefault('write a log row every n steps (and at each validation)', 'logEvery'),
    parse: parsePositiveInt,
  },
  checkpointEvery: {
    flags: '--checkpoint-every <n>',
    description: withDefault(
      'write a checkpoint every n steps and after the last (0: last only)',
      'checkpointEvery',
    ),
    parse: parseNonNegativeInt,
  },
  averageFrom: {
    flags: '--average-from <step>',
    description: withDefault(
      'write as the model the mean of the weights after this update and every --average-every-th after it; validation scores that mean from then on (0: the last weights)',
      'averageFrom',
    ),
    parse: parseNonNegativeInt,
  },
  averageEvery: {
    flags: '--average-every <n>',
    description: withDefault('updates between two weights averaged', 'averageEvery'),
    parse: parsePositiveInt,
  },
};

/** Parsed options of `dantinox train`. */
type TrainCliOptions = CalibrationFlags & { -readonly [K in keyof TrainingOptions]?: TrainingOptions[K] } & {
  readonly config?: string;
  readonly data?: string;
  readonly tokenizer?: string;
  readonly threads?: number;
  readonly out?: string;
  readonly resume?: string;
  readonly force?: boolean;
  readonly charts: boolean;
  readonly quiet?: boolean;
};

const EXAMPLES = `
Examples:
  $ dantinox train --config tiny --steps 200 --out results/tiny-train
  $ dantinox train --config tiny --data notes.txt --steps 500 --lr 0.003 --out results/notes
  $ dantinox train --config my-model.yaml --tokenizer bpe/tokenizer.json --steps 5000 --seed 0 --out results/bpe
  $ dantinox train --resume results/bpe                 # continue a stopped run where its checkpoint left it
  $ dantinox bench --model results/tiny-train/model     # the trained model, on any engine and dtype

The data is the Brown corpus's training split (every tenth document held out), or --data split the same way by
paragraphs (blocks between blank lines; every tenth held out). Training never sees the held-out text; validation
scores it (loss and bits per byte). The run folder gets train-log.jsonl and train-log.csv (step, train_loss,
val_loss, val_bits_per_byte, lr, grad_norm, tokens, tokens_per_s, mfu), checkpoint/ (weights, AdamW moments and
trainer state, written atomically), charts/ (training_curve), training.json and model/, a model folder that
--model opens. Ctrl-C or SIGTERM stops after the current step and writes a checkpoint of it; --resume continues
bit for bit (same machine and --threads). MFU counts training FLOPs as 3 × the forward pass's.
Exit codes: 0 done, 1 the engine failed or training diverged, 2 bad input, 130 / 143 stopped by Ctrl-C / SIGTERM.
`;

/** Registers `dantinox train` on `program`. */
export function registerTrainCommand(program: Command, ctx: CommandContext): Command {
  const command = program
    .command('train')
    .summary('train the built-in transformer on a text file or the Brown corpus')
    .description(
      'Trains a built-in transformer config (same graph family, weights and tokenizers as every other command) with forward and backward passes run by ONNX Runtime, AdamW, warm-up and cosine decay, gradient clipping, and validation on held-out text; writes the log, checkpoints, the training curve and the trained model.',
    )
    .option(
      '--config <preset|file>',
      `preset name or YAML/JSON model config (default: ${DEFAULT_TRAINING_CONFIG})`,
    )
    .option(
      '--data <file.txt>',
      "UTF-8 text to train on, split by paragraphs (default: the Brown corpus's training split)",
    )
    .option(
      '--tokenizer <path>',
      "a tokenizer.json (file or folder); default: the built-in tokenizer of the config's vocabulary",
    );
  addCliOptions(command, TRAINING_OPTIONS);
  command
    .option('--threads <n>', 'intra-op threads of ONNX Runtime (default: every core)', parsePositiveInt)
    .option('-o, --out <dir>', 'run folder (default: results/<timestamp>)')
    .option('--resume <dir>', 'continue the run in <dir> from its checkpoint, with its own settings')
    .option(
      '--force',
      'replace a run already in --out, and start even when the memory estimate exceeds the available memory',
    )
    .option('--no-charts', 'skip charts/');
  addCalibrationOptions(command, 'no mfu column then');
  return command
    .option('-q, --quiet', 'no progress on stderr')
    .addHelpText('after', EXAMPLES)
    .action(async (options: TrainCliOptions, cmd: Command) => {
      ctx.exitCode = await runTrainCommand(options, cmd, ctx);
    });
}

/** The {@link TrainingOptions} the user typed (flags left out keep the library's defaults). */
function typedOptions(options: TrainCliOptions, cmd: Command): TrainingOptions {
  const out: Record<string, number> = {};
  for (const key of Object.keys(TRAINING_OPTIONS) as (keyof TrainingOptions)[]) {
    const value = options[key];
    if (value !== undefined && cmd.getOptionValueSource(key) === 'cli') out[key] = value;
  }
  return out as TrainingOptions;
}

async function runTrainCommand(
  options: TrainCliOptions,
  cmd: Command,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const settings = typedOptions(options, cmd);
  const resume = options.resume !== undefined;
  if (resume && options.out !== undefined)
    throw new DantinoxError('INVALID_OPTION', messages.trainResumeAndOut());
  const given = Object.keys(settings).length > 0;
  const dir = options.resume ?? options.out ?? join('results', timestampName(io.now()));
  const calibration = calibrationPlan(options);
  const progress = trainingProgress(io.stderr, options.quiet === true);
  const interrupts = watchInterrupts({
    stderr: io.stderr,
    underLauncher: false,
    notice: messages.trainStopping,
  });
  try {
    const result = await runTraining({
      dir,
      cwd: io.cwd,
      resume,
      ...(options.force === true ? { force: true } : {}),
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(options.data === undefined ? {} : { data: options.data }),
      ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
      ...(given || !resume ? { options: settings } : {}),
      ...(options.threads === undefined ? {} : { threads: options.threads }),
      ...(calibration === undefined ? {} : { calibration }),
      charts: options.charts,
      signal: interrupts.signal,
      hooks: progress,
      logger: { log: (level, message) => io.stderr.write(`[${level}] ${message}\n`) },
      commandLine: ['dantinox', ...ctx.argv].join(' '),
    });
    progress.stop();
    const shown = relative(io.cwd, result.dir) || '.';
    for (const f of result.files) io.stdout.write(`${join(shown, f)}\n`);
    if (result.status === 'aborted') {
      const checkpoint = result.files.includes(`${CHECKPOINT_FOLDER}/`);
      io.stderr.write(`${messages.trainStopped(result.step, result.steps, shown, checkpoint)}\n`);
      const signal = interrupts.received();
      return signal === undefined ? ExitCode.interrupted : (signalExitCode(signal) as ExitCode);
    }
    return ExitCode.ok;
  } finally {
    progress.stop();
    interrupts.dispose();
  }
}
