/**
 * Execution providers (ONNX Runtime's hardware back ends): which ones this installation of onnxruntime-node
 * carries, asked of the binding itself, and the check that refuses one it does not.
 *
 * @packageDocumentation
 */
import type { InferenceSession } from 'onnxruntime-node';
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';
import type { OrtModule } from './load-ort.js';

/** An ONNX Runtime execution provider name, e.g. `cpu` (the default), `webgpu`, `cuda`. */
export type ExecutionProvider = InferenceSession.ExecutionProviderName;

/** The execution provider sessions use unless told otherwise. */
export const DEFAULT_EXECUTION_PROVIDER: ExecutionProvider = 'cpu';

/**
 * Execution providers whose binaries this onnxruntime-node installation carries, as the binding reports them
 * (`listSupportedBackends()`, entries marked bundled), e.g. `['cpu', 'webgpu']`.
 */
export function supportedExecutionProviders(ort: OrtModule): readonly string[] {
  return ort
    .listSupportedBackends()
    .filter((backend) => backend.bundled)
    .map((backend) => backend.name);
}

/**
 * Asserts that `name` is an execution provider this installation can run.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming the providers it does support.
 */
export function checkExecutionProvider(ort: OrtModule, name: string): asserts name is ExecutionProvider {
  const supported = supportedExecutionProviders(ort);
  if (!supported.includes(name)) {
    throw new DantinoxError('INVALID_OPTION', messages.unsupportedExecutionProvider(name, supported));
  }
}
