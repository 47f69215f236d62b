/**
 * The built-in benchmark tasks by the name `--tasks` takes.
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
import type { BuiltinTaskName } from './task-names.js';

/** What a task factory receives from the command line. */
export interface TaskFactoryInput {
  /** `--data`: validation text for perplexity (a file path), or undefined for the built-in text. */
  readonly data?: PerplexityData;
}

/** A factory per built-in task name. */
export const builtinTasks = {
  throughput: () => new ThroughputTask(),
  latency: () => new LatencyTask(),
  perplexity: (input: TaskFactoryInput) =>
    new PerplexityTask(input.data === undefined ? {} : { dataSource: input.data }),
} satisfies Record<BuiltinTaskName, (input: TaskFactoryInput) => BenchmarkTask>;

/** Creates the tasks named in `names` (checked with `checkTaskNames`), in order. */
export function createTasks(names: readonly BuiltinTaskName[], input: TaskFactoryInput): BenchmarkTask[] {
  return names.map((name) => builtinTasks[name](input));
}
