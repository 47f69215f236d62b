/**
 * `dantinox train` end to end: the real binary trains `tiny` on the Brown corpus for 50 steps, is stopped by
 * SIGTERM mid-run (exit 143, a checkpoint of the last completed step), resumes to the end, and leaves the same
 * weights as an uninterrupted run, a log and a drawn training curve; bad input gets one `error:` line naming the
 * flag and exit 2, before anything is trained.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli as runInProcess } from '../../src/cli/index.js';
import { gpt2TokenizerFiles } from '../../src/models/hf/hf-tokenizer-json.js';
import { readTrainingLog } from '../../src/training/index.js';
import { BIN, ensureBuilt, runCli } from './built-cli.js';
import { captureIo } from './capture-io.js';

let cwd: string;

beforeAll(() => {
  ensureBuilt();
  cwd = mkdtempSync(join(tmpdir(), 'dantinox-train-cli-'));
}, 180_000);

/** 50 steps of tiny, a log row, a validation and a checkpoint every step: ≈ 50 ms a step. */
const RUN = [
  'train',
  '--config',
  'tiny',
  '--steps',
  '50',
  '--log-every',
  '1',
  '--val-every',
  '1',
  '--checkpoint-every',
  '10',
  '--threads',
  '1',
  '--no-calibrate',
];

function start(args: readonly string[]): {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  child.stdout?.resume();
  return {
    child,
    stderr: () => err,
    exit: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('dantinox train', () => {
  it('trains tiny for 50 steps, stops at SIGTERM with a checkpoint, resumes to the same weights as a straight run', async () => {
    const run = start([...RUN, '--out', 'stopped']);
    await until(() => run.stderr().includes('step  1/50'), 'the first log row');
    run.child.kill('SIGTERM');
    expect(await run.exit, run.stderr()).toBe(143);
    expect(run.stderr()).toMatch(
      /Stopped at step (\d+) of 50: the checkpoint of that step is in stopped\/checkpoint; `dantinox train --resume stopped` continues the run\./,
    );
    const stoppedAt = Number(/Stopped at step (\d+)/.exec(run.stderr())?.[1]);
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThan(50);
    expect(existsSync(join(cwd, 'stopped/model'))).toBe(false);

    const resumed = await runCli(['train', '--resume', 'stopped', '--no-calibrate'], { cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`Resuming stopped at step ${stoppedAt} of 50.`);
    expect(resumed.stdout).toContain('stopped/model/');

    const straight = await runCli([...RUN, '--out', 'straight'], { cwd });
    expect(straight.code, straight.stderr).toBe(0);
    const weights = (dir: string): Buffer => readFileSync(join(cwd, dir, 'model/model.safetensors'));
    expect(weights('stopped').equals(weights('straight'))).toBe(true);

    const log = readTrainingLog(join(cwd, 'stopped/train-log.jsonl'));
    expect(log.map((r) => r.step)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const straightLog = readTrainingLog(join(cwd, 'straight/train-log.jsonl'));
    const noTiming = (rows: typeof log) => rows.map(({ tokens_per_s: _t, mfu: _m, ...rest }) => rest);
    expect(noTiming(log)).toEqual(noTiming(straightLog));
    expect((log[49]?.val_loss as number) < (log[0]?.val_loss as number)).toBe(true);
    expect(log[49]?.val_bits_per_byte).toBeGreaterThan(0);
    expect(readFileSync(join(cwd, 'stopped/charts/training-training_curve.svg'), 'utf8')).toMatch(
      /^<svg[\s\S]*<\/svg>\s*$/,
    );
  }, 180_000);
});

describe('dantinox train refuses bad input in one line naming the flag (exit 2)', () => {
  const refused = async (argv: string[], pattern: RegExp): Promise<void> => {
    const io = captureIo(cwd);
    const code = await runInProcess(['train', '--no-calibrate', ...argv], io);
    const err = io.err.join('');
    expect(code, err).toBe(2);
    const errors = err.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors, err).toHaveLength(1);
    expect(errors[0]).toMatch(pattern);
  };

  it('--steps 0', async () => {
    await refused(['--steps', '0'], /^error: option '--steps <n>' argument '0' is invalid/);
  });

  it('--average-from after the last step, and --average-every 0', async () => {
    await refused(
      ['--steps', '10', '--average-from', '11', '--out', 'r0'],
      /^error: --average-from 11 is after the last step \(--steps 10\): give a step from 1 to 10, or 0 for no averaging/,
    );
    await refused(['--average-every', '0'], /^error: option '--average-every <n>' argument '0' is invalid/);
  });

  it('an empty text, and a text shorter than one batch', async () => {
    writeFileSync(join(cwd, 'empty.txt'), '');
    await refused(
      ['--data', 'empty.txt', '--out', 'r1'],
      /^error: The training text empty.txt is empty: pass --data/,
    );
    writeFileSync(
      join(cwd, 'short.txt'),
      Array.from({ length: 20 }, (_, i) => `paragraph ${i} of a short text`).join('\n\n'),
    );
    await refused(
      ['--data', 'short.txt', '--seq-len', '8', '--batch-size', '64', '--out', 'r2'],
      /^error: The training text has \d+ tokens, fewer than one batch .*--batch-size or --seq-len/,
    );
  });

  it('a tokenizer whose vocabulary does not fit the config', async () => {
    writeFileSync(join(cwd, 'gpt2.json'), JSON.stringify(gpt2TokenizerFiles().tokenizerJson));
    await refused(
      ['--tokenizer', 'gpt2.json', '--out', 'r3'],
      /^error: The tokenizer .* has 50257 ids but the model's vocab_size is 256: pass a --config/,
    );
  });

  it('a config too large for memory', async () => {
    writeFileSync(
      join(cwd, 'huge.yaml'),
      'dim: 8192\nn_heads: 64\nnum_blocks: 96\nvocab_size: 50257\nmax_context: 2048\n',
    );
    await refused(
      ['--config', 'huge.yaml', '--out', 'r4'],
      /^error: Training a model of dim 8192.*needs about .* GiB of memory.*--force/,
    );
  });

  it('a mixture of experts, and --resume with settings', async () => {
    writeFileSync(join(cwd, 'moe.yaml'), 'dim: 32\nn_heads: 4\nnum_blocks: 2\nvocab_size: 256\nffn: moe\n');
    await refused(
      ['--config', 'moe.yaml', '--out', 'r5'],
      /^error: The trainer cannot train a mixture-of-experts FFN.*--config/,
    );
    await refused(['--resume', 'anywhere', '--lr', '0.1'], /^error: .*--resume/);
  });
});
