/**
 * Library options declared as CLI options, exhaustively: a {@link CliOptions} map must name every field of the
 * library's options type, either with its CLI flag or with an explicit `null` ("not on the command line"), so a
 * new library option without a CLI decision is a compile error (vitest's `CLIOptions<Config>` idea).
 *
 * @packageDocumentation
 */
import { type Command, Option } from 'commander';

/** How one library option appears on the command line. */
export interface CliOptionSpec<T> {
  /** Commander flags; the long flag's camelCase form must equal the option's key, e.g. `--seq-len <n>` for `seqLen`. */
  readonly flags: string;
  /** One-line help text, with the unit. */
  readonly description: string;
  /** Converts the raw string (ignored when `choices` is set); throw commander's `InvalidArgumentError` to reject it. */
  readonly parse?: (value: string) => T;
  /** The only values allowed (checked by commander, listed in `--help`). */
  readonly choices?: readonly string[];
  /** Value used when the flag is absent (shown in `--help`). */
  readonly default?: T;
}

/** Every field of `Config`, mapped to its CLI option or to `null` when it is deliberately not a CLI option. */
export type CliOptions<Config> = {
  readonly [K in keyof Config]-?: CliOptionSpec<NonNullable<Config[K]>> | null;
};

/**
 * Adds the non-null entries of `specs` to `command`, in declaration order.
 *
 * @throws Error when a flag's attribute name differs from its key (a programming error caught by the tests).
 */
export function addCliOptions<Config>(command: Command, specs: CliOptions<Config>): Command {
  for (const [key, spec] of Object.entries(specs) as [string, CliOptionSpec<unknown> | null][]) {
    if (spec === null) continue;
    const option = new Option(spec.flags, spec.description);
    if (option.attributeName() !== key) {
      throw new Error(`CLI option ${spec.flags} is stored as "${option.attributeName()}", not "${key}"`);
    }
    if (spec.choices !== undefined) option.choices(spec.choices);
    else if (spec.parse !== undefined) {
      const parse = spec.parse;
      option.argParser((value: string) => parse(value));
    }
    if (spec.default !== undefined) option.default(spec.default);
    command.addOption(option);
  }
  return command;
}
