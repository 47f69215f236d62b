import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import {
  BYTES_PER_ELEMENT,
  countParameters,
  type Dtype,
  memoryFootprint,
} from '../../src/profiling/index.js';
import { arbitraryConfig } from './arbitrary-config.js';

describe('memoryFootprint', () => {
  it('gives GPT-2 small 36,864 KV bytes per token in float16 (2·12 layers·12 heads·64·2 bytes)', () => {
    const m = memoryFootprint(ModelConfig.preset('gpt2-small'), { dtype: 'float16' });
    expect(m.kvBytesPerToken).toBe(36_864);
    expect(m.weightBytes).toBe(2 * 124_356_864);
    expect(m.bytesPerElement).toBe(2);
  });

  it('reproduces the Llama-3-8B KV example: 128 KiB per token in fp16 (L=32, kvH=8, hs=128)', () => {
    const llama = ModelConfig.parse({
      dim: 4096,
      nHeads: 32,
      kvHeads: 8,
      numBlocks: 32,
      vocabSize: 128256,
      maxContext: 8192,
    });
    expect(memoryFootprint(llama, { dtype: 'float16' }).kvBytesPerToken).toBe(128 * 1024);
  });

  it('scales weights and KV with the dtype size, float32 by default', () => {
    fc.assert(
      fc.property(
        arbitraryConfig,
        fc.constantFrom<Dtype>('float32', 'float16', 'bfloat16', 'int8'),
        (c, dtype) => {
          const m = memoryFootprint(c, { dtype });
          const bytes = BYTES_PER_ELEMENT[dtype];
          const p = countParameters(c);
          expect(m.weightBytes).toBe(p.total * bytes);
          expect(m.activeWeightBytes).toBe(p.active * bytes);
          expect(m.kvBytesPerToken).toBe(2 * c.numBlocks * c.kvHeads * c.headSize * bytes);
        },
      ),
    );
    expect(memoryFootprint(ModelConfig.preset('tiny')).dtype).toBe('float32');
  });

  it('rejects an unknown dtype', () => {
    expect(() => memoryFootprint(ModelConfig.preset('tiny'), { dtype: 'fp16' as Dtype })).toThrow(
      messages.unknownName('dtype', 'fp16', ['float32', 'float16', 'bfloat16', 'int8']),
    );
  });
});
