/**
 * Where a model runs, by the names `--target` and the library use.
 *
 * @packageDocumentation
 */

/**
 * Targets: `node` (the engine runs in this Node.js process) and `browser` (onnxruntime-web in a headless Chromium
 * page this process drives).
 */
export const TARGET_NAMES = ['node', 'browser'] as const;

/** One of {@link TARGET_NAMES}. */
export type TargetName = (typeof TARGET_NAMES)[number];
