/**
 * Lazy loading of the browser target's optional packages: `playwright-core` (drives Chromium) and
 * `onnxruntime-web` (the runtime the page loads). Importing dantinox loads neither.
 *
 * @packageDocumentation
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { DantinoxError } from '../../../errors.js';
import { lazyImport } from '../../../lazy-import.js';
import { messages } from '../../../messages.js';

/** The `playwright-core` module namespace. */
export type PlaywrightModule = typeof import('playwright-core');

/**
 * Imports `playwright-core` once.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` when it is not installed.
 */
export const loadPlaywright: () => Promise<PlaywrightModule> = lazyImport(
  'playwright-core',
  'The browser target (--target browser)',
  () => import('playwright-core'),
);

/**
 * The folder of onnxruntime-web's script and WASM files (its `dist`), found from its package entry.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` when `onnxruntime-web` is not installed.
 */
export function ortWebDist(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
  } catch (cause) {
    throw new DantinoxError(
      'DEPENDENCY_MISSING',
      messages.dependencyMissing('onnxruntime-web', 'The browser target (--target browser)'),
      { cause },
    );
  }
}
