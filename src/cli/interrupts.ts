/**
 * Ctrl-C and termination of a benchmark run: the first SIGINT or SIGTERM stops the run after the current engine
 * call (every output is still written from what was measured); a second one quits at once. The process exits
 * with the conventional code: 130 after SIGINT, 143 after SIGTERM.
 *
 * ONNX Runtime runs each call on the main thread, so a signal handler runs only between calls. That is why the
 * second signal is enforced outside this process: by the launcher (`launcher.ts`), which kills its worker at
 * once, or, without a launcher, by the default action of the signal, restored after the first one.
 *
 * @packageDocumentation
 */
import { constants } from 'node:os';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { CliWriter } from './cli-io.js';

/** The signals a run stops on. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The conventional exit code of a process stopped by `signal`: 128 + its number (130, 143). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** What {@link watchInterrupts} returns. */
export interface Interrupts {
  /** Fires at the first SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): StopSignal | undefined;
  /** Removes the handlers (the signals' default actions come back). */
  dispose(): void;
}

/** Options of {@link watchInterrupts}. */
export interface InterruptOptions {
  /** Where the "stopping" notice goes. */
  readonly stderr: CliWriter;
  /**
   * Whether a launcher process watches this one (it forwards signals and kills this process at the second
   * one). Without one, the handlers are removed after the first signal so that the second takes the signal's
   * default action at once, even in the middle of a long engine call.
   */
  readonly underLauncher: boolean;
  /** The notice the first signal prints. @default a benchmark's: stopping after the current engine call */
  readonly notice?: (signal: StopSignal) => string;
}

/**
 * Installs SIGINT and SIGTERM handlers for a run. The first signal aborts {@link Interrupts.signal} and says so
 * on stderr. Later ones are the launcher's business (it forwards one copy of a press the terminal also sent
 * here, and kills this process at a second press), or, without a launcher, take their default action.
 */
export function watchInterrupts(options: InterruptOptions): Interrupts {
  const controller = new AbortController();
  let first: StopSignal | undefined;
  const handler = (signal: StopSignal): void => {
    if (first !== undefined) return;
    first = signal;
    options.stderr.write(`\n${(options.notice ?? messages.stoppingAfterCall)(signal)}\n`);
    if (!options.underLauncher) dispose();
    controller.abort(new DantinoxError('RUNTIME_ERROR', messages.runInterrupted(signal)));
  };
  const onInt = (): void => handler('SIGINT');
  const onTerm = (): void => handler('SIGTERM');
  const dispose = (): void => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return { signal: controller.signal, received: () => first, dispose };
}
