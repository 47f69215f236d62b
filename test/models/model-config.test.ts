import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { ModelConfig } from '../../src/models/model-config.js';

function issuesOf(input: unknown): string[] {
  try {
    ModelConfig.parse(input);
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('ModelConfig.parse', () => {
  it('fills defaults and derives headSize, kvHeads, attention, causal and maskTokenId once', () => {
    const c = ModelConfig.parse({ dim: 256, nHeads: 8 });
    expect(c.headSize).toBe(32);
    expect(c.kvHeads).toBe(8);
    expect(c.attention).toBe('mha');
    expect(c.causal).toBe(true);
    expect(c.maskTokenId).toBe(c.vocabSize - 1);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("accepts the seed's snake_case keys and legacy aliases", () => {
    const c = ModelConfig.parse({
      dim: 256,
      n_heads: 8,
      num_blocks: 4,
      vocab_size: 8000,
      kv_heads: 2,
      use_moe: true,
      n_experts: 8,
      top_k_mlp: 2,
      norm_type: 'layernorm',
      trainable_pos: true,
      model_type: 'diffusion',
      dropout_rate: 0.1,
      rope_scale: 1.0,
    });
    expect(c).toMatchObject({
      nHeads: 8,
      numBlocks: 4,
      vocabSize: 8000,
      kvHeads: 2,
      attention: 'gqa',
      ffn: 'moe',
      nExperts: 8,
      topK: 2,
      norm: 'layernorm',
      posEncoding: 'learned',
      paradigm: 'diffusion',
      causal: false,
      dropout: 0.1,
    });
  });

  it('round-trips through the snake_case form', () => {
    const c = ModelConfig.preset('gpt2-small');
    expect(ModelConfig.parse(ModelConfig.toSnakeCase(c))).toEqual(c);
  });

  it('lists every problem at once, with the value received and what is allowed', () => {
    const issues = issuesOf({ dim: 512, nHeads: 12, kvHeads: 5, ffn: 'moe', nExperts: 2, topK: 3 });
    expect(issues).toContain('nHeads: nHeads (12) must divide dim (512)');
    expect(issues).toContain('kvHeads: kvHeads (5) must divide nHeads (12)');
    expect(issues).toContain('topK: topK (3) must be ≤ nExperts (2)');
  });

  it('reports type errors per field and unknown keys with a suggestion', () => {
    const issues = issuesOf({ dim: -3, norm: 'batchnorm', dimm: 4 });
    expect(issues.some((i) => i.startsWith('dim:') && i.includes('-3'))).toBe(true);
    expect(issues.some((i) => i.startsWith('norm:') && i.includes('"batchnorm"'))).toBe(true);
    expect(issues.some((i) => i.startsWith('dimm:') && i.includes('Did you mean "dim"'))).toBe(true);
  });

  it('rejects seed architectures the runtime does not build', () => {
    expect(issuesOf({ attention: 'mla' })[0]).toMatch(/attention = "mla" is not supported/);
    expect(issuesOf({ paradigm: 'continuous' })[0]).toMatch(/paradigm = "continuous" is not supported/);
  });

  it('loads JSON and YAML files, flattening seed sections', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-config-'));
    writeFileSync(join(dir, 'a.yaml'), 'model:\n  dim: 128\n  n_heads: 4\n  num_blocks: 2\n');
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ dim: 64, nHeads: 2 }));
    writeFileSync(join(dir, 'bad.yaml'), 'dim: [1,\n');
    expect(ModelConfig.load(join(dir, 'a.yaml'))).toMatchObject({ dim: 128, nHeads: 4, numBlocks: 2 });
    expect(ModelConfig.load(join(dir, 'b.json')).headSize).toBe(32);
    expect(() => ModelConfig.load(join(dir, 'bad.yaml'))).toThrow(/is not valid YAML/);
    expect(() => ModelConfig.load(join(dir, 'missing.yaml'))).toThrow(/Cannot read model config/);
  });

  it('has the documented presets', () => {
    expect(ModelConfig.preset('gpt2-small')).toMatchObject({
      dim: 768,
      nHeads: 12,
      numBlocks: 12,
      vocabSize: 50257,
      maxContext: 1024,
      useSwiglu: false,
      activation: 'gelu',
      norm: 'layernorm',
      posEncoding: 'learned',
    });
    expect(ModelConfig.preset('small')).toMatchObject({ dim: 512, numBlocks: 12 });
    expect(ModelConfig.preset('tiny').vocabSize).toBe(256);
    expect(() => ModelConfig.preset('gpt2small')).toThrow(
      /Unknown preset "gpt2small". Did you mean "gpt2-small"\?/,
    );
  });
});
