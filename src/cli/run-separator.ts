/**
 * The `--` of `dantinox compare BASE1 BASE2 -- HEAD1 HEAD2`. Commander drops `--` and parses nothing after it,
 * so before parsing, the first `--` of a `compare` invocation is replaced by {@link RUN_SEPARATOR}: an operand no
 * shell can pass (it holds a NUL), which the command splits its runs on, while options after it still parse.
 *
 * @packageDocumentation
 */

/** What the first `--` of a `compare` invocation becomes before commander parses it. */
export const RUN_SEPARATOR = '\u0000--';

/**
 * `argv` with the first `--` after the `compare` command replaced by {@link RUN_SEPARATOR}; unchanged for other
 * commands (the command is the first argument that is not an option).
 */
export function markRunSeparator(argv: readonly string[]): readonly string[] {
  const command = argv.findIndex((a) => !a.startsWith('-'));
  if (command < 0 || argv[command] !== 'compare') return argv;
  const dashes = argv.indexOf('--', command + 1);
  if (dashes < 0) return argv;
  return [...argv.slice(0, dashes), RUN_SEPARATOR, ...argv.slice(dashes + 1)];
}
