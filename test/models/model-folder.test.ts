/** The dantinox model folder: written, recognised and read back, with and without its own tokenizer. */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byteTokenizerFiles } from '../../src/models/hf/hf-tokenizer-json.js';
import { ModelConfig } from '../../src/models/model-config.js';
import {
  MODEL_FOLDER_FILES,
  modelFolderConfig,
  readModelFolder,
  writeModelFolder,
} from '../../src/models/model-folder.js';
import { CONFIG_METADATA_KEY } from '../../src/models/onnx/weights-io.js';
import { readSafetensorsMetadata, saveSafetensors } from '../../src/models/safetensors.js';
import { initWeights } from '../../src/models/weights.js';
import { thrown } from '../thrown.js';

const config = ModelConfig.preset('tiny', { dropout: 0.1 });

describe('dantinox model folders', () => {
  it('round-trip config, weights (bit for bit) and the model’s own tokenizer', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'dx-folder-')), 'model');
    const weights = initWeights(config, 4);
    const tokenizer = byteTokenizerFiles();
    expect(await writeModelFolder(dir, { config, weights, tokenizer })).toEqual([
      MODEL_FOLDER_FILES.weights,
      MODEL_FOLDER_FILES.tokenizer,
      MODEL_FOLDER_FILES.tokenizerConfig,
    ]);
    expect(modelFolderConfig(dir)).toEqual(config);
    const read = await readModelFolder(dir);
    expect(read.config).toEqual(config);
    expect(read.tokenizer).toEqual(tokenizer);
    for (const [name, t] of weights) expect(read.weights.get(name)?.data).toEqual(t.data);
  });

  it('without a tokenizer of its own, hold the weights alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dx-folder-'));
    expect(await writeModelFolder(dir, { config, weights: initWeights(config, 0) })).toEqual([
      MODEL_FOLDER_FILES.weights,
    ]);
    expect((await readModelFolder(dir)).tokenizer).toBeUndefined();
    expect(existsSync(join(dir, MODEL_FOLDER_FILES.tokenizer))).toBe(false);
  });

  it('are told apart from Hugging Face folders and from safetensors files without a dantinox config', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'dx-folder-'));
    expect(modelFolderConfig(empty)).toBeUndefined();
    const plain = mkdtempSync(join(tmpdir(), 'dx-folder-'));
    await saveSafetensors(join(plain, MODEL_FOLDER_FILES.weights), initWeights(config, 0));
    expect(modelFolderConfig(plain)).toBeUndefined();
    const hf = mkdtempSync(join(tmpdir(), 'dx-folder-'));
    await writeModelFolder(hf, { config, weights: initWeights(config, 0) });
    mkdirSync(join(hf, 'onnx'));
    expect(modelFolderConfig(hf)).toBeUndefined();
  });

  it('refuse weights that do not match the config, and a broken header', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dx-folder-'));
    await expect(
      writeModelFolder(dir, { config, weights: initWeights(ModelConfig.preset('tiny', { dim: 16 }), 0) }),
    ).rejects.toThrow(/shape/);
    writeFileSync(join(dir, MODEL_FOLDER_FILES.weights), 'not safetensors');
    expect(thrown(() => modelFolderConfig(dir)).code).toBe('IO');
  });

  it('read only the header for the config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dx-folder-'));
    await writeModelFolder(dir, { config, weights: initWeights(config, 0) });
    const metadata = readSafetensorsMetadata(join(dir, MODEL_FOLDER_FILES.weights));
    expect(JSON.parse(metadata[CONFIG_METADATA_KEY] as string)).toEqual(config);
  });
});
