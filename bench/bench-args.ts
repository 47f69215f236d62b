/** Numeric `--name value` arguments of the benchmark scripts. */

/** The number after `--name` in `args`, or `fallback` when the flag is absent. */
export function numberArg(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}
