import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { messages } from '../../src/messages.js';
import { exportHfModel, initWeights, ModelConfig } from '../../src/models/index.js';
import { ensureBuilt, runCli } from './built-cli.js';

const QUICK = [
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
  '--no-charts',
  '--quiet',
];

beforeAll(() => ensureBuilt(), 180_000);

/** A working folder with a short validation text (`text.txt`): tokenising the default corpus takes seconds. */
function workdir(prefix: string): string {
  const cwd = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(cwd, 'text.txt'), 'the quick brown fox jumps over the lazy dog. '.repeat(20));
  return cwd;
}

describe('dantinox bench --dtype', () => {
  it('runs a q4 built-in model: every row carries the dtype, kld compares it with fp32 of the same seed', async () => {
    const cwd = workdir('dantinox-dtype-');
    const run = await runCli(
      [
        'bench',
        '--config',
        'tiny',
        '--dtype',
        'q4',
        '--tasks',
        'throughput,kld',
        '--data',
        'text.txt',
        ...QUICK,
        '--out',
        'out',
      ],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = SuiteReport.load(join(cwd, 'out', 'results.json'));
    expect(report.modelMeta['dtype']).toBe('q4');
    expect(report.results.map((r) => [r.task, r.status])).toEqual([
      ['throughput', 'completed'],
      ['kld', 'completed'],
    ]);
    const kld = report.results[1];
    expect(kld?.metrics['kld_mean']).toBeGreaterThan(0);
    expect(kld?.metrics['top1_agreement']).toBeGreaterThan(0);
    const csv = SuiteReport.load(join(cwd, 'out', 'results.csv'));
    expect(csv.toDataFrame().array('dtype')).toEqual(['q4', 'q4']);
  });

  it('--model DIR --dtype q8 loads that file; the kld reference defaults to the folder’s fp32 file', async () => {
    const cwd = workdir('dantinox-dtype-hf-');
    const config = ModelConfig.preset('tiny');
    exportHfModel(config, initWeights(config, 3), join(cwd, 'tiny-hf'), { dtypes: ['fp32', 'q8'] });
    const run = await runCli(
      [
        'bench',
        '--model',
        'tiny-hf',
        '--dtype',
        'q8',
        '--tasks',
        'kld',
        '--data',
        'text.txt',
        ...QUICK,
        '--out',
        'out',
      ],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = SuiteReport.load(join(cwd, 'out', 'results.json'));
    expect(report.modelMeta['dtype']).toBe('q8');
    expect(report.results[0]?.metrics['kld_mean']).toBeGreaterThan(0);
  });

  it('bad dtype input: one clear line, exit 2, before any model is built', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-dtype-bad-'));
    const config = ModelConfig.preset('tiny');
    exportHfModel(config, initWeights(config, 3), join(cwd, 'tiny-hf'), { dtypes: ['fp32', 'q4'] });
    const cases: [string[], string][] = [
      // Not a dtype at all: the dtype table's message, with the nearest name.
      [['--config', 'tiny', '--dtype', 'int3'], 'Unknown --dtype "int3". Did you mean "int8"?'],
      // A dtype of the table that the built-in graphs do not run.
      [
        ['--config', 'tiny', '--dtype', 'int8'],
        messages.dtypeNotAvailable('int8', 'the built-in ONNX models', ['fp32', 'fp16', 'q8', 'q4']),
      ],
      [['--config', 'tiny', '--dtype', 'q4', '--block-size', '48'], messages.invalidBlockSize(48)],
      [
        ['--config', 'tiny', '--dtype', 'q4', '--block-size', '64'],
        messages.blockSizeDoesNotDivide(64, 32, [16, 32]),
      ],
      [
        ['--model', 'tiny-hf', '--dtype', 'q8'],
        messages.hfDtypeMissing(join(cwd, 'tiny-hf'), 'q8', 'model_quantized.onnx', ['fp32', 'q4']),
      ],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['bench', ...args, '--quiet', '--out', 'out'], { cwd });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toContain('Building the model');
    }
  });
});
