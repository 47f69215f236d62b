import { describe, expect, it } from 'vitest';
import { formatSignificant } from '../src/number-format.js';

describe('formatSignificant', () => {
  it('fractions with 4 significant digits; whole numbers and magnitudes from 1,000 on whole, with separators', () => {
    expect(formatSignificant(0.123456)).toBe('0.1235');
    expect(formatSignificant(257.549)).toBe('257.5');
    expect(formatSignificant(999.94)).toBe('999.9');
    expect(formatSignificant(1000.4)).toBe('1,000');
    expect(formatSignificant(42992.86)).toBe('42,993');
    expect(formatSignificant(76076032)).toBe('76,076,032');
    expect(formatSignificant(-1.5)).toBe('-1.5');
    expect(formatSignificant(0)).toBe('0');
  });

  it('an exponent below 0.001 (not at 0.001), with the same significant digits', () => {
    expect(formatSignificant(0.001)).toBe('0.001');
    expect(formatSignificant(0.00099994)).toBe('9.999e-4');
    expect(formatSignificant(-0.00012346)).toBe('-1.235e-4');
    expect(formatSignificant(0.00012346, 2)).toBe('1.2e-4');
    expect(formatSignificant(0.000612)).toBe('6.12e-4'); // no trailing zeros
    expect(formatSignificant(0.0005)).toBe('5e-4');
  });

  it('fewer digits for a spread; — when not finite', () => {
    expect(formatSignificant(0.1314, 2)).toBe('0.13');
    expect(formatSignificant(15180.2, 2)).toBe('15,180');
    expect(formatSignificant(Number.NaN)).toBe('—');
    expect(formatSignificant(Number.POSITIVE_INFINITY)).toBe('—');
  });
});
