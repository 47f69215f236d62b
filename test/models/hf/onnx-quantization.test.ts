/**
 * `onnxQuantizationInfo` on hand-made graphs with known answers: which operator input is the matrix, which
 * dtype each storage gives, the LM head by its output features, the blocks' dtype by majority, and the block
 * attributes.
 */
import { describe, expect, test } from 'vitest';
import { TENSOR_TYPES } from '../../../src/dtype.js';
import type { OnnxGraphInfo, OnnxNodeInfo } from '../../../src/models/hf/onnx-file-info.js';
import { onnxQuantizationInfo } from '../../../src/models/hf/onnx-quantization.js';

const T = (name: keyof typeof TENSOR_TYPES): number => TENSOR_TYPES[name].onnx;
const VOCAB = 50;

function node(
  opType: string,
  inputs: string[],
  ints: Record<string, number> = {},
  out = `${inputs.join('+')}:y`,
): OnnxNodeInfo {
  return { opType, inputs, outputs: [out], ints };
}

function graph(
  initializers: [name: string, dims: number[], type: keyof typeof TENSOR_TYPES][],
  nodes: OnnxNodeInfo[],
): OnnxGraphInfo {
  return {
    initializers: initializers.map(([name, dims, type]) => ({ name, dims, dataType: T(type) })),
    nodes,
    inputs: [],
  };
}

describe('onnxQuantizationInfo', () => {
  test('a float32 graph has none; activations multiplied together are not matrices', () => {
    const g = graph(
      [
        ['w', [8, 8], 'float32'],
        ['head', [8, VOCAB], 'float32'],
      ],
      [node('MatMul', ['x', 'w']), node('MatMul', ['q', 'k']), node('MatMul', ['h', 'head'])],
    );
    expect(onnxQuantizationInfo(g, VOCAB)).toBeUndefined();
  });

  test('MatMulNBits: q4 (q4f16 with float16 scales), its block size and accuracy level; the head by N', () => {
    const g = graph(
      [
        ['a.q4', [8, 1, 16], 'uint8'],
        ['a.scale', [8], 'float32'],
        ['b.q4', [8, 1, 16], 'uint8'],
        ['b.scale', [8], 'float16'],
        ['head.q4', [VOCAB, 1, 16], 'uint8'],
        ['head.scale', [VOCAB], 'float32'],
      ],
      [
        node('MatMulNBits', ['x', 'a.q4', 'a.scale'], {
          K: 32,
          N: 8,
          bits: 4,
          block_size: 32,
          accuracy_level: 4,
        }),
        node('MatMulNBits', ['x', 'b.q4', 'b.scale'], { K: 32, N: 8, block_size: 32 }),
        node('MatMulNBits', ['x', 'a.q4', 'a.scale'], { K: 32, N: 8, bits: 4, block_size: 32 }),
        node('MatMulNBits', ['x', 'head.q4', 'head.scale'], { K: 32, N: VOCAB, bits: 4, block_size: 32 }),
      ],
    );
    expect(onnxQuantizationInfo(g, VOCAB)).toEqual({
      dtype: 'q4', // a.q4 and b.q4 tie at one each (a reused matrix counts once): the first wins
      headDtype: 'q4',
      matrices: { 'a.q4': 'q4', 'b.q4': 'q4f16', 'head.q4': 'q4' },
      blockSize: 32,
      accuracyLevel: 4,
    });
    // A 4-bit product without accuracy_level has ONNX's default, 0; other bit widths keep their count.
    const g2 = graph(
      [['c', [8, 1, 24], 'uint8']],
      [node('MatMulNBits', ['x', 'c'], { K: 64, N: 8, bits: 3, block_size: 64 })],
    );
    expect(onnxQuantizationInfo(g2, VOCAB)).toEqual({
      dtype: 'q3',
      headDtype: 'fp32',
      matrices: { c: 'q3' },
      blockSize: 64,
      accuracyLevel: 0,
    });
  });

  test('8-bit integer weights are q8, or the dtype of an 8-bit file; the head kept in float32', () => {
    const g = graph(
      [
        ['w1', [8, 8], 'int8'],
        ['w2', [8, 8], 'uint8'],
        ['w3', [8, 8], 'int8'],
        ['head', [8, VOCAB], 'float32'],
      ],
      [
        node('DynamicQuantizeMatMul', ['x', 'w1', 's1']),
        node('MatMulInteger', ['xq', 'w2', 'zx', 'zw']),
        node('QLinearMatMul', ['xq', 'sx', 'zx', 'w3', 's3', 'z3', 'sy', 'zy']),
        node('MatMul', ['h', 'head']),
      ],
    );
    const q8 = onnxQuantizationInfo(g, VOCAB);
    expect(q8).toEqual({ dtype: 'q8', headDtype: 'fp32', matrices: { w1: 'q8', w2: 'q8', w3: 'q8' } });
    expect(onnxQuantizationInfo(g, VOCAB, 'uint8')?.matrices).toEqual({
      w1: 'uint8',
      w2: 'uint8',
      w3: 'uint8',
    });
    // A 4-bit file does not rename 8-bit matrices.
    expect(onnxQuantizationInfo(g, VOCAB, 'q4')?.matrices).toEqual(q8?.matrices);
  });

  test('weights behind Cast, DequantizeLinear and Transpose are followed to their initializer', () => {
    const g = graph(
      [
        ['w.fp16', [8, 8], 'float16'],
        ['v.int4', [8, 8], 'int4'],
        ['e.bf16', [VOCAB, 8], 'bfloat16'],
      ],
      [
        node('Cast', ['w.fp16'], { to: 1 }, 'w'),
        node('MatMul', ['x', 'w']),
        node('DequantizeLinear', ['v.int4', 'vs'], {}, 'v'),
        node('MatMul', ['x', 'v']),
        node('Cast', ['e.bf16'], { to: 1 }, 'e'),
        node('Transpose', ['e'], {}, 'eT'),
        node('MatMul', ['h', 'eT']), // [V, D] transposed: N is its first dimension
      ],
    );
    expect(onnxQuantizationInfo(g, VOCAB)).toEqual({
      dtype: 'fp16', // fp16 and q4 tie: the first in graph order
      headDtype: 'bf16',
      matrices: { 'w.fp16': 'fp16', 'v.int4': 'q4', 'e.bf16': 'bf16' },
    });
    // With a vocabulary of 8, the head is the first product of 8 outputs: w.
    expect(onnxQuantizationInfo(g, 8)?.headDtype).toBe('fp16');
  });

  test("Gemm's transB and a Transpose before it cancel out", () => {
    const init: [string, number[], keyof typeof TENSOR_TYPES][] = [['h', [VOCAB, 8], 'float16']];
    const direct = graph(init, [node('Gemm', ['x', 'h'], { transB: 1 })]);
    expect(onnxQuantizationInfo(direct, VOCAB)?.headDtype).toBe('fp16');
    const twice = graph(init, [node('Transpose', ['h'], {}, 'hT'), node('Gemm', ['x', 'hT'], { transB: 1 })]);
    expect(onnxQuantizationInfo(twice, VOCAB)?.headDtype).toBe('fp32');
    expect(onnxQuantizationInfo(twice, 8)?.headDtype).toBe('fp16');
  });

  test('a block-quantized embedding lookup is listed but is never the head; bnb4 by its operator', () => {
    const g = graph(
      [
        ['embed.q', [VOCAB, 8, 4], 'uint8'],
        ['m', [8, 1, 16], 'uint8'],
        ['n', [8, 1, 16], 'uint8'],
      ],
      [
        node('GatherBlockQuantized', ['embed.q', 'ids', 'es'], { bits: 8, block_size: 32 }),
        node('MatMulBnb4', ['x', 'm', 'ms'], { K: 32, N: VOCAB, block_size: 64 }),
        node('MatMulBnb4', ['x', 'n', 'ns'], { K: 32, N: 8, block_size: 64 }),
      ],
    );
    expect(onnxQuantizationInfo(g, 8)?.headDtype).toBe('bnb4'); // n: N = 8
    expect(onnxQuantizationInfo(g, VOCAB)).toEqual({
      dtype: 'q8', // q8 (the lookup) and bnb4 (n) tie: the first
      headDtype: 'bnb4',
      matrices: { 'embed.q': 'q8', m: 'bnb4', n: 'bnb4' },
      blockSize: 32,
      accuracyLevel: 0,
    });
  });

  test('boundaries: a 4-bit lookup is q4 though stored in uint8; a plain Gemm is [K, N]; only a quantized head leaves the blocks fp32', () => {
    const lookup = graph(
      [['e', [VOCAB, 8, 4], 'uint8']],
      [node('GatherBlockQuantized', ['e', 'ids', 's'], { block_size: 32 })],
    );
    expect(onnxQuantizationInfo(lookup, VOCAB)?.matrices).toEqual({ e: 'q4' });
    const gemm = graph([['h', [8, VOCAB], 'float16']], [node('Gemm', ['x', 'h'])]);
    expect(onnxQuantizationInfo(gemm, VOCAB)?.headDtype).toBe('fp16');
    const noTrans = graph([['h', [8, VOCAB], 'float16']], [node('Gemm', ['x', 'h'], { transB: 0 })]);
    expect(onnxQuantizationInfo(noTrans, VOCAB)?.headDtype).toBe('fp16');
    // FusedMatMul's transB transposes its matrix as Gemm's does.
    const fused = graph([['h', [VOCAB, 8], 'float16']], [node('FusedMatMul', ['x', 'h'], { transB: 1 })]);
    expect(onnxQuantizationInfo(fused, VOCAB)?.headDtype).toBe('fp16');
    const headOnly = graph([['h', [8, VOCAB], 'int8']], [node('DynamicQuantizeMatMul', ['x', 'h', 's'])]);
    expect(onnxQuantizationInfo(headOnly, VOCAB)).toEqual({
      dtype: 'fp32',
      headDtype: 'q8',
      matrices: { h: 'q8' },
    });
  });
});
