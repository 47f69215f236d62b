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
import { registerBenchCommand } from './commands/bench.js';
import { registerFlopsCommand } from './commands/flops.js';
import { registerPlotCommand } from './commands/plot.js';
import { registerReportCommand } from './commands/report.js';
import { ExitCode } from './exit-code.js';
import { exitCodeFor, printError } from './print-error.js';

/** Width `--help` wraps at, fixed so help output is the same on every terminal (and golden-testable). */
const HELP_WIDTH = 100;

function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return pkg !== null && typeof pkg === 'object' && 'version' in pkg ? String(pkg.version) : 'unknown';
}

const EXAMPLES = `
Examples:
  $ dantinox bench                         # default suite on the built-in "small" model
  $ dantinox bench --config tiny --tasks throughput --seq-lens 32,64
  $ dantinox flops --config gpt2-small --seq-len 1024 --batch-size 1
  $ dantinox plot results/run-a/results.csv results/run-b/results.csv --out plots
  $ dantinox report results/run-a results/run-b --out comparison

Exit codes: 0 ok, 1 a task failed (its row records the error), 2 usage or configuration error.
`;

/** Builds the `dantinox` program with every command, writing through `ctx.io`. */
export function createProgram(ctx: CommandContext): Command {
  const program = new Command('dantinox')
    .description(
      'Profile and benchmark transformer language models on Node.js: analytical FLOPs, latency and throughput, perplexity, charts and HTML reports, on real models run by ONNX Runtime.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showHelpAfterError('(run the command with --help for usage and examples)')
    .exitOverride()
    .addHelpText('after', EXAMPLES);
  program.addHelpCommand('help [command]', 'show help for a command');
  registerBenchCommand(program, ctx);
  registerFlopsCommand(program, ctx);
  registerPlotCommand(program, ctx);
  registerReportCommand(program, ctx);
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
    const program = createProgram(ctx);
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return ExitCode.usage;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    printError(error, io.stderr, verbose);
    return exitCodeFor(error);
  }
}
