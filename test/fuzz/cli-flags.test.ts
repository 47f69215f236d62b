/**
 * Fuzz of the CLI's flag space, in process (runCli with an injected console): generated invocations of bench,
 * flops, plot, report, compare, merge and history (add, list, show, trend) — valid and invalid flags and values, good, empty, binary and
 * torn input files — end with exit 0, 1 or 2, never with a stack trace, an "unexpected error" or an unhandled
 * rejection. `bench` invocations always end with an invalid `--n-measure 0`, so no model is ever built. Seeded
 * (test/setup.ts), bounded in runs and time.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../../src/cli/index.js';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

/** A temp folder of inputs: good, empty, binary and torn results files, a run folder and a config file. */
function workspace(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'dx-fuzz-cli-'));
  copyFileSync(join(FIXTURES, 'bench-single.csv'), join(cwd, 'good.csv'));
  copyFileSync(join(FIXTURES, 'bench-runs.csv'), join(cwd, 'runs.csv'));
  const good = readFileSync(join(FIXTURES, 'bench-single.csv'), 'utf8');
  writeFileSync(join(cwd, 'torn.csv'), good.slice(0, Math.floor(good.length / 2)));
  writeFileSync(join(cwd, 'empty.csv'), '');
  writeFileSync(join(cwd, 'empty.jsonl'), '\n\n');
  writeFileSync(join(cwd, 'bin.json'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0xff, 0xfe, 0x01]));
  writeFileSync(join(cwd, 'bad.json'), '{"format": "dantinox-report", "results": [1, null, "x"]}');
  writeFileSync(join(cwd, 'rows.json'), '[{"task": "throughput", "peak_tps": "12"}, 3]');
  writeFileSync(join(cwd, 'half.jsonl'), '{"type":"run","runId":"r"}\n{"type":"cell","task":"thr');
  writeFileSync(
    join(cwd, 'nulls.jsonl'),
    '{"type":"run","runId":"r","tasks":5}\nnull\n{"type":"task","result":null}\n',
  );
  writeFileSync(join(cwd, 'model.yaml'), 'dim: 64\nn_heads: 4\nnum_blocks: 2\nvocab_size: 256\n');
  writeFileSync(join(cwd, 'bad.yaml'), 'dim: [1, 2\n');
  mkdirSync(join(cwd, 'run'));
  copyFileSync(join(FIXTURES, 'bench-single.csv'), join(cwd, 'run', 'results.csv'));
  mkdirSync(join(cwd, 'emptydir'));
  return cwd;
}

const PATHS = [
  'good.csv',
  'runs.csv',
  'torn.csv',
  'empty.csv',
  'empty.jsonl',
  'bin.json',
  'bad.json',
  'rows.json',
  'half.jsonl',
  'nulls.jsonl',
  'run',
  'emptydir',
  'missing.csv',
  'model.yaml',
  'bad.yaml',
];

/** Values a flag may get: well-formed ones, edge numbers and lists, paths, and arbitrary short strings. */
const value = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '0',
      '1',
      '2',
      '-1',
      '3.5',
      '1e400',
      '9007199254740993',
      '4294967296',
      'NaN',
      '0x10',
      '',
      ' ',
      ',',
      '1,2,2',
      '16,32',
      '1,,2',
      'tiny',
      'small',
      'gpt2-small',
      'tiny,small',
      'fp32',
      'q4',
      'q8,fp16',
      'svg',
      'png,html,json',
      'text',
      'markdown',
      'json',
      'exact',
      'seed',
      'active',
      'dense',
      '5%',
      '-5%',
      'throughput',
      'latency,perplexity',
      'roofline,trend',
      '0/2',
      '3/2',
      'ar',
      'diffusion',
      'cpu',
      'nope',
      '\u0000',
      '\u001b[31m',
      'é',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...PATHS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 100_000 }).map(String) },
);

/** The flags of each command (values are drawn from {@link value}); `true` marks a boolean flag. */
const FLAGS: Record<string, Record<string, boolean>> = {
  bench: Object.fromEntries(
    [
      '--config',
      '--model',
      '--engine',
      '--dtype',
      '--threads',
      '--paradigm',
      '--ep',
      '--tasks',
      '--data',
      '--head-dtype',
      '--block-size',
      '--reference',
      '--bench-config',
      '--seq-lens',
      '--batch-sizes',
      '--n-warmup',
      '--min-warmup-ms',
      '--min-measure-ms',
      '--eval-batches',
      '--eval-seq-len',
      '--eval-batch-size',
      '--eval-stride',
      '--gen-tokens',
      '--diffusion-steps',
      '--max-cell-ms',
      '--seed',
      '--out',
      '--shard',
      '--shards',
      '--calibration-ms',
    ]
      .map((f) => [f, false] as [string, boolean])
      .concat(['--resume', '--no-charts', '--no-calibrate', '--force', '--quiet'].map((f) => [f, true])),
  ),
  flops: {
    '--config': false,
    '--seq-len': false,
    '--batch-size': false,
    '--past-length': false,
    '--formula': false,
    '--moe': false,
    '--dtype': false,
    '--head-dtype': false,
    '--json': true,
  },
  plot: { '--charts': false, '--out': false, '--format': false },
  report: { '--out': false, '--title': false, '--charts': false },
  compare: {
    '--threshold': false,
    '--noise-floor': false,
    '--format': false,
    '--seed': false,
    '--out': false,
    '--fail-on-regression': true,
    '--allow-different': true,
  },
  merge: { '--out': false, '--allow-partial': true, '--no-charts': true },
  history: {
    '--history': false,
    '--task': false,
    '--cell': false,
    '--model': false,
    '--machine': false,
    '--x': false,
    '--out': false,
    '--json': true,
  },
};

/** `history` subcommands: its positionals come after the subcommand. */
const HISTORY_SUBCOMMANDS = fc.constantFrom('add', 'list', 'show', 'trend', 'nope');

/** Flags no command has, the end of options, and (rarely: they end the parse) --help and --version. */
const STRAY = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('--nope', '-z', '--', '-') },
  { weight: 1, arbitrary: fc.constantFrom('--help', '--version') },
);

function invocation(command: string, positionals: fc.Arbitrary<string[]>): fc.Arbitrary<string[]> {
  const flags = FLAGS[command] ?? {};
  const names = Object.keys(flags);
  const flag: fc.Arbitrary<string[]> =
    names.length === 0
      ? STRAY.map((s) => [s])
      : fc
          .oneof(
            { weight: 12, arbitrary: fc.tuple(fc.constantFrom(...names), value) },
            { weight: 1, arbitrary: STRAY.map((s) => [s] as [string]) },
          )
          .map((parts) => {
            const [name, v] = parts;
            return flags[name] === true || v === undefined ? [name] : [name, v];
          });
  return fc
    .tuple(positionals, fc.array(flag, { maxLength: 4 }))
    .map(([pos, fl]) => [command, ...pos, ...fl.flat()]);
}

const paths = (min: number, max: number): fc.Arbitrary<string[]> =>
  fc.array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PATHS) }, fc.string({ maxLength: 6 })), {
    minLength: min,
    maxLength: max,
  });

/** Guard that keeps `bench` from building anything: commander refuses it while parsing, after the rest. */
const NO_RUN = ['--n-measure', '0'];

let cwd: string;
const rejections: unknown[] = [];
const onRejection = (reason: unknown): void => {
  rejections.push(reason);
};
beforeAll(() => {
  cwd = workspace();
  process.on('unhandledRejection', onRejection);
});
afterAll(() => {
  process.off('unhandledRejection', onRejection);
});

async function run(argv: readonly string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: () => undefined },
    stderr: { write: (s: string) => err.push(s) },
    cwd,
    now: () => new Date(2026, 0, 31, 4, 5, 9),
  };
  const code = await runCli([...argv], io);
  return { code, err: err.join('') };
}

/** The property every invocation must hold. */
async function holds(argv: readonly string[]): Promise<void> {
  const { code, err } = await run(argv);
  console.log(code, JSON.stringify(argv), err.slice(0, 160).replace(/\n/g, ' | '));
  const why = `dantinox ${JSON.stringify(argv)} → exit ${code}\n${err.slice(0, 2000)}`;
  expect([0, 1, 2], why).toContain(code);
  expect(err, why).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(err, why).not.toContain('unexpected error');
  expect(rejections, why).toEqual([]);
}

const CASES: [string, fc.Arbitrary<string[]>, number][] = [
  ['bench', invocation('bench', paths(0, 0)).map((a) => [...a, ...NO_RUN]), 300],
  ['flops', invocation('flops', paths(0, 0)), 300],
  ['plot', invocation('plot', paths(0, 3)), 80],
  ['report', invocation('report', paths(0, 3)), 80],
  ['compare', invocation('compare', paths(0, 3)), 120],
  ['merge', invocation('merge', paths(0, 3)), 100],
  [
    'history',
    fc
      .tuple(HISTORY_SUBCOMMANDS, invocation('history', paths(0, 2)))
      .map(([sub, [command, ...rest]]) => [command as string, sub, ...rest]),
    60,
  ],
];

describe('every generated invocation exits 0, 1 or 2 without a stack trace', () => {
  it.each(CASES)('%s', async (_name, args, numRuns) => {
    await fc.assert(fc.asyncProperty(args, holds), {
      numRuns,
      // Bounded in time (7 properties × 3 s < 30 s for the file) so CI stays fast; the runs done before the limit
      // still count.
      interruptAfterTimeLimit: 3_000,
      markInterruptAsFailure: false,
    });
  });

  it('bench: the guard is what stops it (a run without it would build a model)', async () => {
    const { code, err } = await run(['bench', '--config', 'tiny', ...NO_RUN]);
    expect(code).toBe(2);
    expect(err).toMatch(/^error: .*--n-measure/);
  });
});
