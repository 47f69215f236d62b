/**
 * The entry point of a variant's own process (see `variant-process.ts`): receives the plan and the variant over the
 * IPC channel, rebuilds the registries from the plugin specifiers, runs the variant into its folder and answers
 * with its model. The first SIGINT/SIGTERM (a terminal's Ctrl-C reaches the whole process group) or an `abort`
 * message stops it after the current engine call; it quits when its parent goes away.
 *
 * @packageDocumentation
 */
import { createWriterLogger } from '../benchmarking/logger.js';
import { DantinoxError, errorText } from '../errors.js';
import { loadPlugins } from './load-plugins.js';
import { runVariant } from './run-variant.js';
import type { FromVariantProcess, ToVariantProcess } from './variant-process.js';

const controller = new AbortController();
const send = (message: FromVariantProcess): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) resolve();
    else process.send?.(message, () => resolve());
  });

process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());
// Later copies of a signal are the parent's business: it decides whether to wait or to kill.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.once('disconnect', () => process.exit(1));

process.on('message', (message: ToVariantProcess) => {
  if (message.type === 'abort') {
    controller.abort();
    return;
  }
  void run(message).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});

async function run(job: Extract<ToVariantProcess, { type: 'run' }>): Promise<void> {
  try {
    const registries = await loadPlugins(job.plan.plugins ?? [], job.plan.cwd);
    const plan = {
      ...job.plan,
      registries,
      logger: createWriterLogger(process.stderr, job.plan.logLevel ?? 'warn'),
    };
    const outcome = await runVariant(plan, job.variant, {
      folder: job.folder,
      flat: job.flat,
      signal: controller.signal,
      note: (text) => void send({ type: 'note', text }),
      ...(job.progress ? { progress: process.stderr } : {}),
    });
    await send({ type: 'done', ...(outcome.model === undefined ? {} : { model: outcome.model }) });
  } catch (error) {
    await send({
      type: 'error',
      code: error instanceof DantinoxError ? error.code : undefined,
      message: errorText(error),
    });
  }
}
