/**
 * A config.json that disagrees with its ONNX graph is refused at load, naming the field, its value and what the
 * graph holds — for float, q8 and q4 (MatMulNBits) files — and the CLI says so in one line with exit 2.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ExitCode, runCli } from '../../../src/cli/index.js';
import { DantinoxError } from '../../../src/errors.js';
import { hfConfigFromJson, readHfConfig } from '../../../src/models/hf/hf-config.js';
import { hfGraphMismatches } from '../../../src/models/hf/hf-graph-check.js';
import { loadHfModel } from '../../../src/models/hf/hf-model.js';
import { type OnnxGraphInfo, readOnnxGraph } from '../../../src/models/hf/onnx-file-info.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { captureIo } from '../../cli/capture-io.js';
import { type TinyHfModel, type TinyLayout, writeTinyHfModel } from './fixtures.js';

const made: TinyHfModel[] = [];
afterAll(() => {
  for (const f of made) f.cleanup();
});

/** A llama layout whose MLP width (96) a q4 block of 32 divides. */
const LLAMA_Q4 = ModelConfig.parse({
  dim: 32,
  nHeads: 4,
  kvHeads: 2,
  numBlocks: 2,
  vocabSize: 256,
  maxContext: 64,
  expansion: 3,
  useSwiglu: true,
  activation: 'silu',
  norm: 'rmsnorm',
  posEncoding: 'rotary',
  weightTying: false,
});

const folders = new Map<string, TinyHfModel>();
function folder(layout: TinyLayout): TinyHfModel {
  let f = folders.get(layout);
  if (f === undefined) {
    f = writeTinyHfModel(layout, {
      dtypes: ['fp32', 'q8', 'q4'],
      ...(layout === 'llama' ? { config: LLAMA_Q4 } : {}),
    });
    made.push(f);
    folders.set(layout, f);
  }
  return f;
}

const FILES = ['model.onnx', 'model_quantized.onnx', 'model_q4.onnx'] as const;

/** The mismatches of `file` once `edit` is applied to the folder's config.json (read back, not written). */
function mismatchesWith(layout: TinyLayout, file: string, edit: Record<string, unknown>) {
  const f = folder(layout);
  const dir = mkdtempSync(join(tmpdir(), 'dx-hfcheck-'));
  const raw = JSON.parse(readFileSync(join(f.dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...raw, ...edit }));
  return hfGraphMismatches(readHfConfig(join(dir, 'config.json')), readOnnxGraph(join(f.dir, 'onnx', file)));
}

describe('an exported folder agrees with its own graph', () => {
  test.each(FILES.flatMap((file) => (['gpt2', 'llama'] as const).map((layout) => [layout, file] as const)))(
    '%s %s',
    (layout, file) => {
      expect(mismatchesWith(layout, file, {})).toEqual([]);
    },
  );
});

describe('each lying field is named with its value and the graph’s', () => {
  const cases: [TinyLayout, Record<string, unknown>, string, string][] = [
    ['llama', { intermediate_size: 2048 }, '2048', 'MLP matrices 32 × 96'],
    ['llama', { vocab_size: 512 }, '512', 'token embedding 256 × 32'],
    ['llama', { hidden_size: 64, head_dim: null }, '64', 'token embedding 256 × 32'],
    [
      'llama',
      { num_attention_heads: 8, head_dim: null },
      '8 (head size 4)',
      'head size 8 in past_key_values',
    ],
    ['llama', { num_key_value_heads: 4 }, '4', '2 key/value heads in past_key_values'],
    ['llama', { num_hidden_layers: 3 }, '3', '2 past_key_values layers'],
    ['llama', { max_position_embeddings: 4096 }, '4096', 'a position table of 64 rows'],
    ['gpt2', { n_inner: 3000 }, '3000', 'MLP matrices 32 × 128'],
    ['gpt2', { n_inner: 32 }, '32', 'MLP matrices 32 × 128'],
    ['gpt2', { n_positions: 1024 }, '1024', 'a position table of 64 rows'],
    ['gpt2', { n_head: 8 }, '8', '4 key/value heads in past_key_values'],
    ['gpt2', { n_embd: 64, n_inner: 128 }, '64', 'token embedding 256 × 32'],
    ['gpt2', { vocab_size: 50257 }, '50257', 'token embedding 256 × 32'],
  ];
  // A tied fp32 gpt2 transposes its embedding at run time; quantized files store the head (tied or not) apart.
  test('an untied config over a graph that reuses the embedding as its head', () => {
    expect(mismatchesWith('gpt2', 'model.onnx', { tie_word_embeddings: false })).toEqual([
      {
        key: 'tie_word_embeddings',
        config: 'false',
        graph: 'no LM head matrix of its own (it reuses the token embedding)',
      },
    ]);
  });
  test.each(FILES.flatMap((file) => cases.map((c) => [file, ...c] as const)))(
    '%s %s %o',
    (file, layout, edit, config, graph) => {
      const key = Object.keys(edit)[0] ?? '';
      expect(mismatchesWith(layout, file, edit)).toContainEqual({ key, config, graph });
    },
  );

  test('a default field is named as such', () => {
    const f = folder('gpt2');
    const raw = JSON.parse(readFileSync(join(f.dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    const dir = mkdtempSync(join(tmpdir(), 'dx-hfcheck-'));
    const { n_inner: _, ...rest } = raw;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...rest, n_embd: 32, n_head: 4 }));
    // 4 × n_embd = 128 is the graph's width: agreeing defaults are fine.
    expect(
      hfGraphMismatches(
        readHfConfig(join(dir, 'config.json')),
        readOnnxGraph(join(f.dir, 'onnx/model.onnx')),
      ),
    ).toEqual([]);
  });
});

describe('graphs laid out as other exporters do', () => {
  const hf = (json: Record<string, unknown>) => hfConfigFromJson({ model_type: 'gpt2', ...json });
  const GPT2 = { n_embd: 8, n_head: 2, n_layer: 1, vocab_size: 50, n_positions: 16, n_inner: 32 };
  const init = (name: string, dims: number[]) => ({ name, dims, dataType: 1 });
  const node = (opType: string, inputs: string[], output: string) => ({
    opType,
    inputs,
    outputs: [output],
    ints: {},
  });
  /** optimum's gpt2: ids reshaped before the Gather, a fused c_attn, Conv1D weights as [in, out]. */
  const optimumGpt2: OnnxGraphInfo = {
    initializers: [
      init('transformer.wte.weight', [50, 8]),
      init('transformer.wpe.weight', [16, 8]),
      init('transformer.h.0.attn.c_attn.weight', [8, 24]),
      init('transformer.h.0.attn.c_proj.weight', [8, 8]),
      init('transformer.h.0.mlp.c_fc.weight', [8, 32]),
      init('transformer.h.0.mlp.c_proj.weight', [32, 8]),
    ],
    nodes: [
      node('Reshape', ['input_ids', 'shape'], 'ids2d'),
      node('Gather', ['transformer.wte.weight', 'ids2d'], 'tok'),
      node('Unsqueeze', ['position_ids', 'axes'], 'pos2d'),
      node('Gather', ['transformer.wpe.weight', 'pos2d'], 'pos'),
    ],
    inputs: [{ name: 'past_key_values.0.key', dims: ['batch', 2, 'past', 4] }],
  };

  test('agrees with its own config', () => {
    expect(hfGraphMismatches(hf(GPT2), optimumGpt2)).toEqual([]);
  });

  test.each([
    [{ vocab_size: 64 }, 'vocab_size', '64', 'token embedding 50 × 8'],
    [{ n_positions: 32 }, 'n_positions', '32', 'a position table of 16 rows'],
    [{ n_inner: 64 }, 'n_inner', '64', 'MLP matrices 8 × 32'],
  ])('%o is found through the reshaped ids and the fused QKV', (edit, key, config, graph) => {
    expect(hfGraphMismatches(hf({ ...GPT2, ...edit }), optimumGpt2)).toEqual([{ key, config, graph }]);
  });

  test('a graph whose weights this check cannot read gets no verdict', () => {
    const opaque: OnnxGraphInfo = { initializers: [], nodes: [], inputs: [] };
    expect(hfGraphMismatches(hf({ ...GPT2, n_inner: 999, vocab_size: 7 }), opaque)).toEqual([]);
  });
});

describe('loadHfModel and the CLI refuse the folder', () => {
  function lying(edit: Record<string, unknown>, dtype: 'fp32' | 'q4'): string {
    const f = writeTinyHfModel('llama', { config: LLAMA_Q4, dtypes: [dtype] });
    made.push(f);
    const path = join(f.dir, 'config.json');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), ...edit }));
    return f.dir;
  }

  test.each(['fp32', 'q4'] as const)(
    'a wrong intermediate_size (%s) is an INVALID_INPUT error at load',
    async (dtype) => {
      const dir = lying({ intermediate_size: 2208 }, dtype);
      const error = await loadHfModel(dir, { dtype }).catch((e: unknown) => e);
      expect(error, String(error)).toBeInstanceOf(DantinoxError);
      expect(error).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('intermediate_size is 2208 but the graph has MLP matrices 32 × 96'),
      });
    },
  );

  test('bench --model: one line, exit 2', async () => {
    const dir = lying({ vocab_size: 300 }, 'fp32');
    const cwd = mkdtempSync(join(tmpdir(), 'dx-hfcheck-cli-'));
    const io = captureIo(cwd);
    const code = await runCli(['bench', '--model', dir, '--out', 'o', '--tasks', 'latency'], io);
    const text = io.err.join('');
    expect(code, text).toBe(ExitCode.usage);
    expect(
      text
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('error:')),
    ).toEqual([expect.stringContaining('vocab_size is 300 but the graph has token embedding 256 × 32')]);
    expect(text).not.toMatch(/\n\s+at /);
  });
});
