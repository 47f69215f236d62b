/**
 * The CLI refuses, before spending anything, what cannot work: a run folder that already holds a run, a model
 * that cannot fit in memory, a binary --bench-config; defaults fit the model they apply to. In process, with an
 * injected console (no model is built by these invocations).
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { countFlops } from '../../src/profiling/index.js';
import { claimRunDir } from '../../src/runs/output-dir.js';
import { RUN_LOCK_FILE } from '../../src/runs/run-lock.js';
import { captureIo } from './capture-io.js';

describe('dantinox refuses before spending', () => {
  it('bench --out on a folder holding a run: exit 2 and one line, unless --force (which clears the old run)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-rel-'));
    mkdirSync(join(cwd, 'run', 'charts'), { recursive: true });
    writeFileSync(join(cwd, 'run', 'results.jsonl'), '{}\n');
    writeFileSync(join(cwd, 'run', 'notes.txt'), 'mine');
    const io = captureIo(cwd);
    expect(await runCli(['bench', '--config', 'tiny', '--out', 'run'], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${messages.outDirHoldsRun('run', ['results.jsonl', 'charts'])}\n`);
    claimRunDir('run', cwd, true);
    expect(readdirSync(join(cwd, 'run'))).toEqual(['notes.txt']);
  });

  it("bench --out on a folder another live process writes: refused even with --force; a dead owner's lock is taken over and released", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-rel-'));
    mkdirSync(join(cwd, 'run'));
    writeFileSync(join(cwd, 'run', 'results.jsonl'), '{}\n');
    const owner = (pid: number): string =>
      JSON.stringify({ pid, host: hostname(), since: '2026-01-31T04:05:09.000Z', token: 'abc' });
    // In process, this test's own pid is a live owner: another writer.
    writeFileSync(join(cwd, 'run', RUN_LOCK_FILE), owner(process.pid));
    const io = captureIo(cwd);
    const quick = ['--config', 'tiny', '--tasks', 'throughput', '--seq-lens', '8', '--batch-sizes', '1'];
    const args = ['bench', ...quick, '--n-warmup', '0', '--n-measure', '1', '--min-warmup-ms', '0'];
    const run = [...args, '--no-charts', '--no-calibrate', '--out', 'run', '--force'];
    expect(await runCli(run, io)).toBe(ExitCode.usage);
    const lock = join(cwd, 'run', RUN_LOCK_FILE);
    expect(io.err.join('')).toBe(
      `error: ${messages.outDirLocked('run', process.pid, hostname(), '2026-01-31T04:05:09.000Z', lock)}\n`,
    );
    expect(readFileSync(join(cwd, 'run', 'results.jsonl'), 'utf8')).toBe('{}\n');
    const dead = spawnSync(process.execPath, ['-e', '']).pid ?? 0;
    writeFileSync(lock, owner(dead)); // its owner was killed (SIGKILL): stale
    const again = captureIo(cwd);
    expect(await runCli(run, again)).toBe(ExitCode.ok);
    expect(existsSync(lock)).toBe(false);
    expect(readFileSync(join(cwd, 'run', 'results.jsonl'), 'utf8')).not.toBe('{}\n');
  });

  it('export --out onto an existing file: exit 2, one line, the file untouched; --force replaces it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-rel-'));
    writeFileSync(join(cwd, 'results.csv'), 'task,mean_ms\nthroughput,1.5\n');
    const io = captureIo(cwd);
    const args = ['export', '--config', 'tiny', '--out', 'results.csv'];
    expect(await runCli(args, io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${messages.outFileExists('results.csv')}\n`);
    expect(readFileSync(join(cwd, 'results.csv'), 'utf8')).toBe('task,mean_ms\nthroughput,1.5\n');
    const forced = captureIo(cwd);
    expect(await runCli([...args, '--force'], forced)).toBe(ExitCode.ok);
    expect(readFileSync(join(cwd, 'results.csv')).subarray(0, 4).toString('latin1')).toBe('GGUF');
    mkdirSync(join(cwd, 'models'));
    const folder = captureIo(cwd);
    expect(await runCli(['export', '--config', 'tiny', '--out', 'models', '--force'], folder)).toBe(
      ExitCode.usage,
    );
    expect(folder.err.join('')).toBe(`error: ${messages.outFileIsFolder('models')}\n`);
  });

  it('export --format hf into a folder holding another model: refused unless --force, which leaves one model', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-rel-'));
    const hf = (io: ReturnType<typeof captureIo>, ...more: string[]): Promise<number> =>
      runCli(['export', '--config', 'tiny', '--format', 'hf', '--out', 'm', ...more], io);
    expect(await hf(captureIo(cwd), '--seed', '1', '--dtype', 'q4')).toBe(ExitCode.ok);
    writeFileSync(join(cwd, 'm', 'notes.txt'), 'mine');
    const before = readFileSync(join(cwd, 'm', 'onnx', 'model.onnx'));
    const io = captureIo(cwd);
    expect(await hf(io, '--seed', '2')).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(
      `error: ${messages.outFolderHoldsModel('m', [
        'config.json',
        'generation_config.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'onnx/model.onnx',
        'onnx/model_q4.onnx',
      ])}\n`,
    );
    expect(readFileSync(join(cwd, 'm', 'onnx', 'model.onnx')).equals(before)).toBe(true);
    // --force with a model the export refuses: the old model stays whole (its files are cleared only to write).
    writeFileSync(
      join(cwd, 'diffusion.yaml'),
      'dim: 32\nn_heads: 4\nnum_blocks: 2\nvocab_size: 256\nparadigm: diffusion\n',
    );
    const refused = captureIo(cwd);
    const args = ['export', '--config', 'diffusion.yaml', '--format', 'hf', '--out', 'm', '--force'];
    expect(await runCli(args, refused)).not.toBe(ExitCode.ok);
    expect(refused.err.join('')).toMatch(/not autoregressive/);
    expect(readdirSync(join(cwd, 'm', 'onnx')).sort()).toEqual(['model.onnx', 'model_q4.onnx']);
    expect(readFileSync(join(cwd, 'm', 'onnx', 'model.onnx')).equals(before)).toBe(true);
    expect(await hf(captureIo(cwd), '--seed', '2', '--force')).toBe(ExitCode.ok);
    // The q4 file of the seed-1 model is gone: the folder holds the seed-2 model alone.
    expect(readdirSync(join(cwd, 'm', 'onnx'))).toEqual(['model.onnx']);
    expect(readFileSync(join(cwd, 'm', 'onnx', 'model.onnx')).equals(before)).toBe(false);
    expect(existsSync(join(cwd, 'm', 'notes.txt'))).toBe(true);
  });

  it('a model that cannot fit in memory is refused with the estimate before anything is allocated', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-rel-'));
    writeFileSync(
      join(cwd, 'huge.yaml'),
      'dim: 8192\nn_heads: 64\nnum_blocks: 100000000\nvocab_size: 50257\n',
    );
    const io = captureIo(cwd);
    const started = Date.now();
    expect(await runCli(['bench', '--config', 'huge.yaml', '--out', 'o'], io)).toBe(ExitCode.usage);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(io.err.join('')).toMatch(
      /^error: Building this model \(dim 8192, 100000000 blocks, vocabulary 50257\) needs about [\d.e+]+ GiB of memory, more than the [\d.]+ GiB available: use a smaller shape, or pass --force/,
    );
    expect(readdirSync(cwd)).toEqual(['huge.yaml']);
  });

  it('a binary --bench-config is refused with one short line (no raw bytes on the terminal)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-rel-'));
    writeFileSync(
      join(cwd, 'bench.yaml'),
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x9b, 0x1b]),
    );
    const io = captureIo(cwd);
    expect(await runCli(['bench', '--bench-config', 'bench.yaml'], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(
      `error: ${messages.binaryTextFile(join(cwd, 'bench.yaml'), 'benchmark config', 6)}\n`,
    );
  });

  it('an empty --bench-config (or one holding only {}) is refused, not run as the defaults', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-rel-'));
    writeFileSync(join(cwd, 'empty.yaml'), '\n# nothing yet\n');
    writeFileSync(join(cwd, 'braces.json'), '{}');
    for (const file of ['empty.yaml', 'braces.json']) {
      const io = captureIo(cwd);
      expect(await runCli(['bench', '--bench-config', file, '--out', 'out'], io)).toBe(ExitCode.usage);
      expect(io.err.join('')).toBe(`error: ${messages.benchConfigEmpty(join(cwd, file))}\n`);
    }
    expect(existsSync(join(cwd, 'out'))).toBe(false);
  });

  it('huge flag values are quoted as a short excerpt', async () => {
    const io = captureIo(process.cwd());
    expect(await runCli(['bench', '--seq-lens', `1,${'9'.repeat(100_000)}x`], io)).toBe(ExitCode.usage);
    expect(io.err.join('').length).toBeLessThan(600);
  });

  it('flops --config tiny: the default --seq-len fits tiny (its context is 128)', async () => {
    const io = captureIo(process.cwd());
    expect(await runCli(['flops', '--config', 'tiny', '--json'], io)).toBe(ExitCode.ok);
    const json = JSON.parse(io.out.join('')) as { flops: { total: number } };
    expect(json.flops.total).toBe(
      countFlops(ModelConfig.preset('tiny'), { seqLen: 128, batchSize: 4 }).total,
    );
  });
});
