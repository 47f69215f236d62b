import { describe, expect, it } from 'vitest';
import type { ModelInfo, QuantizationInfo } from '../../src/models/model.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { modelFootprint } from '../../src/models/model-footprint.js';
import { memoryFootprint } from '../../src/profiling/index.js';

const config = ModelConfig.preset('gpt2-small');
const info = (more: Partial<ModelInfo>): ModelInfo => ({
  name: 'm',
  engine: 'e',
  threads: 1,
  dtype: 'fp32',
  ...more,
});
const quantization = (headDtype: string): QuantizationInfo => ({ dtype: 'q8', headDtype, matrices: {} });

describe('modelFootprint', () => {
  it('is memoryFootprint of the dtype the engine runs, with the LM head and KV cache as the engine holds them', () => {
    expect(modelFootprint({ config, info: info({}) })).toEqual(memoryFootprint(config));
    // The fp16 graph's weights are cast to float32 when its session is created: the run reads fp32 bytes.
    expect(modelFootprint({ config, info: info({ dtype: 'fp16', runtimeDtype: 'fp32' }) })).toEqual(
      memoryFootprint(config, { dtype: 'fp32' }),
    );
    // A quantized model whose head stays float32.
    const q8 = modelFootprint({ config, info: info({ dtype: 'q8', quantization: quantization('fp32') }) });
    expect(q8).toEqual(memoryFootprint(config, { dtype: 'q8', headDtype: 'fp32' }));
    expect(q8.weightBytes).toBeLessThan(memoryFootprint(config, { dtype: 'q8' }).weightBytes);
    // A head dtype is the stored model's: it is not applied to another run-time dtype.
    expect(
      modelFootprint({
        config,
        info: info({ dtype: 'fp16', runtimeDtype: 'fp32', quantization: quantization('q8') }),
      }),
    ).toEqual(memoryFootprint(config, { dtype: 'fp32' }));
    // llama.cpp's F16 cache of a float32 model: half the KV bytes, the same weights.
    const f16Cache = modelFootprint({ config, info: info({ kvBytesPerElement: 2 }) });
    expect(f16Cache.kvBytesPerToken).toBe(memoryFootprint(config).kvBytesPerToken / 2);
    expect(f16Cache.weightBytes).toBe(memoryFootprint(config).weightBytes);
  });
});
