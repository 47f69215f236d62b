/**
 * `profileFn`: wrap a function so every call is timed by a {@link LatencyTracker}.
 */
import type { LatencyTracker } from './latency-tracker.js';

/** Options of {@link profileFn}. */
export interface ProfileFnOptions<A extends unknown[]> {
  /**
   * Tokens processed by one call, for throughput: a number, or a function of the call's arguments (e.g.
   * `(ids) => ids.length`).
   */
  nTokens: number | ((...args: A) => number);
}

/**
 * Returns a wrapper with the same parameters (and `this`) as `fn` that times every call with
 * `tracker.measure(nTokens, …)` and resolves to `fn`'s result: one sample per call. The wrapper is always
 * async — `fn` returning `R` becomes a wrapper returning `Promise<Awaited<R>>`, even when `fn` is synchronous,
 * because the tracker awaits its barrier. A call that throws records nothing and rejects with the error.
 *
 * @example
 * ```ts
 * const timedGenerate = profileFn(model.generate.bind(model), tracker, { nTokens: 256 });
 * const output = await timedGenerate(prompt, rng); // records one sample
 * ```
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` (as a rejection of the call) when `nTokens`
 * evaluates to a negative or non-finite number.
 */
export function profileFn<A extends unknown[], R, This = unknown>(
  fn: (this: This, ...args: A) => R,
  tracker: Pick<LatencyTracker, 'measure'>,
  options: ProfileFnOptions<A>,
): (this: This, ...args: A) => Promise<Awaited<R>> {
  const { nTokens } = options;
  return function profiled(this: This, ...args: A): Promise<Awaited<R>> {
    try {
      const tokens = typeof nTokens === 'function' ? nTokens(...args) : nTokens;
      return tracker.measure(tokens, () => fn.apply(this, args));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
