/**
 * Every `dantinox …` command line in the shell blocks of README.md and of the `docs/` pages is run:
 *
 * - A line shown with the `error: …` it prints runs through the built binary in an empty folder and must print
 *   exactly that line and exit 2.
 * - `bench` runs in process up to the moment a model would be built: every check a real run makes first (flags,
 *   presets and model folders, engines, dtypes, memory, tasks, plugins, the matrix, `--history`, `--out` holding
 *   a run) must pass. To stop there, the first component of its output folder is a file, so the last check —
 *   creating `--out` — fails with ENOTDIR, the only error allowed. A `--model <folder>` is a Hugging Face export
 *   of the `tiny` preset.
 * - `flops`, `plot`, `report`, `compare` and `history` run for real, in process, in one scratch folder per page
 *   that links the repository's `test/` and `examples/`; a `results/…` input that does not exist there is a run
 *   folder holding `test/fixtures/bench-single.csv`. They must exit 0 (`compare`: 0 or 1, its verdict).
 * - `merge` (it needs the shard folders of a real matrix run: `test/cli/bench-matrix.test.ts` runs the documented
 *   merge), `export` (it builds the model: `test/cli/export.test.ts`), `calibrate` (20 s of probes), `serve`
 *   (it serves until a signal: `test/cli/serve.test.ts`), `load` (it needs a server: `test/cli/load.test.ts`
 *   runs one against a mock), `tokenizer` and `baseline` (seconds each on the Brown corpus:
 *   `test/cli/tokenizer.test.ts` and `test/cli/baseline.test.ts` run them on small texts) and `train` (it trains:
 *   `test/cli/train.test.ts`) go through their command's real parser — the command, every flag and every flag
 *   value — without running.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProgram, ExitCode, runCli } from '../../src/cli/index.js';
import { exportHfModel, initWeights } from '../../src/models/index.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { ensureBuilt, runCli as runBuiltCli } from '../cli/built-cli.js';
import { captureIo } from '../cli/capture-io.js';
import { type CliExample, cliExamples, markdownPages, ROOT } from './markdown-pages.js';

const examples = markdownPages().flatMap((page) => cliExamples(page));
const FIXTURE_RUN = join(ROOT, 'test/fixtures/bench-single.csv');

/** The value after `flag` in `argv`, if any. */
const flagValue = (argv: readonly string[], flag: string): string | undefined => {
  const i = argv.indexOf(flag);
  return i < 0 ? undefined : argv[i + 1];
};

/** Where an example is, for failure messages. */
const where = (e: CliExample): string => `${e.page}:${e.line}: dantinox ${e.argv.join(' ')}`;

describe('CLI examples of README.md and docs/', () => {
  it('are found on the pages, and none is a synopsis (those belong in ```text blocks)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(20);
    expect(examples.filter((e) => e.page === 'README.md').length).toBeGreaterThanOrEqual(8);
    expect(examples.filter((e) => /[<>[\]…|"']/.test(e.argv.join(' '))).map(where)).toEqual([]);
  });
});

describe('error examples, run for real', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('each prints the error line shown under it and exits 2', async () => {
    const withError = examples.filter((e) => e.error !== undefined);
    expect(withError.length).toBeGreaterThanOrEqual(4);
    const cwd = mkdtempSync(join(tmpdir(), 'dx-docs-errors-')); // no valid.txt here
    for (const e of withError) {
      const run = await runBuiltCli(e.argv, { cwd });
      expect(run.stderr.trim(), where(e)).toBe(e.error);
      expect(run.code, where(e)).toBe(2);
    }
  }, 180_000);
});

describe('bench examples: every check before a model is built passes', () => {
  const hfTiny = mkdtempSync(join(tmpdir(), 'dx-docs-hf-'));
  beforeAll(() => {
    const tiny = ModelConfig.preset('tiny');
    exportHfModel(tiny, initWeights(tiny, 0), hfTiny);
  }, 120_000);

  const bench = examples.filter((e) => e.argv[0] === 'bench' && e.error === undefined);

  it('there are some', () => {
    expect(bench.length).toBeGreaterThanOrEqual(10);
  });

  it.each(bench.map((e) => [where(e), e] as const))('%s', async (_name, e) => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-docs-bench-'));
    for (const flag of ['--model', '--reference']) {
      for (const folder of flagValue(e.argv, flag)?.split(',') ?? []) {
        mkdirSync(dirname(join(cwd, folder)), { recursive: true });
        cpSync(hfTiny, join(cwd, folder), { recursive: true });
      }
    }
    const out = flagValue(e.argv, '--out') ?? flagValue(e.argv, '-o') ?? 'results/<timestamp>';
    const first = out.split('/')[0] as string;
    expect(out.split('/').length, `${where(e)}: --out needs a folder inside a folder`).toBeGreaterThan(1);
    writeFileSync(join(cwd, first), 'a file where the output folder goes, so the run stops before building');
    const io = captureIo(cwd);
    const code = await runCli(e.argv, io);
    expect(io.err.join(''), where(e)).toMatch(
      /^error: Cannot write to the output directory "[^"]+" \(ENOTDIR\)/,
    );
    expect(code, where(e)).toBe(2);
  });
});

describe('flops, plot, report, compare and history examples, run for real', () => {
  const real = examples.filter(
    (e) => ['flops', 'plot', 'report', 'compare', 'history'].includes(e.argv[0] as string) && !e.error,
  );
  const workspaces = new Map<string, string>();
  /** The page's scratch folder, with the repository's test/ and examples/ linked in. */
  const workspace = (page: string): string => {
    let cwd = workspaces.get(page);
    if (cwd === undefined) {
      cwd = mkdtempSync(join(tmpdir(), 'dx-docs-run-'));
      for (const dir of ['test', 'examples']) symlinkSync(join(ROOT, dir), join(cwd, dir));
      workspaces.set(page, cwd);
    }
    return cwd;
  };

  it('there are some', () => {
    expect(real.length).toBeGreaterThanOrEqual(4);
  });

  // In page order: a history example may read what an earlier one of its page wrote.
  it.each(real.map((e) => [where(e), e] as const))(
    '%s',
    async (_name, e) => {
      const cwd = workspace(e.page);
      e.argv.forEach((arg, i) => {
        const isOutput = ['--out', '-o', '--history'].includes(e.argv[i - 1] as string);
        if (arg.startsWith('results/') && !isOutput && !existsSync(join(cwd, arg))) {
          mkdirSync(join(cwd, arg), { recursive: true });
          cpSync(FIXTURE_RUN, join(cwd, arg, 'results.csv'));
        }
      });
      const io = captureIo(cwd);
      const code = await runCli(e.argv, io);
      expect(e.argv[0] === 'compare' ? [0, 1] : [0], `${where(e)}\n${io.err.join('')}`).toContain(code);
    },
    120_000,
  );
});

describe('merge, export, calibrate, serve, load, tokenizer, baseline and train examples: parsed by their command', () => {
  const parsed = examples.filter((e) =>
    ['merge', 'export', 'calibrate', 'serve', 'load', 'tokenizer', 'baseline', 'train'].includes(
      e.argv[0] as string,
    ),
  );

  /** `command` and its sub-commands with actions that do nothing, so parsing is all that happens. */
  const disarm = (command: Command): void => {
    command.action(() => undefined);
    for (const sub of command.commands) disarm(sub);
  };

  it.each(parsed.map((e) => [where(e), e] as const))('%s', async (_name, e) => {
    const io = captureIo(mkdtempSync(join(tmpdir(), 'dx-docs-parse-')));
    const program = await createProgram({ io, argv: e.argv, exitCode: ExitCode.ok }, e.argv[0]);
    for (const command of program.commands) disarm(command);
    await expect(program.parseAsync([...e.argv], { from: 'user' })).resolves.toBeDefined();
    expect(io.err.join(''), where(e)).toBe('');
  });
});
