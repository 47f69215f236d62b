/**
 * The thread counts a model may be opened with: a positive integer of at most {@link MAX_THREADS_PER_CORE} threads
 * per CPU this process may use. Above that every thread waits for a core most of the time, so the timings measure
 * the scheduler rather than the model; and a count in the thousands makes the engine create that many threads before
 * the first token (100,000 threads stalled a 2-core machine for minutes and took 17 GB). Up to 4 per core stays
 * allowed so that oversubscription itself can be measured.
 *
 * @packageDocumentation
 */
import { availableParallelism } from 'node:os';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';

/** Threads allowed per CPU this process may use (`os.availableParallelism()`). */
export const MAX_THREADS_PER_CORE = 4;

/** The most threads a model may use on this machine: {@link MAX_THREADS_PER_CORE} × `cores`. */
export function maxThreads(cores: number = availableParallelism()): number {
  return MAX_THREADS_PER_CORE * cores;
}

/**
 * `threads` when it is a positive integer of at most {@link maxThreads}; every available core when omitted.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for anything else.
 */
export function checkThreads(threads: number | undefined, cores: number = availableParallelism()): number {
  const n = threads ?? cores;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new DantinoxError('INVALID_OPTION', messages.invalidThreads(n));
  if (n > maxThreads(cores))
    throw new DantinoxError('INVALID_OPTION', messages.threadsAboveBound(n, maxThreads(cores), cores));
  return n;
}
