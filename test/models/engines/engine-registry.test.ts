/**
 * The engine registry: every engine of `ENGINE_NAMES` creates the same `tiny` weights through
 * `createEngineModel` (imported from the models barrel, as `dantinox/models` exports it) and agrees on the next
 * token; `whyNot` gives the one reason an engine cannot run a request, naming the flag; the registry refuses a
 * taken name and answers an unknown one with the list.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import {
  builtinEngines,
  createEngineModel,
  createEngineRegistry,
  ENGINE_NAMES,
  type EngineAdapter,
  loadEngineModel,
  type Model,
  ModelConfig,
} from '../../../src/models/index.js';

const open: Model[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
});

/** Index of the largest value. */
const argmax = (a: Float32Array): number => a.reduce((best, v, i) => (v > (a[best] as number) ? i : best), 0);

describe('createEngineModel', () => {
  it('runs the same tiny weights on every engine, with the same next token', async () => {
    const config = ModelConfig.preset('tiny');
    const prompt = Int32Array.from([72, 101, 108, 108, 111]);
    const next: number[] = [];
    expect([...ENGINE_NAMES].sort()).toEqual(Object.keys(builtinEngines).sort());
    for (const engine of ENGINE_NAMES) {
      const model = await createEngineModel(engine, config, { seed: 3, threads: 1 });
      open.push(model);
      expect(model.info.threads).toBe(1);
      const { logits } = await model.prefill(prompt, { batch: 1, seq: prompt.length });
      next.push(
        argmax(
          logits.data.subarray((prompt.length - 1) * config.vocabSize, prompt.length * config.vocabSize),
        ),
      );
    }
    expect(new Set(next).size).toBe(1);
  }, 180_000);

  it('refuses what an engine cannot run before any weights are made, naming the flag', async () => {
    const config = ModelConfig.preset('tiny');
    await expect(createEngineModel('llama.cpp', config, { dtype: 'q8', headDtype: 'fp32' })).rejects.toThrow(
      messages.ggufOneDtype('q8', 'fp32'),
    );
    await expect(
      createEngineModel('transformers.js', config, { executionProvider: 'webgpu' }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: messages.engineCpuOnly('transformers.js', 'webgpu'),
    });
    await expect(loadEngineModel('llama.cpp', '/nowhere')).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: messages.engineNeedsBuiltin('llama.cpp', '/nowhere'),
    });
  });
});

describe('EngineRegistry', () => {
  const registry = createEngineRegistry();
  const folder = { kind: 'folder', path: 'models/x' } as const;
  const config = { kind: 'config' } as const;

  it('says why an engine cannot run a request, and nothing when it can', () => {
    expect(registry.whyNot('llama.cpp', { source: folder })).toBe(
      messages.engineNeedsBuiltin('llama.cpp', 'models/x'),
    );
    expect(registry.whyNot('llama.cpp', { source: config, dtype: 'q4', headDtype: 'q8' })).toBe(
      messages.ggufOneDtype('q4', 'q8'),
    );
    expect(registry.whyNot('llama.cpp', { source: config, headDtype: 'fp32' })).toBeUndefined();
    expect(registry.whyNot('llama.cpp', { source: config, executionProvider: 'cuda' })).toBe(
      messages.engineCpuOnly('llama.cpp', 'cuda'),
    );
    expect(registry.whyNot('llama.cpp', { source: config, executionProvider: 'cpu' })).toBeUndefined();
    expect(registry.whyNot('transformers.js', { source: folder, dtype: 'q4' })).toBeUndefined();
    expect(
      registry.whyNot('ort', { source: config, dtype: 'q4', headDtype: 'q8', executionProvider: 'webgpu' }),
    ).toBeUndefined();
    expect(registry.whyNot('ort', { source: folder })).toBeUndefined();
  });

  it('runs the browser target on ort only, for built-in models and folders, on wasm or webgpu', () => {
    const browser = { source: config, target: 'browser' } as const;
    expect(registry.whyNot('ort', browser)).toBeUndefined();
    expect(registry.whyNot('ort', { ...browser, executionProvider: 'webgpu' })).toBeUndefined();
    expect(registry.whyNot('ort', { ...browser, executionProvider: 'cpu' })).toBeUndefined();
    expect(registry.whyNot('ort', { ...browser, executionProvider: 'cuda' })).toBe(
      messages.browserProvider('cuda'),
    );
    expect(registry.whyNot('ort', { source: folder, target: 'browser' })).toBeUndefined();
    expect(registry.whyNot('transformers.js', { source: folder, target: 'browser' })).toBe(
      messages.targetNeedsOrt('transformers.js', 'browser'),
    );
    expect(registry.whyNot('llama.cpp', browser)).toBe(messages.targetNeedsOrt('llama.cpp', 'browser'));
    expect(registry.whyNot('transformers.js', browser)).toBe(
      messages.targetNeedsOrt('transformers.js', 'browser'),
    );
    expect(registry.whyNot('llama.cpp', { source: config, target: 'node' })).toBeUndefined();
  });

  it('refuses a taken name unless override, and lists the engines for an unknown one', () => {
    const adapter: EngineAdapter = { ...builtinEngines.ort, name: 'ort' };
    expect(() => registry.register(adapter)).toThrow(expect.objectContaining({ code: 'DUPLICATE_PLUGIN' }));
    const other = createEngineRegistry();
    other.register({ ...adapter, description: 'replaced' }, { override: true });
    expect(other.get('ort').description).toBe('replaced');
    expect(() => registry.get('llamacpp')).toThrow(
      messages.unknownName('engine', 'llamacpp', [...ENGINE_NAMES]),
    );
    expect(createEngineRegistry({ builtins: false }).names()).toEqual([]);
  });
});
