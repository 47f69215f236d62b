/**
 * Numbers and lists that README.md and docs/ quote from the code are checked against the code, so a change of the
 * code that leaves a page behind fails here: the chart registry against the visualization page's table, the task
 * registry against the pages that count or list the tasks, the program's commands against the README's CLI row,
 * the comparison methods against their table, the analytical crossover depths of `small`, and the flags and
 * defaults of the CLI synopsis (docs/cli.md) and of the `serve` flag table (docs/serve.md) against the commands'
 * real options. The quoted error rates of the regression gate are checked by the simulation that measures them
 * (`test/benchmarking/compare/error-rates.test.ts`).
 */
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { METHOD_LABELS } from '../../src/benchmarking/compare/judge-metric.js';
import { builtinTasks } from '../../src/benchmarking/task-registry.js';
import { crossoverDepths } from '../../src/benchmarking/tasks/depth-sweep.js';
import { createProgram, ExitCode, runCli } from '../../src/cli/index.js';
import type { Model } from '../../src/models/model.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { builtinCharts } from '../../src/visualization/chart-registry.js';
import { captureIo } from '../cli/capture-io.js';
import { fencedBlocks, pageText, withoutFences } from './markdown-pages.js';

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

/** The number a page writes as a word ("four") or in digits. */
const countOf = (word: string): number =>
  /^\d+$/.test(word) ? Number(word) : NUMBER_WORDS.indexOf(word.toLowerCase());

/** The first column of every row of the Markdown table that follows `heading` in `page`, code marks removed. */
function tableColumn(page: string, heading: string): string[] {
  const text = withoutFences(pageText(page));
  const start = text.indexOf(heading);
  expect(start, `${page}: no "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  return lines
    .slice(first + 2, end < 0 ? undefined : end)
    .map((row) => (row.split('|')[1] ?? '').trim().replace(/`/g, ''));
}

/** A program with every command, built in process. */
async function program(): Promise<Command> {
  return createProgram({ io: captureIo(process.cwd()), argv: [], exitCode: ExitCode.ok });
}

/** The command at `path` (`['tokenizer', 'train']`) of `root`. */
function commandAt(root: Command, path: readonly string[]): Command {
  let command = root;
  for (const name of path) {
    const next = command.commands.find((c) => c.name() === name);
    expect(next, `no command ${path.join(' ')}`).toBeDefined();
    command = next as Command;
  }
  return command;
}

/** The option of `command` spelled `flag` (`--port`). */
const optionOf = (command: Command, flag: string): Option | undefined =>
  command.options.find((o) => o.long === flag || o.short === flag || o.long === `--no-${flag.slice(2)}`);

describe('lists and counts quoted from the registries', () => {
  it('docs/visualization.md: its table and `compare`, `trend` are the registry, and the prose counts the table', () => {
    const page = 'docs/visualization.md';
    const table = tableColumn(page, '## Built-in charts');
    expect([...table, 'compare', 'trend'].sort()).toEqual(Object.keys(builtinCharts).sort());
    const said =
      /registry with the built-ins \(the (\w+) of the table above, plus `compare` and `trend`/.exec(
        pageText(page),
      );
    expect(said, `${page}: the sentence counting the built-ins`).not.toBeNull();
    expect(countOf(said?.[1] as string)).toBe(table.length);
  });

  it('docs/cli.md counts the built-in tasks, and README lists them', () => {
    const tasks = Object.keys(builtinTasks);
    const said = /`createTaskRegistry\(\)` \(`dantinox\/benchmarking`: the (\w+) built-in tasks/.exec(
      pageText('docs/cli.md'),
    );
    expect(said, 'docs/cli.md: the sentence counting the tasks').not.toBeNull();
    expect(countOf(said?.[1] as string)).toBe(tasks.length);
    const listed = /`BenchmarkSuite` runs tasks \(([^)]*)\)/.exec(pageText('README.md'));
    expect(listed?.[1]?.split(', ')).toEqual(tasks);
  });

  it("README's CLI row lists every command of the program", async () => {
    const row = pageText('README.md')
      .split('\n')
      .find((l) => l.startsWith('| cli |'));
    const listed = [...(row?.split('|')[3] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
    // A command with a single sub-command is listed with it (`tokenizer train`).
    const commands = (await program()).commands.map((c) =>
      c.commands.length === 1 ? `${c.name()} ${c.commands[0]?.name()}` : c.name(),
    );
    expect([...listed].sort()).toEqual(commands.filter((c) => !c.startsWith('help')).sort());
  });

  it("docs/comparing-runs.md's method table names every comparison method", () => {
    const table = tableColumn('docs/comparing-runs.md', '| method | when |');
    expect(table).toEqual(Object.values(METHOD_LABELS));
  });
});

describe('numbers computed by the code', () => {
  it("docs/where-the-time-goes.md quotes small's analytical crossover depths at a 128-token prompt", () => {
    const config = ModelConfig.preset('small');
    // crossoverDepths reads the config and the dtypes of the model's info only.
    const model = { config, info: { dtype: 'fp32' } } as unknown as Model;
    const depths = crossoverDepths(model, 128);
    const fmt = (n: number | undefined): string => (n as number).toLocaleString('en-US');
    const page = pageText('docs/where-the-time-goes.md');
    expect(page).toContain(
      `crossover depths of \`small\` are ${fmt(depths['decode_kv_crossover_depth'])} for decode`,
    );
    expect(page).toContain(`and ${fmt(depths['prefill_attn_crossover_depth'])} for prefill`);
  });
});

describe('the CLI as the docs quote it', () => {
  /** The synopsis block of docs/cli.md, one entry per command (continuation lines joined). */
  const synopsis = (): { path: string[]; text: string }[] => {
    const page = pageText('docs/cli.md');
    const block = fencedBlocks(page).find((b) => b.lines[0]?.startsWith('dantinox bench'));
    expect(block).toBeDefined();
    const out: { path: string[]; text: string }[] = [];
    for (const line of block?.lines ?? []) {
      const head = /^dantinox ((?:tokenizer )?[a-z]+) +(.*)$/.exec(line);
      if (head) out.push({ path: (head[1] as string).split(' '), text: head[2] as string });
      else (out.at(-1) as { text: string }).text += ` ${line.trim()}`;
    }
    return out;
  };

  it('the synopsis of docs/cli.md has every command, and its flags exist', async () => {
    const root = await program();
    const entries = synopsis();
    expect(entries.map((e) => e.path[0]).sort()).toEqual(
      root.commands
        .map((c) => c.name())
        .filter((c) => c !== 'help')
        .sort(),
    );
    for (const { path, text } of entries) {
      const commands = path[0] === 'history' ? commandAt(root, path).commands : [commandAt(root, path)];
      for (const [, flag] of text.matchAll(/(--[a-z][\w-]*)/g)) {
        if (flag === '--') continue;
        const found = commands.some((c) => optionOf(c, flag as string) !== undefined);
        expect(found, `docs/cli.md: dantinox ${path.join(' ')} ${flag}`).toBe(true);
      }
    }
  });

  it('a value shown in the synopsis of docs/cli.md is the default of a flag that has one', async () => {
    const root = await program();
    for (const { path, text } of synopsis()) {
      const commands = path[0] === 'history' ? commandAt(root, path).commands : [commandAt(root, path)];
      for (const [, flag, value] of text.matchAll(/\[(--[a-z][\w-]*) ([\w.%,-]{2,})\]/g)) {
        for (const command of commands) {
          const option = optionOf(command, flag as string);
          if (option?.defaultValue === undefined) continue;
          const shown = option.defaultValueDescription ?? String(option.defaultValue);
          expect(shown.replace(/^"(.*)"$/, '$1'), `docs/cli.md: dantinox ${path.join(' ')} ${flag}`).toBe(
            value,
          );
        }
      }
    }
  });

  it('serve --help says which engines batch continuously, calibrate --help which quantile the probes take', async () => {
    const help = async (command: string): Promise<string> => {
      const io = captureIo(process.cwd());
      expect(await runCli([command, '--help'], io)).toBe(ExitCode.ok);
      return io.out.join('').replace(/\s+/g, ' ');
    };
    // The built-in ONNX Runtime graphs and llama.cpp (opened with rowsPerContext = --max-batch) implement row
    // batching; a Hugging Face folder and transformers.js do not.
    expect(await help('serve')).toContain(
      'A built-in model (--config) on ONNX Runtime or llama.cpp batches continuously',
    );
    // A probe's rate is its work over its 10th-percentile time (calibrate-ort.ts).
    const calibrate = await help('calibrate');
    expect(calibrate).toContain('its rate from the 10th percentile of its run times');
    expect(calibrate).not.toMatch(/; medians after/);
  });

  it("docs/serve.md's flag table gives each flag's default", async () => {
    const serve = commandAt(await program(), ['serve']);
    const text = withoutFences(pageText('docs/serve.md'));
    const rows = [...text.matchAll(/^\| `(--[a-z][\w-]*)[^`]*` \| ([^|]+) \|/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const [, flag, cell] of rows) {
      const option = optionOf(serve, flag as string);
      expect(option, `docs/serve.md: ${flag}`).toBeDefined();
      const literal = /^`([^`]+)`$/.exec((cell as string).trim());
      if (literal === null || option?.defaultValue === undefined) continue;
      expect(String(option.defaultValue), `docs/serve.md: ${flag}`).toBe(literal[1]);
    }
  });
});
