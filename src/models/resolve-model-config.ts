/**
 * `--config <file|preset>`: a built-in preset name or a YAML/JSON model config file.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { ModelConfig } from './model-config.js';
import { checkTrainedPreset, isTrainedPreset } from './trained-presets.js';

/** A resolved `--config` value: the config and a short name for it (the preset name or the file's path). */
export interface ResolvedModelConfig {
  /** The validated config. */
  readonly config: ModelConfig;
  /** The preset name, or the path as given. */
  readonly name: string;
  /** Whether `name` is a built-in preset. */
  readonly isPreset: boolean;
  /**
   * For a trained preset: its shipped folder (absolute, its weights and tokenizer checked against their recorded
   * SHA-256), a dantinox model folder whose weights and tokenizer the config runs with.
   */
  readonly weightsFolder?: string;
}

/**
 * Resolves `value` as a preset name first, then as a file path relative to `cwd`. A value that is neither
 * gets a did-you-mean error listing the presets. A trained preset comes with its shipped folder, checked.
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` for an unknown preset, `IO` for a missing or
 * malformed file or a trained preset's missing or altered file, and `INVALID_MODEL_CONFIG` for an invalid config.
 */
export function resolveModelConfig(value: string, cwd: string): ResolvedModelConfig {
  const presets = ModelConfig.presetNames();
  if (isTrainedPreset(value)) {
    const weightsFolder = checkTrainedPreset(value);
    return { config: ModelConfig.preset(value), name: value, isPreset: true, weightsFolder };
  }
  if ((presets as string[]).includes(value)) {
    return { config: ModelConfig.preset(value), name: value, isPreset: true };
  }
  // Keep the user's spelling in messages when it already resolves from the process's directory.
  const path = isAbsolute(value) || resolve(cwd) === process.cwd() ? value : resolve(cwd, value);
  if (existsSync(path)) return { config: loadOneLineErrors(path), name: value, isPreset: false };
  const looksLikePath =
    /[\\/]/.test(value) || ['.yaml', '.yml', '.json'].includes(extname(value).toLowerCase());
  throw looksLikePath
    ? new DantinoxError('IO', messages.configFileMissing(value, presets))
    : new DantinoxError('INVALID_OPTION', messages.unknownConfig(value, presets));
}

/** {@link ModelConfig.load}, with a YAML/JSON syntax error cut to its first line (the parser adds a code frame). */
function loadOneLineErrors(path: string): ModelConfig {
  try {
    return ModelConfig.load(path);
  } catch (error) {
    if (!(error instanceof DantinoxError) || error.code !== 'IO' || !(error.cause instanceof Error))
      throw error;
    const firstLine = error.cause.message.split('\n')[0]?.replace(/:\s*$/, '') ?? error.cause.message;
    if (firstLine === error.cause.message) throw error;
    const format = extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML';
    throw new DantinoxError('IO', messages.malformedFile(path, format, firstLine), { cause: error.cause });
  }
}
