import { describe, expect, it } from 'vitest';
import {
  DTYPE_NAMES,
  DTYPES,
  dtypeOfOnnxFile,
  isDtype,
  parseDtype,
  TENSOR_TYPES,
  tensorTypeOfOnnx,
} from '../src/dtype.js';
import { DantinoxError } from '../src/errors.js';

describe('the dtype table', () => {
  it('names the transformers.js file of each variant', () => {
    expect(
      Object.fromEntries(DTYPE_NAMES.map((d) => [d, (DTYPES[d] as { onnxFile?: string }).onnxFile])),
    ).toEqual({
      fp32: 'model.onnx',
      fp16: 'model_fp16.onnx',
      bf16: undefined,
      q8: 'model_quantized.onnx',
      q4: 'model_q4.onnx',
      q4f16: 'model_q4f16.onnx',
      int8: 'model_int8.onnx',
      uint8: 'model_uint8.onnx',
      bnb4: 'model_bnb4.onnx',
    });
    expect(dtypeOfOnnxFile('model_q4.onnx')).toBe('q4');
    expect(dtypeOfOnnxFile('decoder_model.onnx')).toBeUndefined();
  });

  it('includes block overhead in the bytes per element of blocked formats', () => {
    expect(DTYPES.fp32.bytesPerElement).toBe(4);
    expect(DTYPES.q8.bytesPerElement).toBe(1);
    // 4 bits + (fp32 scale 4 B + 4-bit zero point) / 32.
    expect(DTYPES.q4.bytesPerElement).toBe(0.5 + 4.5 / 32);
    // 4 bits + (fp16 scale 2 B + 4-bit zero point) / 32.
    expect(DTYPES.q4f16.bytesPerElement).toBe(0.5 + 2.5 / 32);
    // 4 bits + fp32 absmax / 64.
    expect(DTYPES.bnb4.bytesPerElement).toBe(0.5 + 4 / 64);
  });

  it('derives ONNX and safetensors names from the storage type', () => {
    expect(DTYPES.fp16.onnxElementType).toBe(10);
    expect(DTYPES.bf16.safetensors).toBe('BF16');
    expect(DTYPES.q8.safetensors).toBe('I8');
    expect((DTYPES.q4 as { safetensors?: string }).safetensors).toBeUndefined();
    expect(tensorTypeOfOnnx(7)).toBe('int64');
    expect(tensorTypeOfOnnx(999)).toBeUndefined();
    for (const t of Object.values(TENSOR_TYPES)) expect(tensorTypeOfOnnx(t.onnx)).toBeDefined();
  });

  it('is frozen', () => {
    expect(Object.isFrozen(DTYPES)).toBe(true);
    expect(Object.isFrozen(DTYPES.q4)).toBe(true);
    expect(Object.isFrozen(TENSOR_TYPES.float32)).toBe(true);
  });

  it('parses names and long spellings, and lists the known dtypes otherwise', () => {
    expect(parseDtype('Q4')).toBe('q4');
    expect(parseDtype(' BFloat16 ')).toBe('bf16');
    expect(parseDtype('fp32 ')).toBe('fp32');
    expect(parseDtype('float16')).toBe('fp16');
    expect(isDtype('q8')).toBe(true);
    expect(isDtype('constructor')).toBe(false);
    expect(() => parseDtype('fp8')).toThrow(DantinoxError);
    expect(() => parseDtype('fp8')).toThrow(/fp32.*q4/);
  });
});
