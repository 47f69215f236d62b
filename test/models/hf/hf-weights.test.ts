/** `readHfWeights` reads back exactly what `exportHfModel` wrote, and `exportGguf` converts such a folder. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportGguf } from '../../../src/models/gguf/gguf-export.js';
import { exportHfModel } from '../../../src/models/hf/hf-export.js';
import { readHfWeights } from '../../../src/models/hf/hf-weights.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { initWeights } from '../../../src/models/weights.js';
import { thrown } from '../../thrown.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-hf-weights-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readHfWeights', () => {
  for (const externalData of [false, true]) {
    it(`returns the exported config and every weight bit for bit (external data: ${externalData})`, () => {
      const config = ModelConfig.preset('tiny');
      const weights = initWeights(config, 5);
      const folder = join(dir, `tiny-${externalData}`);
      exportHfModel(config, weights, folder, { externalData });
      const read = readHfWeights(folder);
      // A gated (SwiGLU) MLP always applies SiLU: its unused `activation` field is not in config.json.
      expect(config.useSwiglu).toBe(true);
      expect(read.config).toEqual({ ...config, activation: read.config.activation });
      expect([...read.weights.keys()].sort()).toEqual([...weights.keys()].sort());
      for (const [name, t] of weights) {
        expect(read.weights.get(name)?.dims, name).toEqual(t.dims);
        expect(Buffer.from(read.weights.get(name)?.data.buffer as ArrayBuffer)).toEqual(
          Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength),
        );
      }
      expect(read.tokenizer.tokenizerJson).toHaveProperty('model');
    });
  }

  it('a missing external data file is reported as missing, with its path', () => {
    const config = ModelConfig.preset('tiny');
    const folder = join(dir, 'no-data');
    exportHfModel(config, initWeights(config, 5), folder, { externalData: true });
    const data = join(folder, 'onnx', 'model.onnx_data');
    rmSync(data);
    const error = thrown(() => readHfWeights(folder));
    expect(error.code).toBe('IO');
    expect(error.message).toBe(
      `Cannot read ONNX external data file "${data}": there is no such file; check the path.`,
    );
  });

  it('a folder whose graph lacks a canonical weight is refused naming it', () => {
    const config = ModelConfig.preset('tiny');
    const folder = join(dir, 'renamed');
    exportHfModel(config, initWeights(config, 1), folder);
    const path = join(folder, 'onnx', 'model.onnx');
    // Same length, so the protobuf stays well-formed: the initializer is now "blocks.0.attn.X.weight".
    const bytes = readFileSync(path);
    // The last occurrence is the initializer's name (nodes, which also name it, come first in the graph).
    const at = bytes.lastIndexOf('blocks.0.attn.q.weight');
    expect(at).toBeGreaterThan(0);
    bytes.write('X', at + 'blocks.0.attn.'.length, 'latin1');
    writeFileSync(path, bytes);
    const error = thrown(() => readHfWeights(folder));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toContain('"blocks.0.attn.q.weight" of shape [32, 32]');
  });

  it('a config.json with fewer layers than the graph is refused, not converted in part', () => {
    const config = ModelConfig.preset('tiny');
    const folder = join(dir, 'fewer-layers');
    exportHfModel(config, initWeights(config, 1), folder);
    const path = join(folder, 'config.json');
    const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...json, num_hidden_layers: config.numBlocks - 1 }));
    expect(() => readHfWeights(folder)).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringContaining(
          `num_hidden_layers is ${config.numBlocks - 1} but the graph has ${config.numBlocks} past_key_values layers`,
        ),
      }),
    );
  });
});

describe('exportGguf of a folder', () => {
  it('writes the same file as exporting the built-in model it came from', () => {
    const config = ModelConfig.preset('tiny');
    const weights = initWeights(config, 2);
    const folder = join(dir, 'to-gguf');
    exportHfModel(config, weights, folder);
    for (const dtype of ['fp32', 'q8', 'q4'] as const) {
      const fromFolder = exportGguf(folder, join(dir, `folder-${dtype}.gguf`), { dtype });
      const direct = exportGguf({ config, weights }, join(dir, `direct-${dtype}.gguf`), { dtype });
      expect(fromFolder.bytes).toBe(direct.bytes);
      expect(readFileSync(fromFolder.path).equals(readFileSync(direct.path)), dtype).toBe(true);
    }
  });
});
