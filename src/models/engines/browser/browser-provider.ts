/**
 * The execution providers of the browser target, and the `--ep` names that select them.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../../errors.js';
import { messages } from '../../../messages.js';

/** Execution providers of the browser target. */
export type BrowserProvider = 'wasm' | 'webgpu';

/**
 * The browser execution provider for `name`: `cpu` and `wasm` are `wasm`, `webgpu` is `webgpu`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for any other.
 */
export function browserProvider(name: string | undefined): BrowserProvider {
  if (name === undefined || name === 'cpu' || name === 'wasm') return 'wasm';
  if (name === 'webgpu') return 'webgpu';
  throw new DantinoxError('INVALID_OPTION', messages.browserProvider(name));
}
