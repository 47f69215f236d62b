import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../../../src/errors.js';
import { messages } from '../../../../src/messages.js';
import {
  checkExecutionProvider,
  createOrtSession,
  loadOrt,
  ortVersion,
  positionIds,
  resolveThreads,
  supportedExecutionProviders,
} from '../../../../src/models/engines/ort/index.js';
import { createModel } from '../../../../src/models/index.js';
import { ModelConfig } from '../../../../src/models/model-config.js';
import { buildTransformerGraph } from '../../../../src/models/onnx/transformer-graph.js';
import { initWeights } from '../../../../src/models/weights.js';

describe('the ONNX Runtime engine module', () => {
  it('asks the binding which execution providers it carries (cpu always)', async () => {
    const ort = await loadOrt();
    const supported = supportedExecutionProviders(ort);
    expect(supported).toContain('cpu');
    const bundled = ort
      .listSupportedBackends()
      .filter((b) => b.bundled)
      .map((b) => b.name);
    expect(supported).toEqual(bundled);
  });

  it('refuses a provider the binding does not carry, listing those it does', async () => {
    const ort = await loadOrt();
    const supported = supportedExecutionProviders(ort);
    expect(() => checkExecutionProvider(ort, 'no-such-ep')).toThrow(
      messages.unsupportedExecutionProvider('no-such-ep', supported),
    );
    await expect(createModel('tiny', { threads: 1, executionProvider: 'cuda' })).rejects.toThrow(
      supported.includes('cuda') ? /./ : /execution provider "cuda" is not available.*carries: cpu/,
    );
  });

  it('labels the engine with the version of the runtime actually loaded', async () => {
    const ort = await loadOrt();
    const model = await createModel('tiny', { threads: 1 });
    expect(model.info.engine).toBe(`onnxruntime-node ${ortVersion(ort)} (cpu)`);
    expect(ortVersion(ort)).toBe(ort.env.versions.node ?? ort.env.versions.common);
    await model.dispose();
  });

  it('opens a session from graph bytes with external data, and names the source when ORT refuses one', async () => {
    const config = ModelConfig.preset('tiny');
    const graph = buildTransformerGraph(config, initWeights(config, 0));
    const opened = await createOrtSession(graph.builder.encode(), {
      threads: 1,
      externalData: graph.builder.externalData,
      source: 'tiny',
    });
    expect(opened.threads).toBe(1);
    expect(opened.executionProvider).toBe('cpu');
    expect(opened.session.inputNames).toContain('input_ids');
    await opened.session.release();
    const error = await createOrtSession(Uint8Array.of(1, 2, 3), {
      threads: 1,
      source: '"garbage.onnx"',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DantinoxError);
    expect((error as DantinoxError).code).toBe('RUNTIME_ERROR');
    expect((error as DantinoxError).message).toMatch(/^ONNX Runtime cannot load "garbage.onnx": /);
  });

  it('checks thread counts before any work', () => {
    expect(resolveThreads(3)).toBe(3);
    expect(resolveThreads(undefined)).toBeGreaterThanOrEqual(1);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => resolveThreads(bad)).toThrow(messages.invalidThreads(bad));
    }
  });

  it('numbers positions from the cache length, for every sequence', () => {
    expect([...positionIds(2, 3, 5)]).toEqual([5n, 6n, 7n, 5n, 6n, 7n]);
    expect([...positionIds(1, 1, 0)]).toEqual([0n]);
  });
});
