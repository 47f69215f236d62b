/** `dantinox bench --engine`: the same built-in model on llama.cpp and transformers.js, threads recorded. */
import { mkdtempSync } from 'node:fs';
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

describe.each([
  ['llama.cpp', /^node-llama-cpp 3\.21\.1 \(llama\.cpp, cpu\)$/],
  ['transformers.js', /^@huggingface\/transformers 4\.3\.2/],
])('--engine %s', (engine, label) => {
  it('runs throughput, latency and perplexity on the tiny preset and records the engine and threads', {
    timeout: 240_000,
  }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-engine-'));
    const run = await runCli(['bench', '--config', 'tiny', '--engine', engine, ...QUICK, '--out', 'out'], {
      cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    const report = SuiteReport.load(join(cwd, 'out', 'results.json'));
    expect(report.results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(String(report.environment?.engine)).toMatch(label);
    expect(report.environment?.threads).toBe(2);
    const ppl = report.results.find((r) => r.task === 'perplexity')?.metrics['perplexity'] as number;
    expect(ppl).toBeGreaterThan(200); // random weights over 256 byte ids: near-uniform
    expect(ppl).toBeLessThan(320);
  });
});

it('--engine llama.cpp with a Hugging Face folder is a usage error naming what works', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dantinox-engine-'));
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(cwd, 'folder'));
  const run = await runCli(['bench', '--model', 'folder', '--engine', 'llama.cpp', '--quiet'], { cwd });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^error: The llama\.cpp engine cannot run "folder": it runs built-in models/);
});
