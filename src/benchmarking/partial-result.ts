/**
 * The row of a task that did not finish (the run's signal fired, or the process ended): built by the task's
 * own `summarize` from the cells it measured before, so those cells reach every output.
 *
 * @packageDocumentation
 */
import { messages } from '../messages.js';
import type { BenchmarkConfig } from './config.js';
import type { BenchmarkResult, BenchmarkTask, CellRecord } from './task.js';

/**
 * The row of `task` rebuilt from `cells` (status `completed`, with `meta.interrupted` saying why and how many
 * cells it rests on), or `undefined` when the task has no `summarize`, no cell completed or summarizing fails.
 */
export function partialResult(
  task: Pick<BenchmarkTask, 'name' | 'summarize'>,
  cells: readonly CellRecord[],
  config: BenchmarkConfig,
  how: 'signal' | 'crash',
): BenchmarkResult | undefined {
  const measured = cells.filter((c) => c.status === 'completed').length;
  if (task.summarize === undefined || measured === 0) return undefined;
  try {
    // The row is completed whatever summarize said: an error it carried would contradict that status.
    const { status: _status, error: _error, ...row } = task.summarize(cells, config);
    return {
      ...row,
      task: task.name,
      status: 'completed',
      meta: { ...row.meta, interrupted: messages.taskInterrupted(how, measured) },
    };
  } catch {
    return undefined;
  }
}
