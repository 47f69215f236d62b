/**
 * `--tasks` and `--charts`: names checked against the command's registries before any work, so a typo is a
 * usage error with a did-you-mean and a pointer to `--plugin`, not a skipped task or chart.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** Where each kind of plugin is shown by example. */
const EXAMPLES = { task: 'examples/custom-task.ts', chart: 'examples/custom-chart.ts' } as const;

/**
 * Checks that every name is registered.
 *
 * @throws {@link dantinox!DantinoxError} `UNKNOWN_PLUGIN` for the first unknown name, listing the available ones.
 */
export function checkPluginNames(
  kind: 'task' | 'chart',
  names: readonly string[],
  available: readonly string[],
): void {
  for (const name of names) {
    if (!available.includes(name))
      throw new DantinoxError(
        'UNKNOWN_PLUGIN',
        messages.unknownName(kind, name, available, messages.addYourOwn(kind, EXAMPLES[kind])),
      );
  }
}

/** Commander's collector of a repeatable option: `--plugin a --plugin b` → `['a', 'b']`. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}
