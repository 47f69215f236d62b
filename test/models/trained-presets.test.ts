/**
 * The trained preset `brown` ships as a dantinox model folder in `presets/brown/`: its config (`model.yaml`) is
 * the one stored in its weights, its record (`training.json`) holds the settings its `trainArgs` give, `SHA256SUMS`
 * matches the weights and tokenizer, `--config brown` and the default bench resolve to that folder, and a folder
 * with a file missing or altered is refused with one line.
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { modelFolderConfig, readModelFolder } from '../../src/models/model-folder.js';
import { checkModelSelection, DEFAULT_PRESET } from '../../src/models/model-selection.js';
import { resolveModelConfig } from '../../src/models/resolve-model-config.js';
import {
  checkTrainedPreset,
  readSha256Sums,
  sha256SumsText,
  TRAINED_PRESET_FILES,
  TRAINED_PRESET_HASHED_FILES,
  TRAINED_PRESETS,
  trainedPresetDir,
} from '../../src/models/trained-presets.js';
import { filesSha256 } from '../../src/models/weight-file-bytes.js';

const shipped = trainedPresetDir('brown');
const scratch = mkdtempSync(join(tmpdir(), 'dx-preset-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the shipped brown preset', () => {
  it("has SHA256SUMS of its weights and tokenizer, in sha256sum's format", () => {
    const sums = readSha256Sums(join(shipped, TRAINED_PRESET_FILES.sums));
    expect([...sums.keys()].sort()).toEqual([...TRAINED_PRESET_HASHED_FILES].sort());
    for (const file of TRAINED_PRESET_HASHED_FILES)
      expect(sums.get(file)).toBe(filesSha256([join(shipped, file)]));
    expect(readFileSync(join(shipped, TRAINED_PRESET_FILES.sums), 'utf8')).toBe(sha256SumsText(shipped));
    expect(checkTrainedPreset('brown')).toBe(shipped);
  });

  it('was trained with its trainArgs: each flag is the setting training.json records', () => {
    const record = JSON.parse(readFileSync(join(shipped, TRAINED_PRESET_FILES.training), 'utf8')) as {
      options: Record<string, unknown>;
      threads: number;
    };
    const recorded: Record<string, unknown> = { ...record.options, threads: record.threads };
    const args = TRAINED_PRESETS.brown.trainArgs;
    expect(args.length % 2).toBe(0);
    for (let i = 0; i < args.length; i += 2) {
      const key = (args[i] as string).slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      expect([key, recorded[key]]).toEqual([key, Number(args[i + 1])]);
    }
  });

  it("is the config it was trained from: model.yaml = the weights' stored config = ModelConfig.preset", async () => {
    const stored = modelFolderConfig(shipped);
    expect(ModelConfig.load(join(shipped, 'model.yaml'))).toEqual(stored);
    expect(ModelConfig.preset('brown')).toEqual(stored);
    expect(ModelConfig.presetNames()).toContain('brown');
    const folder = await readModelFolder(shipped);
    expect(folder.tokenizer?.tokenizerJson).toEqual(
      JSON.parse(readFileSync(join(shipped, 'tokenizer.json'), 'utf8')),
    );
    expect(ModelConfig.preset('brown', { dropout: 0 }).dropout).toBe(0);
    expect(ModelConfig.preset('brown', { dropout: 0 }).dim).toBe(stored?.dim);
  });

  it('is what --config brown and the default bench run: the shipped folder, as trained weights', () => {
    expect(resolveModelConfig('brown', process.cwd()).weightsFolder).toBe(shipped);
    expect(resolveModelConfig('small', process.cwd()).weightsFolder).toBeUndefined();
    expect(DEFAULT_PRESET).toBe('brown');
    const checked = checkModelSelection({ seed: 0 }, process.cwd());
    expect(checked.name).toBe('brown');
    expect(checked.isPreset).toBe(true);
    expect(checked.weightsFolder).toBe(shipped);
    expect(() => checkModelSelection({ seed: 0, paradigm: 'diffusion' }, process.cwd())).toThrow(
      messages.paradigmOnTrainedModel('diffusion', 'ar'),
    );
  });
});

describe('a damaged preset folder', () => {
  const copy = (name: string): string => {
    const dir = join(scratch, name);
    cpSync(shipped, dir, { recursive: true });
    return dir;
  };
  const refusal = (dir: string): DantinoxError => {
    try {
      checkTrainedPreset('brown', dir);
    } catch (error) {
      return error as DantinoxError;
    }
    throw new Error(`${dir} was accepted`);
  };

  it('without its weights is refused, naming the file', () => {
    const dir = copy('missing');
    rmSync(join(dir, 'model.safetensors'));
    const error = refusal(dir);
    expect(error.code).toBe('IO');
    expect(error.message).toBe(messages.trainedPresetMissing('brown', dir, [join(dir, 'model.safetensors')]));
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('with one byte of the weights changed is refused, naming the file and both hashes', () => {
    const dir = copy('corrupt');
    const file = join(dir, 'model.safetensors');
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    writeFileSync(file, bytes);
    const sums = readSha256Sums(join(dir, 'SHA256SUMS'));
    const error = refusal(dir);
    expect(error.code).toBe('IO');
    expect(error.message).toBe(
      messages.trainedPresetCorrupt('brown', file, sums.get('model.safetensors'), filesSha256([file])),
    );
  });

  it('with another tokenizer, or one SHA256SUMS does not list, is refused', () => {
    const dir = copy('tokenizer');
    copyFileSync(join(dir, 'tokenizer_config.json'), join(dir, 'tokenizer.json'));
    expect(refusal(dir).message).toContain(join(dir, 'tokenizer.json'));
    const unlisted = copy('unlisted');
    writeFileSync(join(unlisted, 'SHA256SUMS'), sha256SumsText(unlisted, ['model.safetensors']));
    expect(refusal(unlisted).message).toContain('SHA256SUMS does not list it');
  });
});
