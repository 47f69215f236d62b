/**
 * One way to open an ONNX Runtime session: the runtime loaded lazily, the thread count checked, the execution
 * provider checked against the binding, the same session options for every model, and the engine label taken
 * from the runtime actually loaded.
 *
 * @packageDocumentation
 */
import { availableParallelism } from 'node:os';
import type { InferenceSession } from 'onnxruntime-node';
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';
import { checkThreads } from '../threads.js';
import {
  checkExecutionProvider,
  DEFAULT_EXECUTION_PROVIDER,
  type ExecutionProvider,
} from './execution-provider.js';
import { loadOrt, type OrtModule, ortVersion } from './load-ort.js';

/** Options of {@link createOrtSession}. */
export interface OrtSessionOptions {
  /**
   * Intra-op threads (a positive integer).
   * @default every available core (`os.availableParallelism()`)
   */
  readonly threads?: number | undefined;
  /**
   * Execution provider; one the installed binding does not carry is refused, naming those it does.
   * @default 'cpu'
   */
  readonly executionProvider?: ExecutionProvider | undefined;
  /** Turns on ONNX Runtime's profiler; the Chrome-trace file is `${profileFilePrefix}_<date>.json`. */
  readonly profileFilePrefix?: string | undefined;
  /**
   * ONNX Runtime's graph optimisation: `disabled` keeps every node as written (e.g. the `Identity` chain of
   * `measureSessionOverhead`, which `all` would remove). @default 'all'
   */
  readonly graphOptimization?: 'all' | 'disabled' | undefined;
  /** External-data files of a graph given as bytes (`path` as the graph names it, `data` its bytes). */
  readonly externalData?: readonly { readonly path: string; readonly data: Uint8Array }[] | undefined;
  /** What is being loaded, for the error message, e.g. `"models/gpt2/onnx/model.onnx"`. */
  readonly source: string;
}

/** An open session with what it runs on. */
export interface OrtSession {
  /** The loaded `onnxruntime-node` module (for `Tensor`). */
  readonly ort: OrtModule;
  /** The session. */
  readonly session: InferenceSession;
  /** Intra-op threads it uses. */
  readonly threads: number;
  /** Execution provider it runs on. */
  readonly executionProvider: ExecutionProvider;
  /** Engine label for reports: `onnxruntime-node <version> (<provider>)`, version from the loaded runtime. */
  readonly engine: string;
}

/**
 * The thread count a session uses: `threads` when it is a positive integer of at most 4 per core
 * ({@link checkThreads}), every available core when omitted.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for anything else.
 */
export function resolveThreads(threads: number | undefined): number {
  return checkThreads(threads, availableParallelism());
}

/** The engine label of a session: `onnxruntime-node 1.30.0 (cpu)`. */
export function ortEngineLabel(ort: OrtModule, executionProvider: ExecutionProvider): string {
  return `onnxruntime-node ${ortVersion(ort)} (${executionProvider})`;
}

/** The execution provider an engine label of {@link ortEngineLabel} names, or `undefined` for any other label. */
export function ortLabelProvider(label: string): string | undefined {
  return /^onnxruntime-node \S+ \(([^)]+)\)$/.exec(label)?.[1];
}

/**
 * Opens an ONNX Runtime session on a graph given as bytes or as a file path: sequential execution, full graph
 * optimisation (unless `graphOptimization` says otherwise), one inter-op thread, `threads` intra-op threads on `executionProvider`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a bad thread count or an execution provider the binding does
 *   not carry; `DEPENDENCY_MISSING` without onnxruntime-node; `RUNTIME_ERROR` when ONNX Runtime rejects the graph.
 */
export async function createOrtSession(
  model: Uint8Array | string,
  options: OrtSessionOptions,
): Promise<OrtSession> {
  const threads = resolveThreads(options.threads);
  const ort = await loadOrt();
  const executionProvider = options.executionProvider ?? DEFAULT_EXECUTION_PROVIDER;
  checkExecutionProvider(ort, executionProvider);
  const sessionOptions: InferenceSession.SessionOptions = {
    executionProviders: [executionProvider],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: options.graphOptimization ?? 'all',
    ...(options.externalData === undefined
      ? {}
      : { externalData: options.externalData.map(({ path, data }) => ({ path, data })) }),
    ...(options.profileFilePrefix === undefined
      ? {}
      : { enableProfiling: true, profileFilePrefix: options.profileFilePrefix }),
  };
  let session: InferenceSession;
  try {
    session =
      typeof model === 'string'
        ? await ort.InferenceSession.create(model, sessionOptions)
        : await ort.InferenceSession.create(model, sessionOptions);
  } catch (cause) {
    throw new DantinoxError('RUNTIME_ERROR', messages.sessionFailed(options.source, cause), { cause });
  }
  return { ort, session, threads, executionProvider, engine: ortEngineLabel(ort, executionProvider) };
}
