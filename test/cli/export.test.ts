import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { trainedPresetDir } from '../../src/models/trained-presets.js';
import { ensureBuilt, runCli } from './built-cli.js';

beforeAll(() => ensureBuilt(), 180_000);
const dir = mkdtempSync(join(tmpdir(), 'dantinox-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dantinox export', () => {
  it('--format gguf --dtype q8 writes a GGUF v3 file that an independent reader parses', async () => {
    const out = join(dir, 'tiny-q8.gguf');
    const run = await runCli(['export', '--config', 'tiny', '--dtype', 'q8', '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Wrote .*tiny-q8\.gguf: GGUF v3, architecture llama, Q8_0 matrices, 20 tensors, /,
    );
    expect(readFileSync(out).subarray(0, 4).toString('latin1')).toBe('GGUF');
    // node-llama-cpp's own GGUF parser (JavaScript, no llama.cpp involved).
    const info = await readGgufFileInfo(out, { readTensorInfo: true });
    expect(info.version).toBe(3);
    const meta = info.metadata as unknown as Record<string, Record<string, unknown>>;
    expect(meta['general']?.['architecture']).toBe('llama');
    expect(meta['llama']?.['embedding_length']).toBe(32);
    expect(meta['llama']?.['block_count']).toBe(2);
    const tokenizer = meta['tokenizer']?.['ggml'] as Record<string, unknown>;
    expect(tokenizer['model']).toBe('gpt2');
    expect((tokenizer['tokens'] as string[]).length).toBe(256);
    const types = new Map(info.tensorInfo?.map((t) => [t.name, t.ggmlType]));
    expect(types.get('token_embd.weight')).toBe(8); // Q8_0
    expect(types.get('blk.0.attn_norm.weight')).toBe(0); // norms stay F32
    expect(info.tensorInfo?.find((t) => t.name === 'blk.1.ffn_down.weight')?.dimensions).toEqual([128, 32]);
  });

  it('--tokenizer: a vocabulary no built-in tokenizer fits needs one, and the GGUF then carries that BPE', async () => {
    writeFileSync(join(dir, 'bpe-vocab.yaml'), 'dim: 32\nn_heads: 4\nnum_blocks: 2\nvocab_size: 4096\n');
    const refused = await runCli([
      'export',
      '--config',
      join(dir, 'bpe-vocab.yaml'),
      '--out',
      join(dir, 'x.gguf'),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(messages.exportNoTokenizer(4096));
    const bpe = join(trainedPresetDir('brown'), 'tokenizer.json');
    const out = join(dir, 'bpe.gguf');
    const run = await runCli([
      'export',
      '--config',
      join(dir, 'bpe-vocab.yaml'),
      '--tokenizer',
      bpe,
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const meta = (await readGgufFileInfo(out)).metadata as unknown as Record<string, Record<string, unknown>>;
    const tokens = (meta['tokenizer']?.['ggml'] as Record<string, unknown> | undefined)?.[
      'tokens'
    ] as string[];
    const vocab = (JSON.parse(readFileSync(bpe, 'utf8')) as { model: { vocab: Record<string, number> } })
      .model.vocab;
    expect(tokens.length).toBe(4096);
    for (const [token, id] of Object.entries(vocab).slice(250, 300)) expect(tokens[id]).toBe(token);
  });

  it('--config brown exports the trained weights with their own tokenizer', async () => {
    const out = join(dir, 'brown-hf');
    const run = await runCli(['export', '--config', 'brown', '--format', 'hf', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'tokenizer.json'), 'utf8'))).toEqual(
      JSON.parse(readFileSync(join(trainedPresetDir('brown'), 'tokenizer.json'), 'utf8')),
    );
  });

  it('--format hf writes a Hugging Face folder', async () => {
    const out = join(dir, 'tiny-hf');
    const run = await runCli(['export', '--config', 'tiny', '--format', 'hf', '--out', out]);
    expect(run.code).toBe(0);
    expect(existsSync(join(out, 'onnx', 'model.onnx'))).toBe(true);
    expect(existsSync(join(out, 'tokenizer.json'))).toBe(true);
    expect(existsSync(join(out, 'onnx', 'model_q4.onnx'))).toBe(false);
  });

  it('--format hf --dtype q4 writes model.onnx and model_q4.onnx, and bench --model --dtype q4 runs the q4 file', async () => {
    const out = join(dir, 'tiny-hf-q4');
    const run = await runCli(['export', '--config', 'tiny', '--format', 'hf', '--dtype', 'q4', '--out', out]);
    expect(run.code).toBe(0);
    expect(existsSync(join(out, 'onnx', 'model.onnx'))).toBe(true);
    expect(existsSync(join(out, 'onnx', 'model_q4.onnx'))).toBe(true);
    const bench = await runCli([
      'bench',
      '--model',
      out,
      '--dtype',
      'q4',
      '--tasks',
      'throughput',
      '--seq-lens',
      '8',
      '--batch-sizes',
      '1',
      '--n-warmup',
      '1',
      '--n-measure',
      '2',
      '--min-warmup-ms',
      '0',
      '--no-charts',
      '--no-calibrate',
      '--out',
      join(dir, 'bench-q4'),
    ]);
    expect(bench.code, bench.stderr).toBe(0);
    expect(bench.stdout).toMatch(/Engine: onnxruntime-node [^\n]*, q4\n/);
  });

  it('--model converts a Hugging Face folder to the same GGUF file as exporting the built-in model', async () => {
    const folder = join(dir, 'tiny-hf-for-gguf');
    expect((await runCli(['export', '--config', 'tiny', '--format', 'hf', '--out', folder])).code).toBe(0);
    const fromFolder = join(dir, 'from-folder-q4.gguf');
    const direct = join(dir, 'direct-q4.gguf');
    const run = await runCli(['export', '--model', folder, '--dtype', 'q4', '--out', fromFolder]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Q4_0 matrices/);
    expect((await runCli(['export', '--config', 'tiny', '--dtype', 'q4', '--out', direct])).code).toBe(0);
    expect(readFileSync(fromFolder).equals(readFileSync(direct))).toBe(true);
    const mixed = await runCli([
      'export',
      '--model',
      folder,
      '--config',
      'tiny',
      '--out',
      join(dir, 'x.gguf'),
    ]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/^error: export --model converts a Hugging Face folder to GGUF/);
  });

  it('what llama.cpp cannot represent is one clear line and exit code 1', async () => {
    const config = join(dir, 'diffusion.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      config,
      JSON.stringify({ dim: 32, nHeads: 4, numBlocks: 1, vocabSize: 256, paradigm: 'diffusion' }),
    );
    const run = await runCli(['export', '--config', config, '--out', join(dir, 'd.gguf')]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /^error: Cannot export to GGUF: llama\.cpp cannot represent the "diffusion" paradigm/,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
