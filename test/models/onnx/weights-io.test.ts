import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ModelConfig } from '../../../src/models/model-config.js';
import { createModel } from '../../../src/models/onnx/onnx-model.js';
import { loadModel, loadWeights, saveWeights } from '../../../src/models/onnx/weights-io.js';
import { saveSafetensors } from '../../../src/models/safetensors.js';
import { ensureBuilt, ROOT } from '../../cli/built-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-onnx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = ModelConfig.parse({
  dim: 32,
  nHeads: 4,
  kvHeads: 2,
  numBlocks: 2,
  vocabSize: 64,
  maxContext: 16,
  norm: 'layernorm',
  weightTying: false,
});
const tokens = Int32Array.from([3, 14, 15, 9, 26, 5, 35, 8]);
const shape = { batch: 2, seq: 4 };

describe('weights I/O', () => {
  it('save → load gives identical logits and config', async () => {
    const model = await createModel(config, { seed: 11, threads: 1 });
    const path = join(dir, 'model.safetensors');
    await saveWeights(model, path);
    const before = await model.forward(tokens, shape);
    await model.dispose();
    const loaded = await loadWeights(path);
    expect(loaded.config).toEqual(config);
    const reloaded = await loadModel(path, { threads: 1 });
    expect(reloaded.config).toEqual(config);
    const after = await reloaded.forward(tokens, shape);
    expect(after.data).toEqual(before.data);
    await reloaded.dispose();
  });

  it('a file without config needs { config }', async () => {
    const model = await createModel(config, { seed: 1, threads: 1 });
    const path = join(dir, 'bare.safetensors');
    await saveSafetensors(path, model.weights);
    await expect(loadModel(path)).rejects.toMatchObject({ code: 'IO' });
    const withConfig = await loadModel(path, { config, threads: 1 });
    expect((await withConfig.forward(tokens, shape)).data).toEqual((await model.forward(tokens, shape)).data);
    await Promise.all([model.dispose(), withConfig.dispose()]);
  });

  it('seeded initialisation gives the same logits in another process', async () => {
    ensureBuilt();
    const entry = pathToFileURL(join(ROOT, 'dist/models/index.js')).href;
    const script = [
      `const { createModel, ModelConfig } = await import(${JSON.stringify(entry)});`,
      `const config = ModelConfig.parse(${JSON.stringify(config)});`,
      'const model = await createModel(config, { seed: 11, threads: 1 });',
      `const out = await model.forward(Int32Array.from(${JSON.stringify([...tokens])}), ${JSON.stringify(shape)});`,
      'process.stdout.write(Buffer.from(out.data.buffer).toString("base64"));',
      'await model.dispose();',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const bytes = Buffer.from(child.stdout, 'base64');
    const theirs = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const model = await createModel(config, { seed: 11, threads: 1 });
    const ours = await model.forward(tokens, shape);
    expect(theirs).toEqual(ours.data);
    await model.dispose();
  });
});
