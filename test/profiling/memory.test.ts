import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPE_NAMES, DTYPES, type Dtype, TENSOR_TYPES } from '../../src/dtype.js';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { countParameters, memoryFootprint } from '../../src/profiling/index.js';
import { arbitraryConfig } from './arbitrary-config.js';

describe('memoryFootprint', () => {
  it('gives GPT-2 small 36,864 KV bytes per token in fp16 (2·12 layers·12 heads·64·2 bytes)', () => {
    const m = memoryFootprint(ModelConfig.preset('gpt2-small'), { dtype: 'fp16' });
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
    expect(memoryFootprint(llama, { dtype: 'fp16' }).kvBytesPerToken).toBe(128 * 1024);
  });

  it('counts q4 matrices at 4 bits plus a float32 scale and a 4-bit zero point per block of 32, KV in float32', () => {
    const config = ModelConfig.preset('gpt2-small');
    const m = memoryFootprint(config, { dtype: 'q4' });
    // 0.5 byte of packed weight + (4 + 0.5) bytes of block overhead / 32 weights.
    expect(m.bytesPerElement).toBe(0.640625);
    // float32: token table 50257·768, positions 1024·768, 25 LayerNorms of 2·768; 4-bit: 12 blocks of
    // (4·768² attention + 2·768·3072 MLP) matrices, and the tied head's own 768·50257 copy.
    const full = 50257 * 768 + 1024 * 768 + 25 * 2 * 768;
    const matrices = 12 * (4 * 768 * 768 + 2 * 768 * 3072);
    expect(m.weightBytes).toBe(full * 4 + (matrices + 768 * 50257) * 0.640625);
    expect(memoryFootprint(config, { dtype: 'q4', headDtype: 'fp32' }).weightBytes).toBe(
      full * 4 + matrices * 0.640625,
    );
    expect(memoryFootprint(config, { dtype: 'q8' }).weightBytes).toBe(full * 4 + matrices + 768 * 50257);
    expect(m.kvBytesPerToken).toBe(2 * 12 * 12 * 64 * 4);
  });

  it('keeps an untied head, the token table and the RMS norms of a quantized MoE in float32 outside the matrices', () => {
    const moe = ModelConfig.parse({
      dim: 8,
      n_heads: 2,
      num_blocks: 2,
      vocab_size: 10,
      max_context: 16,
      ffn: 'moe',
      n_experts: 4,
      top_k: 2,
      norm: 'rmsnorm',
      pos_encoding: 'rotary',
      weight_tying: false,
    });
    const p = countParameters(moe);
    // float32: the 10·8 token table and 2·2 + 1 RMS norms of 8; the untied 8·10 head follows headDtype.
    const full = 10 * 8 + 5 * 8;
    const head = 8 * 10;
    const q8 = memoryFootprint(moe, { dtype: 'q8', headDtype: 'fp16' });
    expect(q8.weightBytes).toBe(full * 4 + (p.total - full - head) * 1 + head * 2);
    // A decode step reads the router and topK = 2 of the 4 experts: fewer matrix bytes, the same float32 part.
    expect(p.active).toBeLessThan(p.total);
    expect(q8.activeWeightBytes).toBe(full * 4 + (p.active - full - head) * 1 + head * 2);
    // Unquantized, every weight is in the dtype and the untied head too.
    expect(memoryFootprint(moe, { dtype: 'fp16' }).weightBytes).toBe(p.total * 2);
    expect(memoryFootprint(moe, { dtype: 'fp16', headDtype: 'fp32' }).weightBytes).toBe(
      (p.total - head) * 2 + head * 4,
    );
  });

  it('names headDtype when the head dtype is unknown', () => {
    expect(() => memoryFootprint(ModelConfig.preset('tiny'), { headDtype: 'int3' as Dtype })).toThrow(
      /headDtype/,
    );
  });

  it('scales weights of the float dtypes with their bytes and KV with its activation type, fp32 by default', () => {
    const floats = DTYPE_NAMES.filter((d) => !DTYPES[d].quantized);
    fc.assert(
      fc.property(arbitraryConfig, fc.constantFrom<Dtype>(...floats), (c, dtype) => {
        const m = memoryFootprint(c, { dtype });
        const info = DTYPES[dtype];
        const p = countParameters(c);
        expect(m.weightBytes).toBe(p.total * info.bytesPerElement);
        expect(m.activeWeightBytes).toBe(p.active * info.bytesPerElement);
        const kv = TENSOR_TYPES[info.activation].bytes;
        expect(m.kvBytesPerToken).toBe(2 * c.numBlocks * c.kvHeads * c.headSize * kv);
      }),
    );
    expect(memoryFootprint(ModelConfig.preset('tiny')).dtype).toBe('fp32');
  });

  it('accepts the long spellings of the full-precision dtypes', () => {
    const tiny = ModelConfig.preset('tiny');
    expect(memoryFootprint(tiny, { dtype: 'float16' })).toEqual(memoryFootprint(tiny, { dtype: 'fp16' }));
    expect(memoryFootprint(tiny, { dtype: 'bfloat16' }).dtype).toBe('bf16');
  });

  it('rejects an unknown dtype, naming the known ones', () => {
    expect(() => memoryFootprint(ModelConfig.preset('tiny'), { dtype: 'fp8' as Dtype })).toThrow(
      messages.unknownName('dtype', 'fp8', DTYPE_NAMES),
    );
  });

  it("takes the engine's KV element bytes when given (llama.cpp's F16 cache of a float32 model), weights unchanged", () => {
    const gpt2 = ModelConfig.preset('gpt2-small');
    const f16Cache = memoryFootprint(gpt2, { kvBytesPerElement: 2 });
    expect(f16Cache.kvBytesPerToken).toBe(36_864);
    expect(f16Cache.kvBytesPerElement).toBe(2);
    expect(f16Cache.weightBytes).toBe(memoryFootprint(gpt2).weightBytes);
    expect(memoryFootprint(gpt2, { dtype: 'q8', kvBytesPerElement: 1.0625 }).kvBytesPerToken).toBe(
      2 * 12 * 12 * 64 * 1.0625,
    );
    for (const bad of [0, -2, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => memoryFootprint(gpt2, { kvBytesPerElement: bad })).toThrow(
        messages.invalidNumberOption('kvBytesPerElement', bad, 'a finite number > 0'),
      );
  });
});
