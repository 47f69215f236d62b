/**
 * Lazy loading of `node-llama-cpp` (an optional peer dependency): importing dantinox never loads it; the first
 * llama.cpp model does, with its prebuilt CPU binary only (`build: 'never'`, no GPU probing, no downloads).
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../../errors.js';
import { lazyImport } from '../../../lazy-import.js';
import { messages } from '../../../messages.js';

/** The `node-llama-cpp` version dantinox is tested with; install exactly this one. */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

/** The `node-llama-cpp` module. */
export type NodeLlamaCppModule = typeof import('node-llama-cpp');
/** A loaded llama.cpp binding. */
export type NodeLlama = Awaited<ReturnType<NodeLlamaCppModule['getLlama']>>;

let loading: Promise<{ module: NodeLlamaCppModule; llama: NodeLlama }> | undefined;

const importNodeLlamaCpp = lazyImport(
  `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
  'The llama.cpp engine',
  () => import('node-llama-cpp'),
);

/**
 * The `node-llama-cpp` module and its llama.cpp binding on the CPU (loaded once per process; ≈ 1–3 s).
 * `maxThreads: 0` makes every context use exactly the thread count it asks for.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` with the install command when the package is absent;
 * `RUNTIME_ERROR` when its binary does not load.
 */
export function loadNodeLlamaCpp(): Promise<{ module: NodeLlamaCppModule; llama: NodeLlama }> {
  loading ??= (async () => {
    const module = await importNodeLlamaCpp();
    try {
      const llama = await module.getLlama({
        gpu: false,
        build: 'never',
        maxThreads: 0,
        logLevel: module.LlamaLogLevel.error,
        progressLogs: false,
        skipDownload: true,
      });
      return { module, llama };
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed('node-llama-cpp', cause), { cause });
    }
  })();
  loading.catch(() => {
    loading = undefined; // a later call may retry (e.g. after installing the package)
  });
  return loading;
}
