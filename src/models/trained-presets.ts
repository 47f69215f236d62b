/**
 * The built-in trained presets: a config, its trained float32 weights and its own BPE tokenizer, shipped inside
 * the package as a dantinox model folder (`presets/<name>/` at the package root). `--config <name>` runs these
 * weights with that tokenizer on every engine and dtype; the random-weight presets (`tiny`, `small`, …) stay for
 * speed work.
 *
 * A trained preset's folder holds `model.yaml` (the config it was trained from, which `ModelConfig.preset` reads),
 * `model.safetensors` (weights and config, `saveWeights`' format), `tokenizer.json`, `tokenizer_config.json` and
 * `training.json` (the record of the run that made them) and `SHA256SUMS`: the SHA-256 of the weights and of the
 * tokenizer, in `sha256sum`'s format (so `sha256sum -c SHA256SUMS` checks them too), checked before a model is
 * built from them and compared by `npm run train:builtin`, which retrains them from a clean clone.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { readTextFile } from '../text-file.js';
import { filesSha256 } from './weight-file-bytes.js';

/** A trained preset: how it was made and the SHA-256 (hex) of its shipped files. */
export interface TrainedPreset {
  /** One line: shape, tokenizer, data and steps. */
  readonly description: string;
  /** The `dantinox tokenizer train` arguments that made its tokenizer (the output folder is added). */
  readonly tokenizerArgs: readonly string[];
  /**
   * The `dantinox train` arguments that made its weights, with `model.yaml` for `--config` and
   * `tokenizer.json` for `--tokenizer` (paths inside the preset's folder and the tokenizer's output folder).
   */
  readonly trainArgs: readonly string[];
}

/** File names of a trained preset's folder. */
export const TRAINED_PRESET_FILES = Object.freeze({
  /** The config it was trained from. */
  config: 'model.yaml',
  /** Weights and config (a dantinox model folder's weights file). */
  weights: 'model.safetensors',
  /** Its BPE tokenizer. */
  tokenizer: 'tokenizer.json',
  /** The tokenizer's configuration. */
  tokenizerConfig: 'tokenizer_config.json',
  /** The record of the training run. */
  training: 'training.json',
  /** SHA-256 of the weights and the tokenizer, `sha256sum`'s lines. */
  sums: 'SHA256SUMS',
} as const);

/** The shipped files whose SHA-256 `SHA256SUMS` records: what training reproduces. */
export const TRAINED_PRESET_HASHED_FILES = Object.freeze([
  TRAINED_PRESET_FILES.weights,
  TRAINED_PRESET_FILES.tokenizer,
] as const);

/** The built-in trained presets, by name. */
export const TRAINED_PRESETS: Readonly<Record<'brown', TrainedPreset>> = {
  /**
   * dim 256, 8 heads, 6 blocks, a 4,096-token byte-level BPE learned on the Brown corpus's training split, context
   * 128, SwiGLU ×3, RMSNorm, rotary, dropout 0.2 (6.16 M parameters), trained 7,000 steps of 16 × 128 tokens there;
   * its weights are the mean of those after steps 5,000, 5,250, …, 7,000.
   */
  brown: {
    description:
      'dim 256, 8 heads, 6 blocks, a 4,096-token BPE, context 128, trained 7,000 steps on the Brown corpus',
    tokenizerArgs: ['--vocab-size', '4096'],
    trainArgs: [
      '--steps',
      '7000',
      '--warmup-steps',
      '300',
      '--lr',
      '0.002',
      '--seed',
      '0',
      '--threads',
      '2',
      '--val-every',
      '1000',
      '--val-batches',
      '64',
      '--log-every',
      '100',
      '--checkpoint-every',
      '1000',
      '--average-from',
      '5000',
      '--average-every',
      '250',
    ],
  },
};

/** Name of a built-in trained preset. */
export type TrainedPresetName = keyof typeof TRAINED_PRESETS;

/** The folder of the trained presets, `presets/` at the package root (beside `dist/` and `src/`). */
const PRESETS_ROOT = fileURLToPath(new URL('../../presets/', import.meta.url));

/** The folders {@link checkTrainedPreset} found intact in this process (checked once: a bench resolves often). */
const checked = new Set<string>();

/** Whether `name` is a built-in trained preset. */
export function isTrainedPreset(name: string): name is TrainedPresetName {
  return Object.hasOwn(TRAINED_PRESETS, name);
}

/** The absolute path of the trained preset `name`'s shipped folder (not checked). */
export function trainedPresetDir(name: TrainedPresetName): string {
  return join(PRESETS_ROOT, name);
}

/**
 * The absolute path of the trained preset `name`'s config file, after checking that it exists.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the preset's folder or its config is missing.
 */
export function trainedPresetConfigFile(name: TrainedPresetName): string {
  const file = join(trainedPresetDir(name), TRAINED_PRESET_FILES.config);
  if (!existsSync(file))
    throw new DantinoxError('IO', messages.trainedPresetMissing(name, trainedPresetDir(name), [file]));
  return file;
}

/**
 * The trained preset `name`'s folder (`dir`: its shipped one), after checking that its weights and tokenizer are
 * there and have the SHA-256 its `SHA256SUMS` records (a ≈ 21 MB file hashes in tens of milliseconds; once per
 * process and folder).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when a file is missing, `SHA256SUMS` does not list both files, or a
 * file's contents differ from the shipped ones.
 */
export function checkTrainedPreset(name: TrainedPresetName, dir = trainedPresetDir(name)): string {
  if (checked.has(dir)) return dir;
  const missing = [TRAINED_PRESET_FILES.config, TRAINED_PRESET_FILES.sums, ...TRAINED_PRESET_HASHED_FILES]
    .map((f) => join(dir, f))
    .filter((f) => !existsSync(f));
  if (missing.length > 0) throw new DantinoxError('IO', messages.trainedPresetMissing(name, dir, missing));
  const sums = readSha256Sums(join(dir, TRAINED_PRESET_FILES.sums));
  for (const file of TRAINED_PRESET_HASHED_FILES) {
    const expected = sums.get(file);
    const actual = filesSha256([join(dir, file)]);
    if (expected !== actual)
      throw new DantinoxError('IO', messages.trainedPresetCorrupt(name, join(dir, file), expected, actual));
  }
  checked.add(dir);
  return dir;
}

/**
 * The SHA-256 (hex) by file name of a `sha256sum` output file (`<64 hex digits>  <name>` per line, `*` before
 * the name in binary mode); lines of another shape are skipped, so a listed file that is absent reads as missing.
 */
export function readSha256Sums(path: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of readTextFile(path, 'SHA-256 list').split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
    if (match !== null) sums.set(match[2] as string, match[1] as string);
  }
  return sums;
}

/** `sha256sum`'s lines for `files` of `dir` (what `SHA256SUMS` holds). */
export function sha256SumsText(dir: string, files: readonly string[] = TRAINED_PRESET_HASHED_FILES): string {
  return files.map((f) => `${filesSha256([join(dir, f)])}  ${f}\n`).join('');
}
