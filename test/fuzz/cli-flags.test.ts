/**
 * Fuzz of the CLI's flag space, in process (runCli with an injected console): generated invocations of bench,
 * flops, plot, report, compare, merge and history (add, list, show, trend) — valid and invalid flags and values, good, empty, binary and
 * torn input files — end with exit 0, 1 or 2, never with a stack trace, an "unexpected error" or an unhandled
 * rejection. The generated `bench` invocations of arbitrary flags end with an invalid `--n-measure 0`, so no model
 * is built; a second, smaller part generates valid but varied `bench` runs of the `tiny` preset that really run
 * (sweep, tasks — perplexity and kld included —, a 2-value matrix axis, charts or not) and checks their results
 * files. Seeded (test/setup.ts), bounded in runs and time (≤ 17.5 s of limits): measured at 12.6 s for the file
 * (vitest's Duration; 10.1 s of tests, 7 real runs in the 6 s of the real part) on the 2-core development machine
 * with load average ≈ 4 (`npx vitest run test/fuzz/cli-flags.test.ts`).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { type CliIo, runCli } from '../../src/cli/index.js';
import { loadRunGroup } from '../../src/runs/load-report.js';

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
      '--max-measure-ms',
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
  await exitCodeHolding(argv);
}

/** Runs `argv`, checks the property and returns the exit code. */
async function exitCodeHolding(argv: readonly string[]): Promise<number> {
  const { code, err } = await run(argv);
  console.log(code, JSON.stringify(argv), err.slice(0, 160).replace(/\n/g, ' | '));
  const why = `dantinox ${JSON.stringify(argv)} → exit ${code}\n${err.slice(0, 2000)}`;
  expect([0, 1, 2], why).toContain(code);
  expect(err, why).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(err, why).not.toContain('unexpected error');
  expect(rejections, why).toEqual([]);
  return code;
}

const TASKS = ['throughput', 'latency', 'perplexity', 'kld'] as const;

/** A nonempty ordered subset of `values`, comma-separated. */
const subset = <T extends string | number>(values: readonly T[]): fc.Arbitrary<string> =>
  fc.subarray([...values], { minLength: 1 }).map((picked) => picked.join(','));

/** A valid `bench` run of `tiny` that really measures: a small sweep, some tasks, sometimes a matrix or charts. */
const realBench: fc.Arbitrary<{ argv: string[]; tasks: string[]; variants: number }> = fc
  .record({
    tasks: fc.subarray([...TASKS], { minLength: 1 }),
    seqLens: subset([8, 16]),
    batchSizes: subset([1, 2]),
    nMeasure: fc.integer({ min: 1, max: 3 }),
    nWarmup: fc.integer({ min: 0, max: 1 }),
    genTokens: fc.integer({ min: 1, max: 3 }),
    evalBatchSize: fc.integer({ min: 1, max: 2 }),
    stride: fc.boolean(),
    axis: fc.constantFrom([], [], ['--dtype', 'q8'], ['--dtype', 'fp32,q8'], ['--threads', '1,2']),
    charts: fc.integer({ min: 0, max: 3 }).map((n) => n === 0), // a quarter of the runs draw charts (slower)
  })
  .map((r) => ({
    argv: [
      'bench',
      '--config',
      'tiny',
      '--tasks',
      r.tasks.join(','),
      '--seq-lens',
      r.seqLens,
      '--batch-sizes',
      r.batchSizes,
      '--n-warmup',
      String(r.nWarmup),
      '--n-measure',
      String(r.nMeasure),
      '--min-measure-ms',
      '0',
      '--min-warmup-ms',
      '0',
      '--gen-tokens',
      String(r.genTokens),
      '--eval-batches',
      '1',
      '--eval-seq-len',
      '16',
      '--eval-batch-size',
      String(r.evalBatchSize),
      ...(r.stride ? ['--eval-stride', '8'] : []),
      '--no-calibrate',
      '--quiet',
      ...r.axis,
      ...(r.charts ? [] : ['--no-charts']),
    ],
    tasks: r.tasks,
    variants: r.axis[1]?.includes(',') === true ? 2 : 1,
  }));

let realRuns = 0;

/** A real run holds the property, and when it exits 0 each results file of each variant loads with every task. */
async function runsAndWrites(bench: { argv: string[]; tasks: string[]; variants: number }): Promise<void> {
  const out = `real-${++realRuns}`;
  const argv = [...bench.argv, '--out', out];
  const code = await exitCodeHolding(argv);
  if (code !== 0) return;
  const runs = loadRunGroup(out, cwd);
  expect(runs, JSON.stringify(argv)).toHaveLength(bench.variants);
  for (const r of runs)
    for (const file of ['results.csv', 'results.json', 'results.jsonl']) {
      const path = join(r.path, '..', file);
      expect(existsSync(path), path).toBe(true);
      expect(
        SuiteReport.load(path).results.map((t) => t.task),
        `${path} of dantinox ${JSON.stringify(argv)}`,
      ).toEqual(bench.tasks);
    }
}

/** Command, invocations, runs, time limit in ms (bench's first runs import the benchmarking modules). */
const CASES: [string, fc.Arbitrary<string[]>, number, number][] = [
  ['bench', invocation('bench', paths(0, 0)).map((a) => [...a, ...NO_RUN]), 300, 2_500],
  ['flops', invocation('flops', paths(0, 0)), 300, 1_500],
  ['plot', invocation('plot', paths(0, 3)), 80, 1_500],
  ['report', invocation('report', paths(0, 3)), 80, 1_500],
  ['compare', invocation('compare', paths(0, 3)), 120, 1_500],
  ['merge', invocation('merge', paths(0, 3)), 100, 1_500],
  [
    'history',
    fc
      .tuple(HISTORY_SUBCOMMANDS, invocation('history', paths(0, 2)))
      .map(([sub, [command, ...rest]]) => [command as string, sub, ...rest]),
    60,
    1_500,
  ],
];

describe('every generated invocation exits 0, 1 or 2 without a stack trace', () => {
  it.each(CASES)('%s', async (_name, args, numRuns, limitMs) => {
    // One invocation first, outside the time limit: it imports the command's modules, which on a loaded machine can
    // take the whole limit (the property then stopped after 0 runs, which fast-check reports as a failure).
    await holds(fc.sample(args, { numRuns: 1, seed: 1 })[0] as string[]);
    await fc.assert(fc.asyncProperty(args, holds), {
      numRuns,
      // Bounded in time (11.5 s for the 7 properties) so CI stays fast; the runs done before the limit still count.
      interruptAfterTimeLimit: limitMs,
      markInterruptAsFailure: false,
    });
  });

  it('bench, real runs of tiny: exit 0, 1 or 2; at 0 every results file loads with one row per task', async () => {
    // A count, not a time limit: on a loaded machine one real run can take the whole limit, and a property stopped
    // after 0 runs fails.
    await fc.assert(fc.asyncProperty(realBench, runsAndWrites), { numRuns: 8 });
    expect(realRuns).toBe(8);
  }, 120_000);

  it('bench: the guard is what stops it (a run without it would build a model)', async () => {
    const { code, err } = await run(['bench', '--config', 'tiny', ...NO_RUN]);
    expect(code).toBe(2);
    expect(err).toMatch(/^error: .*--n-measure/);
  });
});
