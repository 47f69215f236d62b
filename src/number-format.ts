/**
 * Numbers as a person reads them in a table: a few significant digits, thousands separators, an exponent only
 * for tiny magnitudes. One rule for the terminal summary and the HTML report.
 *
 * @packageDocumentation
 */

/**
 * Formats `value` for reading: whole numbers and magnitudes from 1,000 on as whole numbers with thousands
 * separators (`15,881`, `41,120`), magnitudes below 0.001 in exponent form with up to `digits` significant
 * digits (`6.123e-4`, `6.12e-4`), anything else with `digits` significant digits (`8.06`, `267.2`, `0.1235`); `—` when not finite.
 *
 * @param digits - Significant digits of fractions (1–21). @default 4
 */
export function formatSignificant(value: number, digits = 4): string {
  if (!Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  if (magnitude >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString('en-US');
  if (magnitude < 0.001) return value.toExponential(digits - 1).replace(/\.?0+e/, 'e');
  return value.toLocaleString('en-US', { maximumSignificantDigits: digits });
}
