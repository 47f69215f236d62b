/**
 * A float16 decoder graph (KV cache and logits in float16, as fp16 Hugging Face exports have): the loader feeds
 * float16 empty caches, passes float16 `present.*` back as `past_key_values.*`, and converts logits to float32.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { TENSOR_TYPES } from '../../../src/dtype.js';
import { loadHfModel } from '../../../src/models/hf/hf-model.js';
import { GraphBuilder } from '../../../src/models/onnx/graph-builder.js';
import { type TinyHfModel, writeTinyHfModel } from './fixtures.js';

const made: TinyHfModel[] = [];
afterAll(() => {
  for (const f of made) f.cleanup();
});

/** logits[b, t, v] = Σ_j emb[id, j] · head[j, v], rounded to float16; KV rows are the embedding rows. */
function writeFp16Decoder(
  dir: string,
  layers: number,
  kvHeads: number,
  headSize: number,
  vocab: number,
): void {
  const g = new GraphBuilder();
  const width = kvHeads * headSize;
  g.input('input_ids', 'int64', ['b', 't']);
  g.input('attention_mask', 'int64', ['b', 's']);
  g.input('position_ids', 'int64', ['b', 't']);
  const emb = Float32Array.from({ length: vocab * width }, (_, i) => ((i % 97) - 48) / 64);
  const head = Float32Array.from({ length: width * vocab }, (_, i) => ((i % 13) - 6) / 8);
  const x = g.op('Gather', [g.floatInit('emb', [vocab, width], emb), 'input_ids'], { axis: { int: 0 } });
  const rows = g.op('Transpose', [g.op('Reshape', [x, g.int64([0, 0, kvHeads, headSize])])], {
    perm: { ints: [0, 2, 1, 3] },
  });
  const rows16 = g.op('Cast', [rows], { to: { int: TENSOR_TYPES.float16.onnx } });
  for (let i = 0; i < layers; i++) {
    for (const kind of ['key', 'value']) {
      g.input(`past_key_values.${i}.${kind}`, 'float16', ['b', kvHeads, 'p', headSize]);
      const present = `present.${i}.${kind}`;
      g.op('Concat', [`past_key_values.${i}.${kind}`, rows16], { axis: { int: 2 } }, { output: present });
      g.output(present, 'float16', ['b', kvHeads, 's', headSize]);
    }
  }
  const logits = g.op('MatMul', [x, g.floatInit('head', [width, vocab], head)]);
  g.op('Cast', [logits], { to: { int: TENSOR_TYPES.float16.onnx } }, { output: 'logits' });
  g.output('logits', 'float16', ['b', 't', vocab]);
  g.write(join(dir, 'onnx', 'model.onnx'));
}

test('float16 KV cache and logits run through forward, prefill and decode', async () => {
  const f = writeTinyHfModel('llama');
  made.push(f);
  const { numBlocks, kvHeads, headSize, vocabSize } = f.config;
  // The graph's embedding is kvHeads × headSize wide: say so in config.json (2 heads of 8, no MLP matrices).
  const configPath = join(f.dir, 'config.json');
  const json = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
  const width = kvHeads * headSize;
  writeFileSync(
    configPath,
    JSON.stringify({ ...json, hidden_size: width, num_attention_heads: kvHeads, head_dim: headSize }),
  );
  writeFp16Decoder(f.dir, numBlocks, kvHeads, headSize, vocabSize);
  const model = await loadHfModel(f.dir, { threads: 1 });
  expect(model.info.dtype).toBe('fp16');
  const logits = await model.forward(Int32Array.of(3, 200), { batch: 1, seq: 2 });
  expect(logits.data).toBeInstanceOf(Float32Array);
  expect(logits.dims).toEqual([1, 2, vocabSize]);
  // Expected value in float64, compared at float16 precision (11 significant bits).
  const emb = (id: number, j: number): number => (((id * width + j) % 97) - 48) / 64;
  const head = (j: number, v: number): number => (((j * vocabSize + v) % 13) - 6) / 8;
  for (const [t, id] of [
    [0, 3],
    [1, 200],
  ] as const) {
    for (const v of [0, 1, 77, 255]) {
      let want = 0;
      for (let j = 0; j < width; j++) want += emb(id, j) * head(j, v);
      expect(Math.abs((logits.data[t * vocabSize + v] ?? 0) - want)).toBeLessThanOrEqual(
        Math.abs(want) / 1024 + 1e-3,
      );
    }
  }
  let step = await model.prefill(Int32Array.of(1, 2, 3), { batch: 1, seq: 3 });
  for (const id of [4, 5]) step = await model.decodeStep(Int32Array.of(id), step.state);
  expect(step.state.length).toBe(5);
  expect(step.logits.dims).toEqual([1, 1, vocabSize]);
  step.state.dispose();
  await model.dispose();
});
