/** `dantinox bench --engine`: the same built-in model on ONNX Runtime, llama.cpp and transformers.js, as matrix variants. */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { ensureBuilt, runCli } from './built-cli.js';

const QUICK = [
  '--threads',
  '2',
  '--seq-lens',
  '16',
  '--batch-sizes',
  '1,2',
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
  '3',
  '--no-charts',
  '--quiet',
];

beforeAll(() => ensureBuilt(), 180_000);

const ENGINES: readonly (readonly [string, RegExp])[] = [
  ['ort', /^onnxruntime-node \d+\.\d+\.\d+ \(cpu\)$/],
  ['llama.cpp', /^node-llama-cpp 3\.21\.1 \(llama\.cpp, cpu\)$/],
  ['transformers.js', /^@huggingface\/transformers 4\.3\.2/],
];

describe('--engine ort,llama.cpp,transformers.js --dtype q8 (a matrix over engines)', () => {
  it('runs every task on the same q8 weights on each engine, records engine and threads, and measures kld against one fp32 reference', {
    timeout: 300_000,
  }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-engine-'));
    const engines = ENGINES.map(([name]) => name).join(',');
    const tasks = ['--tasks', 'throughput,latency,perplexity,kld'];
    const run = await runCli(
      ['bench', '--config', 'tiny', '--engine', engines, '--dtype', 'q8', ...tasks, ...QUICK, '--out', 'out'],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const variants = readdirSync(join(cwd, 'out'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(cwd, 'out', d.name, 'results.json')))
      .map((d) => d.name);
    expect(variants.sort()).toEqual(['tiny-llama.cpp-q8-t2', 'tiny-ort-q8-t2', 'tiny-transformers.js-q8-t2']);
    const ppls: number[] = [];
    for (const [engine, label] of ENGINES) {
      const report = SuiteReport.load(join(cwd, 'out', `tiny-${engine}-q8-t2`, 'results.json'));
      expect(report.results.map((r) => `${r.task}:${r.status}`)).toEqual([
        'throughput:completed',
        'latency:completed',
        'perplexity:completed',
        'kld:completed',
      ]);
      expect(String(report.environment?.engine), engine).toMatch(label);
      expect(report.environment?.threads).toBe(2);
      const metric = (task: string, key: string): number =>
        report.results.find((r) => r.task === task)?.metrics[key] as number;
      ppls.push(metric('perplexity', 'perplexity'));
      // q8 of the same weights against one fp32 reference on ONNX Runtime: close, but not identical.
      expect(metric('kld', 'kld_mean'), engine).toBeGreaterThan(0);
      expect(metric('kld', 'kld_mean'), engine).toBeLessThan(0.05);
      expect(metric('kld', 'top1_agreement'), engine).toBeGreaterThan(0.7);
    }
    // Random weights over 256 byte ids: near-uniform perplexity on every engine.
    for (const ppl of ppls) {
      expect(ppl).toBeGreaterThan(200);
      expect(ppl).toBeLessThan(320);
    }
  });
});

describe('--reference-engine: kld of one engine against another, on the same fp32 weights', () => {
  for (const [engine, reference] of [
    ['llama.cpp', 'ort'],
    ['ort', 'transformers.js'],
  ] as const) {
    it(`${engine} against ${reference}: the same distributions (KL ≈ 0, every argmax agrees)`, {
      timeout: 180_000,
    }, async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'dantinox-engine-'));
      const run = await runCli(
        [
          'bench',
          '--config',
          'tiny',
          '--engine',
          engine,
          '--tasks',
          'kld',
          '--reference-engine',
          reference,
          ...QUICK,
          '--out',
          'out',
        ],
        { cwd },
      );
      expect(run.code, run.stderr).toBe(0);
      const kld = SuiteReport.load(join(cwd, 'out', 'results.json')).results[0];
      expect(kld?.status).toBe('completed');
      expect(String(kld?.meta?.['reference_engine'])).toContain(
        reference === 'ort' ? 'onnxruntime-node' : '@huggingface/transformers',
      );
      expect(kld?.metrics['kld_mean']).toBeLessThan(1e-5);
      expect(kld?.metrics['top1_agreement']).toBe(1);
    });
  }
});

it('--reference-engine llama.cpp with a Hugging Face reference folder is a usage error', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dantinox-engine-'));
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(cwd, 'folder'));
  const run = await runCli(
    [
      'bench',
      '--config',
      'tiny',
      '--tasks',
      'kld',
      '--reference',
      'folder',
      '--reference-engine',
      'llama.cpp',
    ],
    { cwd },
  );
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^error: The llama\.cpp engine cannot run "folder"/);
});

it('--engine llama.cpp with a Hugging Face folder is a usage error naming what works', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dantinox-engine-'));
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(cwd, 'folder'));
  const run = await runCli(['bench', '--model', 'folder', '--engine', 'llama.cpp', '--quiet'], { cwd });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^error: The llama\.cpp engine cannot run "folder": it runs built-in models/);
});
