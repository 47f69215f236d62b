/**
 * A variant run in a fresh Node.js process (`variant-worker.js`), so that its peak RSS, load time and load peak are
 * its own: a process's resident high-water mark only grows, and glibc keeps freed heap, so a variant measured after
 * a larger one would otherwise report the larger one's memory.
 *
 * The parent sends the plan (plain data: the registries are rebuilt from the plugin specifiers) and the variant;
 * the child writes the variant's folder and answers with its model; the parent reads the report back from the
 * folder. An abort is forwarded; a child that dies is reported as the variant's failure.
 *
 * @packageDocumentation
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MatrixVariant } from '../benchmarking/matrix/expand-matrix.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import { DantinoxError, type ErrorCode, errorText } from '../errors.js';
import { messages } from '../messages.js';
import { variantConfig } from './bench-matrix.js';
import type { RunPlan } from './run-matrix.js';
import { failedReport, runVariant, type VariantOutcome, type VariantRunOptions } from './run-variant.js';

/** The plan as a child process receives it: everything but the registries, the logger and the folder's lock. */
export type VariantPlanData = Omit<RunPlan, 'registries' | 'logger' | 'lock'>;

/** Parent → child. */
export type ToVariantProcess =
  | {
      readonly type: 'run';
      readonly plan: VariantPlanData;
      readonly variant: MatrixVariant;
      readonly folder: string;
      readonly flat: boolean;
      readonly progress: boolean;
    }
  | { readonly type: 'abort' };

/** Child → parent. */
export type FromVariantProcess =
  | { readonly type: 'note'; readonly text: string }
  | { readonly type: 'done'; readonly model?: VariantOutcome['model'] }
  | { readonly type: 'error'; readonly code: ErrorCode | undefined; readonly message: string };

/** The compiled worker next to this module; absent when dantinox runs from its TypeScript sources. */
const WORKER = fileURLToPath(new URL('./variant-worker.js', import.meta.url));

/** Whether variants can run in their own process here (the package is built). */
export function canIsolate(): boolean {
  return existsSync(WORKER);
}

/**
 * Runs one variant in a fresh process and resolves to its outcome (the report read back from its folder). Without
 * the compiled worker (running from the TypeScript sources), it runs in this process.
 *
 * @throws in the flat layout, the child's error building the model (same code and message).
 */
export async function runVariantProcess(
  plan: RunPlan,
  variant: MatrixVariant,
  options: VariantRunOptions,
): Promise<VariantOutcome> {
  if (!canIsolate()) return runVariant(plan, variant, options);
  const { registries: _registries, logger: _logger, lock: _lock, ...data } = plan;
  const child = fork(WORKER, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  const abort = (): void => {
    if (child.connected) child.send({ type: 'abort' } satisfies ToVariantProcess);
  };
  options.signal.addEventListener('abort', abort, { once: true });
  try {
    const model = await new Promise<VariantOutcome['model'] | undefined>((resolve, reject) => {
      let answered = false;
      child.on('message', (message: FromVariantProcess) => {
        if (message.type === 'note') options.note(message.text);
        else if (message.type === 'done') {
          answered = true;
          resolve(message.model);
        } else {
          answered = true;
          reject(new DantinoxError(message.code ?? 'RUNTIME_ERROR', message.message));
        }
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        if (!answered)
          reject(new DantinoxError('RUNTIME_ERROR', messages.variantProcessDied(variant.id, code, signal)));
      });
      child.send({
        type: 'run',
        plan: data,
        variant,
        folder: options.folder,
        flat: options.flat,
        progress: options.progress !== undefined,
      } satisfies ToVariantProcess);
      if (options.signal.aborted) abort();
    });
    const report = RunDirectory.load(options.folder);
    return {
      variant,
      report,
      config: variantConfig(variant, plan.config),
      ...(model === undefined ? {} : { model }),
    };
  } catch (error) {
    if (options.flat) throw error;
    // The process died (out of memory, a crash): the variant's rows say so, and the matrix goes on.
    const message = errorText(error);
    plan.logger.log('error', message);
    return {
      variant,
      report: failedReport(
        [...plan.tasks, ...(plan.profile === true ? ['profile'] : [])],
        variant,
        options.folder,
        message,
      ),
      config: variantConfig(variant, plan.config),
    };
  } finally {
    options.signal.removeEventListener('abort', abort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
