/**
 * Fuzz of the config parsers: `ModelConfig.parse`, `BenchmarkConfig.parse` and the Hugging Face `config.json`
 * mapper on arbitrary values and on objects of their own keys (camelCase and snake_case) with arbitrary values,
 * plus `ModelConfig.load`/`BenchmarkConfig.load` on arbitrary YAML text. Each either returns a config or
 * throws a `DantinoxError` (a `ValidationError` is one); nothing else escapes. Seeded (test/setup.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { DantinoxError } from '../../src/errors.js';
import { hfConfigFromJson } from '../../src/models/hf/hf-config.js';
import { ModelConfig } from '../../src/models/model-config.js';

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const MODEL_KEYS = Object.keys(ModelConfig.parse({}));
const BENCH_KEYS = Object.keys(BenchmarkConfig.defaults());
const HF_KEYS = [
  'model_type',
  'hidden_size',
  'n_embd',
  'num_attention_heads',
  'n_head',
  'num_key_value_heads',
  'num_hidden_layers',
  'n_layer',
  'vocab_size',
  'max_position_embeddings',
  'n_positions',
  'intermediate_size',
  'n_inner',
  'hidden_act',
  'activation_function',
  'tie_word_embeddings',
  'sliding_window',
  'use_sliding_window',
  'head_dim',
];

/** Values that are close to valid ones, plus anything JSON or YAML can hold. */
const fieldValue = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -4, max: 4096 }) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -0, 2 ** 53 + 1, 1e-300) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'gpt2',
      'llama',
      'mistral',
      'silu',
      'gelu',
      'swiglu',
      'rmsnorm',
      'layernorm',
      'rotary',
      'learned',
      'ar',
      'diffusion',
      'moe',
      'mlp',
      '64',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: -2, max: 600 }), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);

function objectsOf(keys: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...keys, ...keys.map(snake)) },
    { weight: 1, arbitrary: fc.constantFrom('constructor', 'toString', '__proto__', 'model', 'valueOf') },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
  return fc.dictionary(key, fieldValue, { maxKeys: 8 });
}

/** Runs `parse`; passes when it returns or throws a DantinoxError. */
function onlyDantinoxErrors(parse: () => unknown, what: string): void {
  try {
    parse();
  } catch (error) {
    expect(error, `${what} threw ${String(error)}`).toBeInstanceOf(DantinoxError);
  }
}

const RUNS = { numRuns: 400, interruptAfterTimeLimit: 4_000, markInterruptAsFailure: false };

describe('config parsers throw only DantinoxError', () => {
  it.each([
    ['ModelConfig.parse', (v: unknown) => ModelConfig.parse(v), MODEL_KEYS],
    ['BenchmarkConfig.parse', (v: unknown) => BenchmarkConfig.parse(v), BENCH_KEYS],
    ['hfConfigFromJson', (v: unknown) => hfConfigFromJson(v), HF_KEYS],
  ] as const)('%s on objects of its keys and on anything', (name, parse, keys) => {
    fc.assert(
      fc.property(fc.oneof(objectsOf(keys), fc.anything({ maxDepth: 3 })), (value) =>
        onlyDantinoxErrors(() => parse(value), `${name}(${fc.stringify(value)})`),
      ),
      RUNS,
    );
  });

  it('hfConfigFromJson on a gpt2 or llama config with one field changed', () => {
    const base = (type: string): Record<string, unknown> => ({
      model_type: type,
      hidden_size: 64,
      n_embd: 64,
      num_attention_heads: 4,
      n_head: 4,
      num_hidden_layers: 2,
      n_layer: 2,
      vocab_size: 256,
      max_position_embeddings: 128,
      n_positions: 128,
      intermediate_size: 176,
    });
    fc.assert(
      fc.property(
        fc.constantFrom('gpt2', 'llama', 'mistral', 'qwen2', 'phi3'),
        fc.constantFrom(...HF_KEYS),
        fieldValue,
        (type, key, value) => {
          const json = { ...base(type), [key]: value };
          onlyDantinoxErrors(() => hfConfigFromJson(json), `hfConfigFromJson(${fc.stringify(json)})`);
        },
      ),
      RUNS,
    );
  });

  it('ModelConfig.load and BenchmarkConfig.load on arbitrary YAML text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dx-fuzz-config-'));
    const line = fc
      .tuple(
        fc.constantFrom(...MODEL_KEYS.map(snake), ...BENCH_KEYS.map(snake), 'model', 'x'),
        fc.string({ maxLength: 10 }),
      )
      .map(([k, v]) => `${k}: ${v}`);
    const text = fc.oneof(
      fc.array(line, { maxLength: 6 }).map((lines) => lines.join('\n')),
      fc.string({ maxLength: 60 }),
    );
    let n = 0;
    fc.assert(
      fc.property(text, (yaml) => {
        const path = join(dir, `c${n++}.yaml`);
        writeFileSync(path, yaml);
        onlyDantinoxErrors(() => ModelConfig.load(path), `ModelConfig.load(${JSON.stringify(yaml)})`);
        onlyDantinoxErrors(() => BenchmarkConfig.load(path), `BenchmarkConfig.load(${JSON.stringify(yaml)})`);
      }),
      { ...RUNS, numRuns: 200 },
    );
  });
});
