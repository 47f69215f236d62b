/**
 * `--tasks`: the names of the built-in benchmark tasks, checked without loading them.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** Names of the built-in tasks (the seed's), in the default order. */
export const BUILTIN_TASK_NAMES = ['throughput', 'latency', 'perplexity'] as const;

/** Name of a built-in task. */
export type BuiltinTaskName = (typeof BUILTIN_TASK_NAMES)[number];

/** The default `--tasks`: the seed's `BenchmarkSuite.default()`. */
export const DEFAULT_TASKS: readonly BuiltinTaskName[] = BUILTIN_TASK_NAMES;

/**
 * Checks a `--tasks` list: every name a built-in task, each once, at least one.
 *
 * @throws {@link DantinoxError} `UNKNOWN_PLUGIN` for an unknown name (with a did-you-mean), `INVALID_OPTION` for
 * an empty list or a name given twice.
 */
export function checkTaskNames(names: readonly string[]): BuiltinTaskName[] {
  const available: readonly string[] = BUILTIN_TASK_NAMES;
  if (names.length === 0 || new Set(names).size !== names.length) {
    throw new DantinoxError('INVALID_OPTION', messages.badTaskList(names.join(','), available));
  }
  for (const name of names) {
    if (!available.includes(name))
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.unknownTask(name, available));
  }
  return names as BuiltinTaskName[];
}
