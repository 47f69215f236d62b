import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { exportHfModel, initWeights, ModelConfig } from '../../src/models/index.js';
import { ensureBuilt, runCli } from './built-cli.js';

const QUICK = [
  '--no-calibrate',
  '--threads',
  '1',
  '--seq-lens',
  '16',
  '--batch-sizes',
  '1',
  '--n-warmup',
  '1',
  '--n-measure',
  '2',
  '--min-warmup-ms',
  '0',
  '--eval-batches',
  '1',
  '--eval-seq-len',
  '16',
  '--gen-tokens',
  '2',
  '--diffusion-steps',
  '2',
  '--no-charts',
  '--quiet',
];

beforeAll(() => ensureBuilt(), 180_000);

describe('dantinox bench on other models', () => {
  it('--model loads a Hugging Face ONNX folder and says it runs the folder’s own weights', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-hf-'));
    const config = ModelConfig.preset('tiny');
    exportHfModel(config, initWeights(config, 3), join(cwd, 'tiny-hf'));
    // A short text: tokenizing the whole Brown corpus with the folder's tokenizer is not what this test checks.
    writeFileSync(join(cwd, 'valid.txt'), 'The quick brown fox jumps over the lazy dog. '.repeat(20));
    const run = await runCli(
      [
        'bench',
        '--model',
        'tiny-hf',
        '--tasks',
        'latency,perplexity',
        '--data',
        'valid.txt',
        ...QUICK,
        '--out',
        'out',
      ],
      {
        cwd,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^Model: tiny-hf \(Hugging Face ONNX folder tiny-hf, its own weights\): dim 32/,
    );
    expect(run.stdout).not.toContain('weights are random');
    const report = SuiteReport.load(join(cwd, 'out', 'results.json'));
    expect(report.modelMeta['model']).toBe('tiny-hf');
    expect(report.results.map((r) => r.status)).toEqual(['completed', 'completed']);
  });

  it('--paradigm diffusion benchmarks the built-in model as a masked-diffusion model', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-diffusion-'));
    const run = await runCli(
      [
        'bench',
        '--config',
        'tiny',
        '--paradigm',
        'diffusion',
        '--tasks',
        'latency',
        ...QUICK,
        '--out',
        'out',
      ],
      {
        cwd,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    // stdout is wrapped at 160 columns: read it as one line.
    expect(run.stdout.replace(/\n\s+/g, ' ')).toContain('rotary, diffusion');
    expect(SuiteReport.load(join(cwd, 'out', 'results.csv')).modelMeta['paradigm']).toBe('diffusion');
  });

  it('--ep with a provider the binding does not carry: one line naming those it does, exit 2, nothing built', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-ep-'));
    const run = await runCli(['bench', '--config', 'tiny', '--ep', 'tensorrt', ...QUICK, '--out', 'out'], {
      cwd,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: execution provider "tensorrt" is not available in this onnxruntime-node installation; it carries: cpu, .*\n$/,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(cwd, 'out', 'results.jsonl'))).toBe(false);
  });

  it('--ep cpu runs and records the provider in the engine column', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-ep-cpu-'));
    const run = await runCli(
      ['bench', '--config', 'tiny', '--ep', 'cpu', '--tasks', 'latency', ...QUICK, '--out', 'out'],
      {
        cwd,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(SuiteReport.load(join(cwd, 'out', 'results.json')).modelMeta['engine']).toMatch(
      /^onnxruntime-node \d+\.\d+\.\d+ \(cpu\)$/,
    );
  });
});
