/**
 * The `dantinox` command line as a library: {@link runCli} runs it on an argument list with an injected
 * console and resolves to the exit code (`main.ts` is the executable around it).
 *
 * @example
 * ```ts
 * import { runCli } from './cli/index.js';
 * const out: string[] = [];
 * const code = await runCli(['flops', '--config', 'tiny', '--json'], {
 *   stdout: { write: (s) => out.push(s) }, stderr: process.stderr, cwd: process.cwd(), now: () => new Date(),
 * });
 * ```
 *
 * @packageDocumentation
 */
export { type CliIo, type CliWriter, processIo } from './cli-io.js';
export { ExitCode } from './exit-code.js';
export { createProgram, runCli } from './run-cli.js';
