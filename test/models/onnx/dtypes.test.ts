import { describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { onnx } from '../../../src/models/onnx/graph-builder.js';
import { countGraphFlops } from '../../../src/models/onnx/graph-flops.js';
import { createModel } from '../../../src/models/onnx/onnx-model.js';
import { type BuiltinDtype, resolvePrecision } from '../../../src/models/onnx/precision.js';
import { buildTransformerGraph } from '../../../src/models/onnx/transformer-graph.js';
import { initWeights } from '../../../src/models/weights.js';
import { memoryFootprint } from '../../../src/profiling/memory.js';
import { BASE, VARIANTS } from './variants.js';

const DTYPES: readonly BuiltinDtype[] = ['fp32', 'fp16', 'q8', 'q4'];

function graphOf(config: ModelConfig, dtype: BuiltinDtype, headDtype: BuiltinDtype = dtype) {
  return buildTransformerGraph(
    config,
    initWeights(config, 1),
    resolvePrecision(config, { dtype, headDtype }),
  );
}

/** The initializers of an encoded graph with their element type. */
function initializers(bytes: Uint8Array): { name: string; type: number }[] {
  const proto = onnx.ModelProto.decode(bytes);
  return (proto.graph?.initializer ?? []).map((t) => ({ name: t.name ?? '', type: t.dataType ?? 0 }));
}

/** Bytes of each initializer of an encoded graph (inline data or its external-data length). */
function initializerBytes(bytes: Uint8Array): Map<string, number> {
  const proto = onnx.ModelProto.decode(bytes);
  const out = new Map<string, number>();
  for (const t of proto.graph?.initializer ?? []) {
    const external = t.externalData?.find((e) => e.key === 'length')?.value;
    out.set(t.name ?? '', external === undefined ? (t.rawData?.length ?? 0) : Number(external));
  }
  return out;
}

describe('memoryFootprint per dtype equals the weight bytes in the generated graph', () => {
  // K = 64 and 256: an even number of 32-blocks per column, as the dtype table's 4-bit zero-point overhead assumes.
  const base = { dim: 64, nHeads: 4, numBlocks: 2, vocabSize: 512, maxContext: 32 };
  const configs = {
    'llama-like, tied': ModelConfig.parse(base),
    'gpt2-like, untied': ModelConfig.parse({
      ...base,
      posEncoding: 'learned',
      norm: 'layernorm',
      useSwiglu: false,
      weightTying: false,
    }),
  };
  for (const [name, config] of Object.entries(configs)) {
    for (const dtype of DTYPES) {
      for (const headDtype of [dtype, 'fp32'] as const) {
        it(`${name}, ${dtype}, head ${headDtype}`, () => {
          const sizes = initializerBytes(graphOf(config, dtype, headDtype).builder.encode());
          let weights = 0;
          let scales = 0;
          for (const [init, n] of sizes) {
            // Not weights: shape constants and position tables; the layout copy of a float tied head.
            if (/^(const_|rotary_|sinusoidal_)/.test(init)) continue;
            if (init.startsWith('embed.weight.transposed') && !/\.q[48]/.test(init)) continue;
            // q8's per-column float32 scales: 4 bytes per column (4/K per weight), not in the table's 1 byte.
            if (init.endsWith('.q8.scale')) scales += n;
            else weights += n;
          }
          const footprint = memoryFootprint(config, { dtype, headDtype });
          expect(weights).toBe(footprint.weightBytes);
          expect(scales).toBeLessThanOrEqual((4 / 64) * weights);
        });
      }
    }
  }
});

describe('createModel dtypes', () => {
  it('every dtype is quantized from the same seeded fp32 weights: logits stay close to fp32', async () => {
    const tokens = Int32Array.from([1, 5, 9, 2, 7, 3]);
    const shape = { batch: 1, seq: 6 };
    const ref = await createModel('tiny', { seed: 4, threads: 1 });
    const want = await ref.forward(tokens, shape);
    await ref.dispose();
    const maxErr: Record<string, number> = {};
    for (const dtype of ['fp16', 'q8', 'q4'] as const) {
      const model = await createModel('tiny', { seed: 4, threads: 1, dtype });
      const got = await model.forward(tokens, shape);
      expect(model.info.dtype).toBe(dtype);
      await model.dispose();
      maxErr[dtype] = got.data.reduce((m, v, i) => Math.max(m, Math.abs(v - (want.data[i] as number))), 0);
    }
    expect(maxErr['fp16']).toBeLessThan(1e-3);
    expect(maxErr['q8']).toBeLessThan(0.3);
    expect(maxErr['q4']).toBeLessThan(0.3);
    expect(maxErr['fp16']).toBeGreaterThan(0);
  });

  it('ModelInfo says which matrices are quantized, the LM head included unless headDtype says otherwise', async () => {
    const q4 = await createModel('tiny', { seed: 0, threads: 1, dtype: 'q4' });
    expect(q4.info.quantization).toEqual({
      dtype: 'q4',
      headDtype: 'q4',
      blockSize: 32,
      accuracyLevel: 4,
      matrices: {
        'blocks.0.attn.qkv.fused': 'q4',
        'blocks.0.attn.o.weight': 'q4',
        'blocks.0.mlp.gate_up.fused': 'q4',
        'blocks.0.mlp.down.weight': 'q4',
        'blocks.1.attn.qkv.fused': 'q4',
        'blocks.1.attn.o.weight': 'q4',
        'blocks.1.mlp.gate_up.fused': 'q4',
        'blocks.1.mlp.down.weight': 'q4',
        'embed.weight.transposed': 'q4',
      },
    });
    await q4.dispose();
    const q8 = await createModel('tiny', { seed: 0, threads: 1, dtype: 'q8', headDtype: 'fp32' });
    expect(q8.info.quantization?.headDtype).toBe('fp32');
    expect(q8.info.quantization?.matrices['embed.weight.transposed']).toBeUndefined();
    expect(Object.values(q8.info.quantization?.matrices ?? {})).toEqual(Array(8).fill('q8'));
    await q8.dispose();
    const fp32 = await createModel('tiny', { seed: 0, threads: 1 });
    expect(fp32.info.quantization).toBeUndefined();
    await fp32.dispose();
  });

  it('stores each dtype in its ONNX element types and ops', () => {
    const config = ModelConfig.preset('tiny');
    const types = (dtype: BuiltinDtype) =>
      new Set(initializers(graphOf(config, dtype).builder.encode()).map((t) => t.type));
    expect(types('fp16').has(10)).toBe(true); // float16
    expect(types('q8').has(3)).toBe(true); // int8
    expect(types('q4').has(2)).toBe(true); // uint8 (packed 4-bit)
    const ops = (dtype: BuiltinDtype) =>
      new Set(
        (onnx.ModelProto.decode(graphOf(config, dtype).builder.encode()).graph?.node ?? []).map(
          (n) => n.opType,
        ),
      );
    expect(ops('q8').has('DynamicQuantizeMatMul')).toBe(true);
    expect(ops('q4').has('MatMulNBits')).toBe(true);
  });

  it('the graph FLOPs counter gives the same count for every dtype (every architecture)', () => {
    for (const overrides of Object.values(VARIANTS)) {
      const config = ModelConfig.parse({ ...BASE, ...overrides });
      const want = countGraphFlops(graphOf(config, 'fp32').builder.encode(), {
        batchSize: 2,
        seqLen: 5,
        pastLength: 3,
      });
      for (const dtype of DTYPES) {
        const got = countGraphFlops(graphOf(config, dtype).builder.encode(), {
          batchSize: 2,
          seqLen: 5,
          pastLength: 3,
        });
        // The FLOPs of every category and in all; the nodes differ (casts, dequantization) but carry no FLOPs.
        const { nodes: gotNodes, ...counts } = got;
        const { nodes: wantNodes, ...wanted } = want;
        expect(counts).toEqual(wanted);
        const nodeFlops = (nodes: typeof gotNodes) => nodes.reduce((s, n) => s + n.flops, 0);
        expect(nodeFlops(gotNodes)).toBe(nodeFlops(wantNodes));
      }
    }
  });

  it('bad precision options fail before any weight is made, naming what is allowed', () => {
    const tiny = ModelConfig.preset('tiny');
    expect(() => resolvePrecision(tiny, { dtype: 'int3' })).toThrow(
      messages.dtypeNotAvailable('int3', 'the built-in ONNX models', DTYPES),
    );
    expect(() => resolvePrecision(tiny, { dtype: 'q4', blockSize: 24 })).toThrow(
      messages.invalidBlockSize(24),
    );
    // tiny: dim 32, ffn 128 — a block of 64 does not divide 32.
    expect(() => resolvePrecision(tiny, { dtype: 'q4', blockSize: 64 })).toThrow(
      messages.blockSizeDoesNotDivide(64, 32, [16, 32]),
    );
    // The block size only matters for 4-bit matrices.
    expect(resolvePrecision(tiny, { dtype: 'q8', blockSize: 64 }).blockSize).toBe(64);
    expect(() => resolvePrecision(tiny, { accuracyLevel: 5 })).toThrow(/accuracyLevel/);
  });
});
