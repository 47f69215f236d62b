/**
 * Human-readable FLOPs, as the seed prints them.
 */

/**
 * Formats a FLOPs count the way the seed prints it, with decimal units: n ≥ 1e12 → `"X.XX TFLOPs"`,
 * n ≥ 1e9 → `"X.XX GFLOPs"`, n ≥ 1e6 → `"X.XX MFLOPs"`, otherwise the integer followed by `" FLOPs"`.
 *
 * @example
 * ```ts
 * formatFlops(286_153_441_280); // '286.15 GFLOPs'
 * formatFlops(4096);            // '4096 FLOPs'
 * ```
 */
export function formatFlops(n: number): string {
  if (n >= 1e12) return `${(n / 1e12).toFixed(2)} TFLOPs`;
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GFLOPs`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} MFLOPs`;
  return `${Math.trunc(n)} FLOPs`;
}
