/**
 * What a training run trains on, resolved before anything is written: for a new run the config, settings,
 * tokenizer and text of its inputs (checked, the memory estimate included, before the text is read); for a resumed
 * run all of them from its checkpoint, the text read again and checked against the checkpoint's SHA-256.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { loadHfTokenizerFiles } from '../models/hf/hf-tokenizer.js';
import type { HfTokenizerFiles } from '../models/hf/hf-tokenizer-json.js';
import { ModelConfig } from '../models/model-config.js';
import { resolveModelConfig } from '../models/resolve-model-config.js';
import type { Tokenizer } from '../models/tokenizer.js';
import { modelTokenizer } from '../models/tokenizers/model-tokenizer.js';
import { readTextFile } from '../text-file.js';
import {
  brownTrainingText,
  CHECKPOINT_FOLDER,
  type Checkpoint,
  checkTrainingMemory,
  type ResolvedTrainingOptions,
  readCheckpoint,
  resolveTrainingOptions,
  splitTrainingText,
  type TrainingOptions,
  type TrainingText,
  trainingBlocker,
} from '../training/index.js';

/** The config `runTraining` trains when none is given. */
export const DEFAULT_TRAINING_CONFIG = 'tiny';

/** What a new run is asked to train (the inputs of `runTraining`). */
export interface TrainingSourceInput {
  /** Preset name, config file or config. @default 'tiny' */
  readonly config?: string | ModelConfig;
  /** A UTF-8 text file. @default the Brown corpus's training split */
  readonly data?: string;
  /** A `tokenizer.json`. @default the built-in tokenizer of the vocabulary size */
  readonly tokenizer?: string;
  /** Settings. */
  readonly options?: TrainingOptions;
  /** Intra-op threads. */
  readonly threads?: number;
  /** Skip the memory check. */
  readonly force?: boolean;
}

/** The config, text and tokenizer a run trains with, and where each came from. */
export interface RunSource {
  /** The architecture, with the dropout trained with. */
  readonly config: ModelConfig;
  /** The resolved settings. */
  readonly options: ResolvedTrainingOptions;
  /** The training and held-out text. */
  readonly text: TrainingText;
  /** The `--data` file, absolute (absent for the Brown corpus). */
  readonly dataPath?: string;
  /** The tokenizer. */
  readonly tokenizer: Tokenizer;
  /** The model's own tokenizer files (absent for a built-in tokenizer). */
  readonly tokenizerFiles?: HfTokenizerFiles;
  /** The checkpoint a resumed run continues from. */
  readonly checkpoint?: Checkpoint;
}

/** SHA-256 (hex) of `parts`, each followed by a NUL. */
export const sha256 = (...parts: string[]): string => {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p).update('\0');
  return hash.digest('hex');
};

/** The text of `data` (a file) or the Brown corpus's split. */
function readTrainingText(data: string | undefined, cwd: string): { text: TrainingText; path?: string } {
  if (data === undefined) return { text: brownTrainingText() };
  const path = isAbsolute(data) ? data : resolve(cwd, data);
  return { text: splitTrainingText(readTextFile(path, 'training text'), data), path };
}

/** The tokenizer of a run: a `tokenizer.json`, else the built-in one of the vocabulary, checked against it. */
function runTokenizer(
  config: ModelConfig,
  files: HfTokenizerFiles | undefined,
  source: string | undefined,
): Tokenizer {
  const tokenizer = modelTokenizer(config, files, source);
  if (tokenizer === undefined)
    throw new DantinoxError('INVALID_OPTION', messages.trainNoTokenizer(config.vocabSize));
  if (tokenizer.vocabSize > config.vocabSize)
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.trainTokenizerTooLarge(tokenizer.name, tokenizer.vocabSize, config.vocabSize),
    );
  return tokenizer;
}

/** The source of a new run. */
export function newSource(input: TrainingSourceInput, cwd: string): RunSource {
  const given = input.config ?? DEFAULT_TRAINING_CONFIG;
  const base = typeof given === 'string' ? resolveModelConfig(given, cwd).config : ModelConfig.parse(given);
  const blocker = trainingBlocker(base);
  if (blocker !== undefined) throw new DantinoxError('UNSUPPORTED', blocker);
  const options = resolveTrainingOptions(base, input.options);
  const config =
    options.dropout === base.dropout ? base : ModelConfig.parse({ ...base, dropout: options.dropout });
  const tokenizerPath = input.tokenizer === undefined ? undefined : resolve(cwd, input.tokenizer);
  const tokenizerFiles = tokenizerPath === undefined ? undefined : loadHfTokenizerFiles(tokenizerPath);
  const tokenizer = runTokenizer(config, tokenizerFiles, input.tokenizer);
  // Before the text is read and tokenized (seconds for a large BPE vocabulary).
  checkTrainingMemory(config, options, input.force === true);
  const { text, path } = readTrainingText(input.data, cwd);
  return {
    config,
    options,
    text,
    tokenizer,
    ...(path === undefined ? {} : { dataPath: path }),
    ...(tokenizerFiles === undefined ? {} : { tokenizerFiles }),
  };
}

/** The source of a resumed run: everything from its checkpoint, the data read again and checked. */
export async function resumedSource(
  input: TrainingSourceInput,
  dir: string,
  shownDir: string,
): Promise<RunSource> {
  const given = (['config', 'data', 'tokenizer', 'options'] as const).filter((k) => input[k] !== undefined);
  if (given.length > 0) throw new DantinoxError('INVALID_OPTION', messages.trainResumeSettings(given));
  const checkpoint = await readCheckpoint(dir);
  if (checkpoint === undefined)
    throw new DantinoxError('INVALID_OPTION', messages.trainNoCheckpoint(shownDir));
  const { record } = checkpoint;
  if (input.threads !== undefined && input.threads !== record.threads)
    throw new DantinoxError('INVALID_OPTION', messages.trainResumeThreads(input.threads, record.threads));
  const data = record.data.path;
  const { text, path } = readTrainingText(data, dir);
  if (sha256(text.train, text.heldOut) !== record.data.sha256)
    throw new DantinoxError('INVALID_INPUT', messages.trainDataChanged(record.data.name));
  const tokenizer = runTokenizer(checkpoint.config, checkpoint.tokenizer, CHECKPOINT_FOLDER);
  return {
    config: checkpoint.config,
    options: record.options,
    text,
    tokenizer,
    checkpoint,
    ...(path === undefined ? {} : { dataPath: path }),
    ...(checkpoint.tokenizer === undefined ? {} : { tokenizerFiles: checkpoint.tokenizer }),
  };
}
