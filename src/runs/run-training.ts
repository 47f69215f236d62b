/**
 * `runTraining`: everything `dantinox train` does — a training run as a dantinox run folder: the run lock, the
 * fixed train / held-out split, the model's tokenizer, the trainer, the log written as it goes (`train-log.jsonl`
 * and `.csv`), validations, atomic checkpoints (and one of the last completed step when stopped), the
 * `training_curve` chart, `training.json`, and the trained model as a dantinox model folder (`model/`) that
 * `--model` opens on every engine. `resume` continues a run from its checkpoint, bit for bit.
 *
 * @packageDocumentation
 */
import { existsSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { BenchmarkConfig } from '../benchmarking/config.js';
import { collectEnvironment } from '../benchmarking/environment.js';
import { type Logger, silentLogger } from '../benchmarking/logger.js';
import { hookCaller } from '../benchmarking/result-sink.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelConfig } from '../models/model-config.js';
import { MODEL_FOLDER_FILES, writeModelFolder } from '../models/model-folder.js';
import type { Ceilings } from '../profiling/efficiency.js';
import { countTrainingFlops } from '../profiling/flops.js';
import {
  addStep,
  CHECKPOINT_FOLDER,
  CHECKPOINT_FORMAT,
  type CheckpointRecord,
  EMPTY_INTERVAL,
  isDue,
  type LogInterval,
  logRow,
  type ResolvedTrainingOptions,
  type StepRecord,
  TRAINING_LOG_FILES,
  Trainer,
  TrainingLog,
  type TrainingLogRow,
  tokenizeText,
  type ValidationRecord,
  validationSet,
  writeCheckpoint,
} from '../training/index.js';
import { Visualizer } from '../visualization/index.js';
import { runCalibration } from './calibration-step.js';
import { gitInfo } from './git-info.js';
import { claimRunDir, prepareOutputDir, TRAINED_MODEL_FOLDER, TRAINING_RECORD_FILE } from './output-dir.js';
import { acquireRunLock } from './run-lock.js';
import type { CalibrationPlan } from './run-matrix.js';
import {
  newSource,
  type RunSource,
  resumedSource,
  sha256,
  type TrainingSourceInput,
} from './training-source.js';

export { DEFAULT_TRAINING_CONFIG } from './training-source.js';

/** What a run starts with, told to {@link TrainingHooks.onStart}. */
export interface TrainingStart {
  /** The architecture trained. */
  readonly config: ModelConfig;
  /** The resolved settings. */
  readonly options: ResolvedTrainingOptions;
  /** Updates already done (a resumed run's checkpoint step; 0 otherwise). */
  readonly step: number;
  /** Tokens of the training text and of the held-out text. */
  readonly tokens: {
    /** Training tokens. */
    readonly train: number;
    /** Held-out tokens. */
    readonly heldOut: number;
  };
  /** Tokenizer name. */
  readonly tokenizer: string;
  /** Engine label and threads. */
  readonly engine: string;
  /** Intra-op threads. */
  readonly threads: number;
}

/** Hooks of a training run: all optional; one that throws is logged and the run goes on. */
export interface TrainingHooks {
  /** Name in the message when a hook throws. */
  readonly name?: string;
  /** A line for a person (tokenizing, calibrating, resuming), ending in a newline. */
  onNote?(text: string): void;
  /** The trainer is ready. */
  onStart?(start: TrainingStart): void;
  /** An update finished; `secondsPerStep` is the mean step time so far in this process. */
  onStep?(record: StepRecord, secondsPerStep: number): void;
  /** A log row was written. */
  onRow?(row: TrainingLogRow): void;
  /** A checkpoint of step `step` was written. */
  onCheckpoint?(step: number): void;
}

/** Inputs of {@link runTraining}. */
export interface TrainingRunInput extends TrainingSourceInput {
  /** The run folder. */
  readonly dir: string;
  /** Base of relative paths. @default process.cwd() */
  readonly cwd?: string;
  /** Replace a run already in `dir`, and start even when the memory estimate exceeds what is available. @default false */
  readonly force?: boolean;
  /**
   * Continue the run in `dir` from its checkpoint, with the run's own config, data, tokenizer, settings and thread
   * count (giving any of them is refused). @default false
   */
  readonly resume?: boolean;
  /** Calibrate the machine's fp32 ceiling for the `mfu` column (cached). @default undefined (no `mfu`) */
  readonly calibration?: CalibrationPlan;
  /** Draw `training_curve` into `charts/`. @default true */
  readonly charts?: boolean;
  /** Stops the run after the current step: a checkpoint of it is written, then everything else. */
  readonly signal?: AbortSignal;
  /** Progress hooks. */
  readonly hooks?: TrainingHooks;
  /** Where warnings go. @default silent */
  readonly logger?: Logger;
  /** Monotonic clock in nanoseconds (tests inject a manual one). @default process.hrtime.bigint */
  readonly clock?: () => bigint;
  /** Command line recorded in `training.json`. */
  readonly commandLine?: string;
}

/** What {@link runTraining} did. */
export interface TrainingRunResult {
  /** `completed` after the last step, `aborted` when stopped (a checkpoint of the last completed step is written). */
  readonly status: 'completed' | 'aborted';
  /** The run folder (absolute). */
  readonly dir: string;
  /** Updates done. */
  readonly step: number;
  /** Updates of the whole run. */
  readonly steps: number;
  /** The last log row. */
  readonly last?: TrainingLogRow;
  /** Files and folders written, relative to the run folder. */
  readonly files: readonly string[];
}

/**
 * Trains the built-in transformer of `input.config` (or continues the run in `input.dir`) and writes the run
 * folder. Returns `aborted` when `input.signal` stopped it (after a checkpoint of the last completed step).
 *
 * @example
 * ```ts
 * const result = await runTraining({ dir: 'results/tiny', config: 'tiny', options: { steps: 200 } });
 * console.log(result.status, result.last?.val_loss);
 * ```
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for bad settings, a folder that already holds a run (unless
 * `force`) or is locked, a tokenizer whose vocabulary exceeds the config's, a run too large for memory, or a resume
 * without a checkpoint; `INVALID_INPUT` for an empty or too short text; `UNSUPPORTED` for a mixture of experts;
 * `RUNTIME_ERROR` when training diverges or the engine fails; `IO` for unreadable or unwritable files.
 */
export async function runTraining(input: TrainingRunInput): Promise<TrainingRunResult> {
  const cwd = input.cwd ?? process.cwd();
  const logger = input.logger ?? silentLogger;
  const call = hookCaller([input.hooks ?? {}], logger, 'hook');
  const note = (text: string): Promise<void> => call('onNote', text);
  const dir = isAbsolute(input.dir) ? input.dir : resolve(cwd, input.dir);
  const resume = input.resume === true;
  if (resume && !existsSync(dir))
    throw new DantinoxError('INVALID_OPTION', messages.trainNoCheckpoint(input.dir));
  // Everything a new run is given is checked before its folder is touched; the lock is held before a checkpoint
  // is read or a run replaced.
  const fresh = resume ? undefined : newSource(input, cwd);
  if (!resume) prepareOutputDir(input.dir, cwd);
  const lock = acquireRunLock(dir, input.dir, resume ? '--resume' : '--out');
  try {
    if (!resume) claimRunDir(input.dir, cwd, input.force === true);
    const source = fresh ?? (await resumedSource(input, dir, input.dir));
    return await train(input, source, dir, note, call, logger);
  } finally {
    lock.release();
  }
}

async function train(
  input: TrainingRunInput,
  source: RunSource,
  dir: string,
  note: (text: string) => Promise<void>,
  call: ReturnType<typeof hookCaller<TrainingHooks>>,
  logger: Logger,
): Promise<TrainingRunResult> {
  const { config, options, text, tokenizer } = source;
  const clock = input.clock ?? process.hrtime.bigint;
  const record0 = source.checkpoint?.record;
  if (record0 !== undefined)
    await note(`Resuming ${input.dir} at step ${record0.step} of ${options.steps}.\n`);
  await note(`Tokenizing ${text.name} with ${tokenizer.name}…\n`);
  const train = tokenizeText(tokenizer, text.train);
  const heldOut = tokenizeText(tokenizer, text.heldOut);
  const shape = { batch: options.batchSize, seq: options.seqLen };
  const validation = validationSet(heldOut, {
    shape,
    maxBatches: options.valBatches,
    paradigm: config.paradigm,
    tokenizer,
    seed: options.seed,
    maskTokenId: config.maskTokenId,
  });
  const threads = record0?.threads ?? input.threads;
  const trainer = await Trainer.create({
    config,
    options,
    train,
    validation,
    ...(threads === undefined ? {} : { threads }),
    ...(source.checkpoint === undefined ? {} : { state: source.checkpoint.state }),
    ...(input.force === true ? { force: true } : {}),
  });
  try {
    let ceilings: Ceilings | undefined;
    if (input.calibration !== undefined) {
      const outcome = await runCalibration({
        threads: trainer.threads,
        recalibrate: input.calibration.recalibrate,
        budgetMs: input.calibration.budgetMs,
        logger,
        notes: { write: (t: string) => void note(t) },
      });
      ceilings = outcome.calibration.ceilings;
    }
    await call('onStart', {
      config,
      options,
      step: trainer.step,
      tokens: { train: train.length, heldOut: heldOut.length },
      tokenizer: tokenizer.name,
      engine: trainer.engine,
      threads: trainer.threads,
    });
    const flopsPerToken =
      countTrainingFlops(config, { seqLen: shape.seq, batchSize: shape.batch }).total /
      (shape.batch * shape.seq);
    const log = TrainingLog.open(dir, record0?.step);
    let interval: LogInterval = record0?.interval ?? EMPTY_INTERVAL;
    let tokens = record0?.tokens ?? 0;
    let trainSeconds = record0?.trainSeconds ?? 0;
    let stepsHere = 0;
    let secondsHere = 0;
    // What the checkpoint records of the data and tokenizer, hashed once.
    const data = {
      name: text.name,
      ...(source.dataPath === undefined ? {} : { path: source.dataPath }),
      sha256: sha256(text.train, text.heldOut),
    };
    const tokenizerRecord = {
      name: tokenizer.name,
      vocabSize: tokenizer.vocabSize,
      ...(source.tokenizerFiles === undefined
        ? {}
        : { sha256: sha256(JSON.stringify(source.tokenizerFiles.tokenizerJson)) }),
    };
    const checkpoint = async (): Promise<void> => {
      const state = trainer.state();
      const record: CheckpointRecord = {
        format: CHECKPOINT_FORMAT,
        step: trainer.step,
        options,
        threads: trainer.threads,
        data,
        tokenizer: tokenizerRecord,
        tokens,
        trainSeconds,
        interval,
        ...(state.average === undefined ? {} : { averaged: state.average.count }),
      };
      await writeCheckpoint(dir, {
        record,
        state,
        config,
        ...(source.tokenizerFiles === undefined ? {} : { tokenizer: source.tokenizerFiles }),
      });
      await call('onCheckpoint', trainer.step);
    };
    let aborted = false;
    while (trainer.step < options.steps) {
      if (input.signal?.aborted) {
        aborted = true;
        break;
      }
      const t0 = clock();
      const record = await trainer.trainStep();
      const seconds = Number(clock() - t0) / 1e9;
      interval = addStep(interval, record, seconds);
      tokens += record.tokens;
      trainSeconds += seconds;
      stepsHere += 1;
      secondsHere += seconds;
      await call('onStep', record, secondsHere / stepsHere);
      const validate = isDue(options.valEvery, record.step, options.steps);
      if (validate || isDue(options.logEvery, record.step, options.steps)) {
        const v: ValidationRecord | undefined = validate ? await trainer.validate() : undefined;
        const row = logRow(interval, record, tokens, v, { flopsPerToken, ceilings });
        log.append(row);
        interval = EMPTY_INTERVAL;
        await call('onRow', row);
      }
      if (isDue(options.checkpointEvery, record.step, options.steps)) await checkpoint();
    }
    if (aborted && trainer.step > (record0?.step ?? 0)) await checkpoint();
    const files: string[] = [TRAINING_LOG_FILES.jsonl, TRAINING_LOG_FILES.csv];
    if (existsSync(join(dir, CHECKPOINT_FOLDER))) files.push(`${CHECKPOINT_FOLDER}/`);
    if (!aborted) {
      await writeModelFolder(join(dir, TRAINED_MODEL_FOLDER), {
        config,
        weights: trainer.model,
        ...(source.tokenizerFiles === undefined ? {} : { tokenizer: source.tokenizerFiles }),
      });
      files.push(`${TRAINED_MODEL_FOLDER}/`);
    }
    if (input.charts !== false) files.push(...(await drawCurve(dir, log.rows, logger)));
    const last = log.rows[log.rows.length - 1];
    writeFileSync(
      join(dir, TRAINING_RECORD_FILE),
      `${JSON.stringify(
        {
          format: 'dantinox-training/1',
          status: aborted ? 'aborted' : 'completed',
          step: trainer.step,
          steps: options.steps,
          tokens,
          trainSeconds,
          config,
          options,
          data: {
            name: text.name,
            trainTokens: train.length,
            heldOutTokens: heldOut.length,
            validationTokens: validation.tokens,
          },
          tokenizer: { name: tokenizer.name, vocabSize: tokenizer.vocabSize },
          model: aborted ? null : `${TRAINED_MODEL_FOLDER}/${MODEL_FOLDER_FILES.weights}`,
          flops: {
            perToken: flopsPerToken,
            convention: 'countTrainingFlops: 3 × the forward pass of countFlops (2 FLOPs per multiply-add)',
          },
          engine: trainer.engine,
          threads: trainer.threads,
          ...(last === undefined ? {} : { last }),
          environment: collectEnvironment({
            config: BenchmarkConfig.parse({ seed: options.seed, threads: trainer.threads }),
            ...(input.commandLine === undefined ? {} : { commandLine: input.commandLine }),
            git: gitInfo(input.cwd ?? process.cwd()),
          }),
        },
        null,
        2,
      )}\n`,
    );
    files.push(TRAINING_RECORD_FILE);
    return {
      status: aborted ? 'aborted' : 'completed',
      dir,
      step: trainer.step,
      steps: options.steps,
      ...(last === undefined ? {} : { last }),
      files,
    };
  } finally {
    await trainer.dispose();
  }
}

/** Draws the log with `training_curve` into `charts/`; a log it cannot draw yet (one row) is noted, not fatal. */
async function drawCurve(dir: string, rows: readonly TrainingLogRow[], logger: Logger): Promise<string[]> {
  const results = await new Visualizer().render(rows, {
    charts: ['training_curve'],
    outDir: join(dir, 'charts'),
    formats: ['svg', 'png'],
    runName: 'training',
    overwrite: true,
  });
  const result = results['training_curve'];
  if (result?.status === 'rendered') return Object.values(result.paths).map((p) => p.slice(dir.length + 1));
  if (result !== undefined) logger.log('warn', messages.trainCurveNotDrawn(result.reason));
  return [];
}
