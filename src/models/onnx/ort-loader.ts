/**
 * Lazy loading of `onnxruntime-node`: importing dantinox never loads the native module; the first model
 * creation does.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';

/** The `onnxruntime-node` module namespace. */
export type OrtModule = typeof import('onnxruntime-node');

/** Version of ONNX Runtime this runtime is built and measured against. */
export const ORT_VERSION = '1.30.0';

let cached: Promise<OrtModule> | undefined;

/**
 * Imports `onnxruntime-node` once (dynamically).
 *
 * @throws {@link DantinoxError} `DEPENDENCY_MISSING` when the package is not installed or cannot load.
 */
export function loadOrt(): Promise<OrtModule> {
  cached ??= import('onnxruntime-node').catch((cause: unknown) => {
    cached = undefined;
    throw new DantinoxError(
      'DEPENDENCY_MISSING',
      messages.dependencyMissing('onnxruntime-node', 'The built-in ONNX transformer'),
      { cause },
    );
  });
  return cached;
}
