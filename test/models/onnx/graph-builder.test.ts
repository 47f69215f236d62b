import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DantinoxError } from '../../../src/errors.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { GraphBuilder, onnx } from '../../../src/models/onnx/graph-builder.js';
import { resolvePrecision } from '../../../src/models/onnx/precision.js';
import { buildTransformerGraph } from '../../../src/models/onnx/transformer-graph.js';
import { initWeights, seededWeights } from '../../../src/models/weights.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dantinox-graph-builder-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const config = ModelConfig.preset('tiny', { numBlocks: 2 });

describe('GraphBuilder streaming to disk', () => {
  for (const dtype of ['fp32', 'fp16', 'q8', 'q4'] as const) {
    it(`${dtype}: a streamed graph over lazy weights writes the same bytes as an in-memory one`, () => {
      const precision = resolvePrecision(config, { dtype });
      const plainPath = join(dir, 'plain.onnx');
      buildTransformerGraph(config, initWeights(config, 3), precision).builder.write(plainPath, {
        externalData: true,
      });
      const streamedPath = join(dir, 'streamed.onnx');
      const g = new GraphBuilder({ streamTo: streamedPath });
      buildTransformerGraph(config, seededWeights(config, 3), precision, g);
      g.write(streamedPath, { externalData: true });
      expect(readFileSync(`${streamedPath}_data`).equals(readFileSync(`${plainPath}_data`))).toBe(true);
      // The protobufs differ only in the data file's name.
      const decode = (p: string) => onnx.ModelProto.decode(readFileSync(p)).toJSON();
      const streamed = JSON.stringify(decode(streamedPath)).replaceAll(
        'streamed.onnx_data',
        'plain.onnx_data',
      );
      expect(streamed).toBe(JSON.stringify(decode(plainPath)));
    });
  }

  it('writes each large weight when it is added, and keeps small ones inline', () => {
    const path = join(dir, 'model.onnx');
    const g = new GraphBuilder({ streamTo: path });
    g.floatInit('big', [1024], new Float32Array(1024).fill(2));
    expect(statSync(`${path}_data`).size).toBe(4096);
    expect(g.streamedBytes).toBe(4096);
    g.floatInit('small', [4], Float32Array.from([1, 2, 3, 4]));
    g.floatInit('big2', [1025], new Float32Array(1025).fill(3));
    expect(statSync(`${path}_data`).size).toBe(4096 + 4100);
    g.floatInit('big3', [256], new Float32Array(256));
    expect(statSync(`${path}_data`).size).toBe(3 * 4096 + 1024); // aligned to the next 4 KiB
    g.input('x', 'float32', [1024]);
    g.op('Add', ['x', 'big'], {}, { output: 'y' });
    g.output('y');
    g.write(path, { externalData: true });
    const model = onnx.ModelProto.decode(readFileSync(path));
    const init = model.graph?.initializer ?? [];
    expect(init.map((t) => t.name)).toEqual(['big', 'small', 'big2', 'big3']);
    expect(init[1]?.rawData?.length).toBe(16);
    expect(init[2]?.externalData?.map((e) => [e.key, e.value])).toEqual([
      ['location', 'model.onnx_data'],
      ['offset', '4096'],
      ['length', '4100'],
    ]);
  });

  it('refuses to encode in memory, or to be written elsewhere or inline', () => {
    const path = join(dir, 'model.onnx');
    const g = new GraphBuilder({ streamTo: path });
    g.floatInit('big', [1024], new Float32Array(1024));
    expect(() => g.encode()).toThrow(DantinoxError);
    expect(() => g.externalData).toThrow(/cannot be encoded for an in-memory session/);
    expect(() => g.write(join(dir, 'other.onnx'), { externalData: true })).toThrow(
      /can only be written as .*model\.onnx/,
    );
  });

  it('firstNodes lists the producers of those outputs first and keeps the others in order', () => {
    const g = new GraphBuilder();
    g.input('x', 'float32', [2]);
    const a = g.op('Relu', ['x']);
    const b = g.op('Neg', [a]);
    g.op('Abs', [b], {}, { output: 'y' });
    g.output('y');
    const path = join(dir, 'm.onnx');
    g.write(path, { firstNodes: ['y'] });
    const ops = onnx.ModelProto.decode(readFileSync(path)).graph?.node?.map((n) => n.opType);
    expect(ops).toEqual(['Abs', 'Relu', 'Neg']);
  });
});
