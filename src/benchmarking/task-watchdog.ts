/**
 * The watchdog of a running task: a task whose `run` neither returns nor records a cell for twice the cell
 * budget (`--max-cell-ms`) is given up as hung, and a stop signal gives it up at once, so that a task that never
 * returns cannot hold the run (or, with no timer left, let Node exit 13 with nothing written).
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** Node's largest timer delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long a task may go without returning or recording a cell: twice the cell budget. */
export const hangAfterMs = (maxCellMs: number): number => Math.min(2 * maxCellMs, MAX_TIMER_MS);

/** What {@link watchTask} returns. */
export interface TaskWatch<T> {
  /** The task's result; rejects when it is hung (`RUNTIME_ERROR`) or the signal fires (its reason). */
  readonly result: Promise<T>;
  /** Tells the watchdog that the task made progress (recorded a cell): the hang timer starts again. */
  touch(): void;
}

/**
 * Watches `run` (a task running): {@link TaskWatch.result} settles with it, or rejects once it has gone
 * {@link hangAfterMs} of `maxCellMs` without returning or a {@link TaskWatch.touch}, or when `signal` fires.
 * The abandoned call is left to itself (JavaScript cannot cancel it); the timer is cleared when the result settles.
 */
export function watchTask<T>(run: Promise<T>, maxCellMs: number, signal?: AbortSignal): TaskWatch<T> {
  const quietMs = hangAfterMs(maxCellMs);
  let timer: NodeJS.Timeout | undefined;
  let giveUp: (reason: unknown) => void = () => undefined;
  const watchdog = new Promise<never>((_, reject) => {
    giveUp = reject;
  });
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => giveUp(new DantinoxError('RUNTIME_ERROR', messages.taskHung(quietMs))), quietMs);
  };
  const onAbort = (): void => giveUp(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  arm();
  const result = Promise.race([run, watchdog]).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  });
  return { result, touch: arm };
}
