/**
 * Lazy loading of `node-llama-cpp` (an optional peer dependency): importing dantinox never loads it; the first
 * llama.cpp model does, with its prebuilt CPU binary only (`build: 'never'`, no GPU probing, no downloads).
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';

/** The `node-llama-cpp` version dantinox is tested with; install exactly this one. */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

/** The `node-llama-cpp` module. */
export type NodeLlamaCppModule = typeof import('node-llama-cpp');
/** A loaded llama.cpp binding. */
export type NodeLlama = Awaited<ReturnType<NodeLlamaCppModule['getLlama']>>;

let loading: Promise<{ module: NodeLlamaCppModule; llama: NodeLlama }> | undefined;

/** Whether `cause` says that a package could not be found (rather than failing while it loaded). */
export function isModuleNotFound(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * The `node-llama-cpp` module and its llama.cpp binding on the CPU (loaded once per process; ≈ 1–3 s).
 * `maxThreads: 0` makes every context use exactly the thread count it asks for.
 *
 * @throws {@link DantinoxError} `DEPENDENCY_MISSING` with the install command when the package is absent;
 * `RUNTIME_ERROR` when its binary does not load.
 */
export function loadNodeLlamaCpp(): Promise<{ module: NodeLlamaCppModule; llama: NodeLlama }> {
  loading ??= (async () => {
    let module: NodeLlamaCppModule;
    try {
      module = await import('node-llama-cpp');
    } catch (cause) {
      if (isModuleNotFound(cause)) {
        throw new DantinoxError(
          'DEPENDENCY_MISSING',
          messages.dependencyMissing(`node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, 'The llama.cpp engine'),
          { cause },
        );
      }
      throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed('node-llama-cpp', cause), { cause });
    }
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
