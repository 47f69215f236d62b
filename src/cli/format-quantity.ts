/**
 * Human-readable counts and byte sizes for CLI output (decimal units, like the FLOPs the seed prints).
 *
 * @packageDocumentation
 */

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Formats an integer with thousands separators: `44433920` → `44,433,920`. */
export function formatInteger(n: number): string {
  return GROUPED.format(n);
}

/** Formats a count with a decimal suffix: `44433920` → `44.43 M`, `512` → `512`. */
export function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(2)} k`;
  return String(n);
}

/** Formats a size in bytes with decimal units: `177735680` → `177.74 MB`, `512` → `512 B`. */
export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(2)} kB`;
  return `${n} B`;
}
