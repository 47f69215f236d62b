/**
 * `exportGguf` on the built-in `tiny` model (and a gpt2-shaped one), parsed back by the test's own GGUF reader:
 * the general, architecture and tokenizer metadata, every tensor's name, shape, ggml type and bytes per dtype, the
 * file length, a Hugging Face folder as the source, and the refusals (code, message, no file written).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { encodeGgml, type GgmlTypeName } from '../../../src/models/gguf/ggml-types.js';
import {
  architectureMetadata,
  ggufBlocker,
  ggufTensors,
} from '../../../src/models/gguf/gguf-architecture.js';
import { exportGguf, GGUF_TYPE_OF } from '../../../src/models/gguf/gguf-export.js';
import { ggufTokenizerMetadata } from '../../../src/models/gguf/gguf-tokenizer.js';
import type { GgufValue } from '../../../src/models/gguf/gguf-writer.js';
import { exportHfModel, exportTokenizerFiles } from '../../../src/models/hf/hf-export.js';
import type { HfTokenizerFiles } from '../../../src/models/hf/hf-tokenizer-json.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { BUILTIN_DTYPES } from '../../../src/models/onnx/precision.js';
import { initWeights } from '../../../src/models/weights.js';
import { thrown } from '../../thrown.js';
import { GGUF_TYPE, type GgufEntry, type GgufFile, readGguf, tensorData } from './read-gguf.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-gguf-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ggml type ids from the GGUF specification (`ggml_type`), independent of `GGML_TYPES`. */
const TYPE_ID: Readonly<Record<GgmlTypeName, number>> = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 8 };

/** A writer's metadata value as the reader returns it (f32 values rounded to float32). */
function asEntry(v: GgufValue): GgufEntry {
  const T = GGUF_TYPE;
  if (v.type === 'array') {
    const of = v.of === 'string' ? T.STRING : v.of === 'i32' ? T.INT32 : T.FLOAT32;
    const values = Array.from(v.values as ArrayLike<number | string>, (x) =>
      of === T.FLOAT32 ? Math.fround(Number(x)) : x,
    );
    return { type: T.ARRAY, of, values };
  }
  if (v.type === 'f32') return { type: T.FLOAT32, value: Math.fround(v.value) };
  const type = { u32: T.UINT32, i32: T.INT32, bool: T.BOOL, string: T.STRING, u64: T.UINT64 }[v.type];
  return { type, value: v.value };
}

/** The file at `path`, parsed. */
function read(path: string): { bytes: Uint8Array; file: GgufFile } {
  const bytes = new Uint8Array(readFileSync(path));
  return { bytes, file: readGguf(bytes) };
}

/** The value of metadata `key` of `file`, or of its array, or `undefined`. */
function value(file: GgufFile, key: string): unknown {
  const e = file.metadata.get(key);
  return e === undefined ? undefined : 'values' in e ? e.values : e.value;
}

/** The `tiny` preset's fields, to vary one of them. */
const TINY = {
  dim: 32,
  n_heads: 4,
  num_blocks: 2,
  vocab_size: 256,
  max_context: 128,
  use_swiglu: true,
  norm: 'rmsnorm',
  pos_encoding: 'rotary',
};

/** A byte-level BPE tokenizer of 4 ids whose only special token is id 3. */
function smallBpe(): HfTokenizerFiles {
  return {
    tokenizerJson: {
      model: { type: 'BPE', vocab: { a: 0, b: 1, ab: 2 }, merges: ['a b'] },
      pre_tokenizer: { type: 'ByteLevel' },
      added_tokens: [{ id: 3, content: '<s>', special: true }],
    },
    tokenizerConfig: {},
  };
}

describe('exportGguf of the tiny model', () => {
  it('fp32: general keys, then the architecture keys, then the tokenizer keys, in that order', () => {
    const config = ModelConfig.preset('tiny');
    const weights = initWeights(config, 1);
    const path = join(dir, 'tiny-fp32.gguf');
    const result = exportGguf({ config, weights }, path);
    const { bytes, file } = read(path);
    expect(result).toEqual({ path, architecture: 'llama', type: 'F32', tensors: 20, bytes: bytes.length });
    const tokenizer = ggufTokenizerMetadata(exportTokenizerFiles('bytes', 256).tokenizerJson, 256);
    expect([...file.metadata]).toEqual([
      ['general.architecture', { type: GGUF_TYPE.STRING, value: 'llama' }],
      ['general.name', { type: GGUF_TYPE.STRING, value: 'dantinox' }],
      ['general.file_type', { type: GGUF_TYPE.UINT32, value: 0 }],
      ...[...architectureMetadata(config), ...tokenizer].map(([k, v]) => [k, asEntry(v)]),
    ]);
    // Known answers for tiny: dim 32, 4 heads of 8, 2 blocks, FFN 4 × 32, 256 byte tokens.
    expect(value(file, 'llama.embedding_length')).toBe(32);
    expect(value(file, 'llama.feed_forward_length')).toBe(128);
    expect(value(file, 'llama.rope.dimension_count')).toBe(8);
    expect((value(file, 'tokenizer.ggml.tokens') as unknown[]).length).toBe(256);
    expect(value(file, 'llama.expert_count')).toBeUndefined();
  });

  for (const [dtype, fileType] of [
    ['fp32', 0],
    ['fp16', 1],
    ['q8', 7],
    ['q4', 2],
  ] as const) {
    it(`${dtype}: matrices in ${GGUF_TYPE_OF[dtype]}, vectors in F32, every byte as encodeGgml writes it`, () => {
      const config = ModelConfig.preset('tiny');
      const weights = initWeights(config, 4);
      const path = join(dir, `tiny-${dtype}.gguf`);
      const result = exportGguf({ config, weights }, path, { dtype, name: `tiny ${dtype}` });
      const { bytes, file } = read(path);
      const type = GGUF_TYPE_OF[dtype];
      expect(result.type).toBe(type);
      expect(value(file, 'general.file_type')).toBe(fileType);
      expect(value(file, 'general.name')).toBe(`tiny ${dtype}`);
      const source = ggufTensors(config, weights);
      expect(file.tensors.map((t) => t.name)).toEqual(source.map((t) => t.name));
      expect(result.tensors).toBe(source.length);
      let matrices = 0;
      for (const [i, t] of source.entries()) {
        const info = file.tensors[i];
        const expected: GgmlTypeName = t.ne.length >= 2 ? type : 'F32';
        if (t.ne.length >= 2) matrices++;
        expect([info?.ne, info?.type], t.name).toEqual([t.ne, TYPE_ID[expected]]);
        expect(
          Buffer.from(tensorData(bytes, file, t.name)).equals(encodeGgml(expected, t.data)),
          t.name,
        ).toBe(true);
      }
      expect(matrices).toBe(15); // the embedding and 7 matrices per block
      const last = file.tensors.at(-1);
      expect(bytes.length).toBe(result.bytes);
      expect(result.bytes).toBe((last?.start ?? 0) + Math.ceil((last?.size ?? 0) / 32) * 32);
    });
  }

  it('replaces a file already at the path (no force option: the file is written whatever was there)', () => {
    const config = ModelConfig.preset('tiny');
    const weights = initWeights(config, 2);
    const fresh = exportGguf({ config, weights }, join(dir, 'fresh.gguf'), { dtype: 'q4' });
    const path = join(dir, 'taken.gguf');
    writeFileSync(path, new Uint8Array(fresh.bytes + 1000).fill(7));
    const over = exportGguf({ config, weights }, path, { dtype: 'q4' });
    expect(over.bytes).toBe(fresh.bytes);
    expect(readFileSync(path).equals(readFileSync(fresh.path))).toBe(true);
  });

  it('a tokenizer object given in the options is the one embedded', () => {
    const config = ModelConfig.preset('tiny');
    const path = join(dir, 'own-tokenizer.gguf');
    exportGguf({ config, weights: initWeights(config, 1) }, path, { tokenizer: smallBpe() });
    const { file } = read(path);
    const tokens = value(file, 'tokenizer.ggml.tokens') as string[];
    expect(tokens.slice(0, 5)).toEqual(['a', 'b', 'ab', '<s>', '[PAD4]']);
    expect(tokens.length).toBe(256);
    expect(value(file, 'tokenizer.ggml.eos_token_id')).toBe(3);
    expect(value(file, 'tokenizer.ggml.merges')).toEqual(['a b']);
  });
});

describe('exportGguf of other shapes and sources', () => {
  it('gpt2: learned positions, LayerNorm, GELU, an untied head; with the gpt2 metadata', () => {
    const config = ModelConfig.parse({
      dim: 32,
      n_heads: 2,
      num_blocks: 1,
      vocab_size: 256,
      max_context: 8,
      expansion: 2,
      use_swiglu: false,
      activation: 'gelu',
      norm: 'layernorm',
      pos_encoding: 'learned',
      weight_tying: false,
    });
    const weights = initWeights(config, 6);
    const path = join(dir, 'gpt2.gguf');
    const result = exportGguf({ config, weights }, path, { dtype: 'q8' });
    const { file } = read(path);
    expect(result.architecture).toBe('gpt2');
    expect(value(file, 'general.architecture')).toBe('gpt2');
    expect(value(file, 'gpt2.feed_forward_length')).toBe(64);
    expect(value(file, 'general.file_type')).toBe(7);
    const byName = new Map(file.tensors.map((t) => [t.name, t]));
    expect(byName.get('position_embd.weight')?.ne).toEqual([32, 8]);
    expect(byName.get('blk.0.attn_qkv.weight')).toMatchObject({ ne: [32, 96], type: 8 });
    expect(byName.get('blk.0.attn_qkv.bias')).toMatchObject({ ne: [96], type: 0 });
    expect(byName.get('output.weight')).toMatchObject({ ne: [32, 256], type: 8 });
    expect(result.tensors).toBe(17);
  });

  it('a Hugging Face folder: its weights and its own tokenizer, unless the options name another', () => {
    const config = ModelConfig.preset('tiny');
    const weights = initWeights(config, 9);
    const folder = join(dir, 'hf');
    exportHfModel(config, weights, folder, { tokenizer: smallBpe() });
    const own = exportGguf(folder, join(dir, 'folder-own.gguf'), { dtype: 'q8' });
    const direct = exportGguf({ config, weights }, join(dir, 'direct-own.gguf'), {
      dtype: 'q8',
      tokenizer: smallBpe(),
    });
    expect(own).toEqual({ ...direct, path: own.path });
    expect(readFileSync(own.path).equals(readFileSync(direct.path))).toBe(true);
    const bytesPath = join(dir, 'folder-bytes.gguf');
    exportGguf(folder, bytesPath, { tokenizer: 'bytes' });
    const { file } = read(bytesPath);
    const bytesTokens = ggufTokenizerMetadata(exportTokenizerFiles('bytes', 256).tokenizerJson, 256).get(
      'tokenizer.ggml.tokens',
    );
    expect(file.metadata.get('tokenizer.ggml.tokens')).toEqual(bytesTokens && asEntry(bytesTokens));
    expect(value(file, 'general.file_type')).toBe(0);
  });
});

describe('exportGguf refusals: the code, the message, and no file at the path', () => {
  it('INVALID_OPTION: an unknown dtype, checked before the source is read', () => {
    const config = ModelConfig.preset('tiny');
    const path = join(dir, 'bad-dtype.gguf');
    const options = { dtype: 'q3' as never };
    const error = thrown(() => exportGguf({ config, weights: initWeights(config, 1) }, path, options));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toBe(messages.unknownName('GGUF dtype', 'q3', BUILTIN_DTYPES));
    const folderError = thrown(() => exportGguf(join(dir, 'no-such-folder'), path, options));
    expect([folderError.code, folderError.message]).toEqual([error.code, error.message]);
    expect(existsSync(path)).toBe(false);
  });

  it('UNSUPPORTED: a config llama.cpp cannot run', () => {
    const config = ModelConfig.parse({ ...TINY, paradigm: 'diffusion' });
    const path = join(dir, 'diffusion.gguf');
    const error = thrown(() => exportGguf({ config, weights: initWeights(config, 1) }, path));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toBe(messages.ggufUnsupported(ggufBlocker(config) ?? ''));
    expect(error.message).toMatch(/the "diffusion" paradigm/);
    expect(existsSync(path)).toBe(false);
  });

  it('INVALID_INPUT: weights that do not match the config', () => {
    const config = ModelConfig.preset('tiny');
    const weights = new Map(
      [...initWeights(config, 1)].filter(([name]) => name !== 'blocks.1.mlp.up.weight'),
    );
    const path = join(dir, 'no-weight.gguf');
    const error = thrown(() => exportGguf({ config, weights }, path));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(
      /^Weights do not match the model config \(1 problem\):\n.*blocks\.1\.mlp\.up\.weight: missing/,
    );
    expect(error.message.startsWith(messages.invalidWeights(1))).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it('INVALID_OPTION: a tokenizer larger than the vocabulary', () => {
    const config = ModelConfig.preset('tiny');
    const path = join(dir, 'gpt2-tokenizer.gguf');
    const error = thrown(() =>
      exportGguf({ config, weights: initWeights(config, 1) }, path, { tokenizer: 'gpt2' }),
    );
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toBe(messages.hfExportTokenizer('gpt2', 50257, 256));
    expect(existsSync(path)).toBe(false);
  });

  it('UNSUPPORTED: q4 rows of 16 values; the same model in fp16 is written', () => {
    const config = ModelConfig.parse({ ...TINY, dim: 16, n_heads: 2 });
    const weights = initWeights(config, 1);
    const path = join(dir, 'dim16-q4.gguf');
    const error = thrown(() => exportGguf({ config, weights }, path, { dtype: 'q4' }));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toBe(messages.ggufRowNotBlocked('token_embd.weight', 16, 'Q4_0', 32));
    expect(existsSync(path)).toBe(false);
    const ok = exportGguf({ config, weights }, join(dir, 'dim16-fp16.gguf'), { dtype: 'fp16' });
    expect(read(ok.path).file.tensors[0]).toMatchObject({
      name: 'token_embd.weight',
      ne: [16, 256],
      type: 1,
    });
  });
});
