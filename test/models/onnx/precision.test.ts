import { describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import {
  BUILTIN_DTYPES,
  type BuiltinDtype,
  FP32_PRECISION,
  matrixInputDims,
  quantizationInfo,
  resolvePrecision,
} from '../../../src/models/onnx/precision.js';

// K of the block matrices: dim 64 (Q/K/V and the FFN's input), nHeads · headSize = 64 (the output projection), and
// the FFN's hidden width 1.5 · 64 = 96; the head's K is dim.
const config = ModelConfig.parse({ dim: 64, n_heads: 4, num_blocks: 1, vocab_size: 50, expansion: 1.5 });

describe('resolvePrecision', () => {
  it('gives every matrix input dimension: dim, the heads, the FFN width; the head reads dim', () => {
    expect(matrixInputDims(config)).toEqual({ blocks: [64, 64, 96], head: 64 });
    const narrow = ModelConfig.parse({ dim: 48, n_heads: 3, num_blocks: 1, vocab_size: 50, expansion: 2 });
    expect(matrixInputDims(narrow)).toEqual({ blocks: [48, 48, 96], head: 48 });
  });

  it('defaults to float32 with 32-value blocks and int8 compute, the head following the dtype', () => {
    expect(resolvePrecision(config)).toEqual(FP32_PRECISION);
    expect(resolvePrecision(config, { dtype: 'q8' })).toEqual({
      ...FP32_PRECISION,
      dtype: 'q8',
      headDtype: 'q8',
    });
    expect(resolvePrecision(config, { dtype: 'q8', headDtype: 'fp16' }).headDtype).toBe('fp16');
  });

  it('refuses a dtype the built-in graphs do not run, naming those they do', () => {
    expect(() => resolvePrecision(config, { headDtype: 'q2' })).toThrow(
      messages.dtypeNotAvailable('q2', 'the built-in ONNX models', BUILTIN_DTYPES),
    );
  });

  it('takes block sizes that are powers of two from 16, and nothing else', () => {
    for (const blockSize of [8, 15, 24, 48, 16.5, Number.NaN, 2 ** 60])
      expect(() => resolvePrecision(config, { dtype: 'q8', blockSize })).toThrow(
        messages.invalidBlockSize(blockSize),
      );
    for (const blockSize of [16, 32, 64, 1024])
      expect(resolvePrecision(config, { dtype: 'q8', blockSize }).blockSize).toBe(blockSize);
  });

  it('takes accuracy levels 0 to 4, integers only', () => {
    for (const accuracyLevel of [-1, 5, 2.5]) {
      expect(() => resolvePrecision(config, { accuracyLevel })).toThrow(
        messages.invalidNumberOption('accuracyLevel', accuracyLevel, 'an integer from 0 to 4'),
      );
    }
    for (const accuracyLevel of [0, 4])
      expect(resolvePrecision(config, { accuracyLevel }).accuracyLevel).toBe(accuracyLevel);
  });

  it('checks the block size against the K of the 4-bit matrices only, listing the sizes that divide them', () => {
    // q4 blocks: 64 does not divide the FFN's 96; 16 and 32 divide 64, 64 and 96.
    expect(() => resolvePrecision(config, { dtype: 'q4', blockSize: 64 })).toThrow(
      messages.blockSizeDoesNotDivide(64, 96, [16, 32]),
    );
    // A q4 head alone has K = dim = 64: block 64 fits; q8 blocks are not blocked.
    expect(resolvePrecision(config, { dtype: 'q8', headDtype: 'q4', blockSize: 64 }).blockSize).toBe(64);
    expect(() => resolvePrecision(config, { dtype: 'q8', headDtype: 'q4', blockSize: 128 })).toThrow(
      messages.blockSizeDoesNotDivide(128, 64, [16, 32, 64]),
    );
    // 32 divides every K.
    expect(resolvePrecision(config, { dtype: 'q4', blockSize: 32 }).blockSize).toBe(32);
  });
});

describe('quantizationInfo', () => {
  const q4 = resolvePrecision(config, { dtype: 'q4', headDtype: 'q8', blockSize: 16, accuracyLevel: 1 });

  it('is undefined when every matrix is float32', () => {
    expect(quantizationInfo(q4, new Map())).toBeUndefined();
  });

  it('gives the block size and accuracy level only when a matrix is 4-bit', () => {
    const q8Only = new Map<string, BuiltinDtype>([['lm_head', 'q8']]);
    expect(quantizationInfo(q4, q8Only)).toEqual({
      dtype: 'q4',
      headDtype: 'q8',
      matrices: { lm_head: 'q8' },
    });
    const mixed = new Map<string, BuiltinDtype>([
      ['block0.q', 'q4'],
      ['lm_head', 'q8'],
    ]);
    expect(quantizationInfo(q4, mixed)).toEqual({
      dtype: 'q4',
      headDtype: 'q8',
      matrices: { 'block0.q': 'q4', lm_head: 'q8' },
      blockSize: 16,
      accuracyLevel: 1,
    });
  });
});
