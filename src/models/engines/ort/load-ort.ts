/**
 * Lazy loading of `onnxruntime-node`: importing dantinox never loads the native module; the first session does.
 *
 * @packageDocumentation
 */
import { lazyImport } from '../../../lazy-import.js';

/** The `onnxruntime-node` module namespace. */
export type OrtModule = typeof import('onnxruntime-node');

/**
 * Imports `onnxruntime-node` once (dynamically) and returns the module namespace.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` when the package is not installed or cannot load.
 */
export const loadOrt: () => Promise<OrtModule> = lazyImport(
  'onnxruntime-node',
  'ONNX Runtime models',
  () => import('onnxruntime-node'),
);

/** Version of the loaded ONNX Runtime binding, e.g. `1.30.0`. */
export function ortVersion(ort: OrtModule): string {
  return ort.env.versions.node ?? ort.env.versions.common;
}
