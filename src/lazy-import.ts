/**
 * Lazy, cached imports of optional or heavy dependencies: importing dantinox loads none of them; the first use
 * does, and a missing package becomes one `DEPENDENCY_MISSING` error with the install command.
 *
 * @packageDocumentation
 */
import { DantinoxError } from './errors.js';
import { messages } from './messages.js';

/**
 * A loader that runs `load` (a dynamic `import(pkg)`) once, caches the module, and turns a failure into a
 * {@link DantinoxError} `DEPENDENCY_MISSING` naming `pkg` and the `feature` that needs it (a later call retries).
 *
 * @example
 * ```ts
 * const loadResvg = lazyImport('@resvg/resvg-js', 'PNG output', () => import('@resvg/resvg-js'));
 * ```
 */
export function lazyImport<T>(pkg: string, feature: string, load: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return () => {
    cached ??= load().catch((cause: unknown) => {
      cached = undefined;
      throw new DantinoxError('DEPENDENCY_MISSING', messages.dependencyMissing(pkg, feature), { cause });
    });
    return cached;
  };
}
