/**
 * Bad configs and library misuse get DantinoxErrors with codes (never a TypeError, a NaN or a silent default),
 * and a model that cannot fit in memory is refused before anything is allocated.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { BUILD_WEIGHT_COPIES, checkFitsInMemory, modelBuildBytes } from '../../src/models/memory-check.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { createModel } from '../../src/models/onnx/onnx-model.js';
import { countFlops, countParameters, memoryFootprint } from '../../src/profiling/index.js';

const code = (c: string) => expect.objectContaining({ name: expect.stringMatching(/Error$/), code: c });

describe('model config edge cases', () => {
  const file = (text: string): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'dx-cfg-')), 'm.yaml');
    writeFileSync(path, text);
    return path;
  };

  it('an empty value never silently becomes the default', () => {
    expect(() => ModelConfig.load(file('dim: 32\nn_heads: 4\nmax_context:\n'))).toThrow(
      `max_context: ${messages.emptyConfigValue('max_context')}`,
    );
  });

  it('keys such as constructor or toString are unknown keys, not accepted', () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty'])
      expect(() => ModelConfig.parse({ dim: 32, [key]: 1 })).toThrow(new RegExp(`  - ${key}: Unknown`, 'i'));
  });

  it('a nested section that disagrees with a top-level key is an error, not a silent override', () => {
    expect(() => ModelConfig.parse({ dim: 32, model: { dim: 64 } })).toThrow(
      /model\.dim: set twice with different values \(32 and 64/,
    );
    expect(ModelConfig.parse({ dim: 64, model: { dim: 64 } }).dim).toBe(64);
  });

  it('an empty file is refused with what to give instead of building the default 76 M model', () => {
    const empty = file('');
    expect(() => ModelConfig.load(empty)).toThrow(
      messages.emptyModelConfig(empty, ModelConfig.presetNames()),
    );
    expect(() => ModelConfig.load(file('# nothing\n'))).toThrow(code('INVALID_MODEL_CONFIG'));
  });
});

describe('library argument checks', () => {
  const tiny = ModelConfig.preset('tiny');

  it('createModel(null) and malformed config objects throw DantinoxErrors', async () => {
    await expect(createModel(null as never)).rejects.toThrow(code('INVALID_MODEL_CONFIG'));
    await expect(createModel({ dim: 'x' } as never)).rejects.toThrow(code('INVALID_MODEL_CONFIG'));
  });

  it('countFlops without options or with a non-numeric config throws instead of returning NaN', () => {
    expect(() => countFlops(tiny, undefined as never)).toThrow(code('INVALID_OPTION'));
    expect(() => countFlops({ ...tiny, dim: 'x' } as never, { seqLen: 8 })).toThrow(
      messages.invalidNumberOption(
        'config.dim',
        'x',
        'a positive integer (parse the config with ModelConfig.parse)',
      ),
    );
    expect(() => countParameters({ dim: 'x' } as never)).toThrow(code('INVALID_MODEL_CONFIG'));
    expect(() => memoryFootprint(null as never)).toThrow(code('INVALID_MODEL_CONFIG'));
  });

  it('a model that cannot fit in the available memory is refused with the estimate; force tries anyway', async () => {
    const huge = ModelConfig.parse({ dim: 1024, n_heads: 8, num_blocks: 100_000_000, vocab_size: 1000 });
    const started = Date.now();
    await expect(createModel(huge)).rejects.toThrow(/needs about [\d.e+]+ GiB of memory, more than the/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(modelBuildBytes(tiny)).toBe(BUILD_WEIGHT_COPIES * 4 * countParameters(tiny).total);
    expect(BUILD_WEIGHT_COPIES).toBe(1.5);
    expect(() => checkFitsInMemory('x', 2048, { availableBytes: 1024 })).toThrow(
      messages.doesNotFitInMemory('x', 2048, 1024),
    );
    expect(() => checkFitsInMemory('x', 2048, { availableBytes: 1024, force: true })).not.toThrow();
  });
});
