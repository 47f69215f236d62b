/**
 * `--tasks`: the built-in benchmark tasks by name.
 *
 * @packageDocumentation
 */
import {
  type BenchmarkTask,
  LatencyTask,
  type PerplexityData,
  PerplexityTask,
  ThroughputTask,
} from '../benchmarking/index.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** What a task factory receives from the command line. */
export interface TaskFactoryInput {
  /** `--data`: validation text for perplexity (a file path), or undefined for the built-in text. */
  readonly data?: PerplexityData;
}

/** The built-in tasks, by the name `--tasks` takes (the seed's task names). */
export const builtinTasks = {
  throughput: () => new ThroughputTask(),
  latency: () => new LatencyTask(),
  perplexity: (input: TaskFactoryInput) =>
    new PerplexityTask(input.data === undefined ? {} : { dataSource: input.data }),
} satisfies Record<string, (input: TaskFactoryInput) => BenchmarkTask>;

/** Name of a built-in task. */
export type BuiltinTaskName = keyof typeof builtinTasks;

/** The default `--tasks`: the seed's `BenchmarkSuite.default()`. */
export const DEFAULT_TASKS: readonly BuiltinTaskName[] = ['throughput', 'latency', 'perplexity'];

/**
 * Creates the tasks named in `names`, in order.
 *
 * @throws {@link DantinoxError} `UNKNOWN_PLUGIN` for a name that is not a built-in task (with a did-you-mean),
 * `INVALID_OPTION` for an empty list or a name given twice.
 */
export function createTasks(names: readonly string[], input: TaskFactoryInput): BenchmarkTask[] {
  const available = Object.keys(builtinTasks);
  const badList = (): DantinoxError =>
    new DantinoxError('INVALID_OPTION', messages.badTaskList(names.join(','), available));
  if (names.length === 0) throw badList();
  const seen = new Set<string>();
  return names.map((name) => {
    if (!Object.hasOwn(builtinTasks, name)) {
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.unknownTask(name, available));
    }
    if (seen.has(name)) throw badList();
    seen.add(name);
    return builtinTasks[name as BuiltinTaskName](input);
  });
}
