/**
 * The whole CLI as a function: parse `argv`, run the command, return the exit code. `main.ts` is a two-line
 * shell around it; tests and embedders call it with their own {@link CliIo}.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-code.js';
import { exitCodeFor, printError } from './print-error.js';
import { markRunSeparator } from './run-separator.js';

/** Width `--help` wraps at, fixed so help output is the same on every terminal (and golden-testable). */
const HELP_WIDTH = 100;

function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return pkg !== null && typeof pkg === 'object' && 'version' in pkg ? String(pkg.version) : 'unknown';
}

const EXAMPLES = `
Examples:
  $ dantinox bench                         # default suite on the built-in trained "brown" model
  $ dantinox bench --config tiny --tasks throughput --seq-lens 32,64
  $ dantinox flops --config gpt2-small --seq-len 1024 --batch-size 1
  $ dantinox export --config small --dtype q8 --out small-q8.gguf
  $ dantinox plot results/run-a/results.csv results/run-b/results.csv --out plots
  $ dantinox report results/run-a results/run-b --out comparison
  $ dantinox bench --config tiny,small --threads 1,2 --out results/study     # a matrix: 4 variants
  $ dantinox merge results/study --out results/study-merged                   # combine its shard folders
  $ dantinox serve --config small --port 8080                                 # an OpenAI-compatible server
  $ dantinox tokenizer train --vocab-size 4096 --out tok                      # a BPE tokenizer.json
  $ dantinox baseline --tokenizer tok                                         # its n-gram bits per byte

Exit codes: 0 ok, 1 a task failed (its row records the error), 2 usage or configuration error,
130 stopped by Ctrl-C, 143 stopped by SIGTERM.
`;

/** Longest line of a usage error, in characters. */
const MAX_ERROR_LINE = 300;

/** `text` with every line longer than {@link MAX_ERROR_LINE} cut, saying how long it was. */
function shortLines(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line.length <= MAX_ERROR_LINE
        ? line
        : `${line.slice(0, MAX_ERROR_LINE)}… (${line.length} characters in all)`,
    )
    .join('\n');
}

/** Registers one command on the program. */
type RegisterCommand = (program: Command, ctx: CommandContext) => Command;

/**
 * The commands, loaded on demand: an invocation imports only the command it runs (a usage error in `flops`
 * never loads ONNX Runtime or vega), while the program's help loads them all.
 */
const COMMANDS: Readonly<Record<string, () => Promise<RegisterCommand>>> = {
  baseline: async () => (await import('./commands/baseline.js')).registerBaselineCommand,
  bench: async () => (await import('./commands/bench.js')).registerBenchCommand,
  calibrate: async () => (await import('./commands/calibrate.js')).registerCalibrateCommand,
  compare: async () => (await import('./commands/compare.js')).registerCompareCommand,
  export: async () => (await import('./commands/export.js')).registerExportCommand,
  flops: async () => (await import('./commands/flops.js')).registerFlopsCommand,
  history: async () => (await import('./commands/history.js')).registerHistoryCommand,
  load: async () => (await import('./commands/load.js')).registerLoadCommand,
  merge: async () => (await import('./commands/merge.js')).registerMergeCommand,
  plot: async () => (await import('./commands/plot.js')).registerPlotCommand,
  report: async () => (await import('./commands/report.js')).registerReportCommand,
  serve: async () => (await import('./commands/serve.js')).registerServeCommand,
  tokenizer: async () => (await import('./commands/tokenizer.js')).registerTokenizerCommand,
  train: async () => (await import('./commands/train.js')).registerTrainCommand,
};

/**
 * Builds the `dantinox` program, writing through `ctx.io`: with `only`, just that command (plus the program's
 * options); otherwise every command.
 */
export async function createProgram(ctx: CommandContext, only?: string): Promise<Command> {
  const program = new Command('dantinox')
    .description(
      'Profile and benchmark transformer language models on Node.js: analytical FLOPs, latency and throughput, perplexity, charts and HTML reports, on real models run by ONNX Runtime.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      // Commander quotes the offending argument whole: keep each line short, whatever was typed.
      outputError: (s, write) => write(shortLines(s)),
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showHelpAfterError('(run the command with --help for usage and examples)')
    .exitOverride()
    .addHelpText('after', EXAMPLES);
  program.addHelpCommand('help [command]', 'show help for a command');
  const versionOnly = only === '--version' || only === '-V';
  const names =
    only !== undefined && Object.hasOwn(COMMANDS, only) ? [only] : versionOnly ? [] : Object.keys(COMMANDS);
  const registers = await Promise.all(
    names.map((name) => (COMMANDS[name] as () => Promise<RegisterCommand>)()),
  );
  for (const register of registers) register(program, ctx);
  return program;
}

/**
 * Runs the CLI on `argv` (the arguments after the program name) and resolves to the exit code: 0 ok, 1 a task
 * failed, 2 usage or configuration error. Never throws and never calls `process.exit`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const ctx: CommandContext = { io, argv, exitCode: ExitCode.ok };
  const verbose = argv.includes('--verbose');
  try {
    const program = await createProgram(ctx, argv[0]);
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return ExitCode.usage;
    }
    await program.parseAsync([...markRunSeparator(argv)], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    printError(error, io.stderr, verbose);
    return exitCodeFor(error);
  }
}
