import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import { float16ToFloat32, floatToHalf, halfToFloat, toFloat16Bits } from '../../src/models/float16.js';

test('known binary16 patterns', () => {
  expect(halfToFloat(0x3c00)).toBe(1);
  expect(halfToFloat(0xc000)).toBe(-2);
  expect(halfToFloat(0x7bff)).toBe(65504);
  expect(halfToFloat(0x0001)).toBe(2 ** -24);
  expect(halfToFloat(0x0400)).toBe(2 ** -14);
  expect(halfToFloat(0x3555)).toBeCloseTo(1 / 3, 3);
  expect(halfToFloat(0x7c00)).toBe(Number.POSITIVE_INFINITY);
  expect(halfToFloat(0xfc00)).toBe(Number.NEGATIVE_INFINITY);
  expect(halfToFloat(0x7e00)).toBeNaN();
  expect(Object.is(halfToFloat(0x8000), -0)).toBe(true);
  expect(Array.from(float16ToFloat32(Uint16Array.of(0x3c00, 0x4000)))).toEqual([1, 2]);
});

test('property: monotone over the positive finite patterns', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0x7bfe }), (bits) => {
      expect(halfToFloat(bits + 1)).toBeGreaterThan(halfToFloat(bits));
    }),
    { numRuns: 300, seed: 3 },
  );
});

describe('floatToHalf', () => {
  it('known answers: 1, −2, max, overflow, smallest subnormal, NaN, round to nearest even', () => {
    expect(floatToHalf(1)).toBe(0x3c00);
    expect(floatToHalf(-2)).toBe(0xc000);
    expect(floatToHalf(65504)).toBe(0x7bff);
    expect(floatToHalf(65520)).toBe(0x7c00);
    expect(floatToHalf(2 ** -24)).toBe(0x0001);
    expect(floatToHalf(2 ** -26)).toBe(0);
    expect(floatToHalf(Number.NaN) & 0x7e00).toBe(0x7e00);
    expect(floatToHalf(1 + 2 ** -11)).toBe(0x3c00); // tie → even
    expect(floatToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie → even (up)
  });

  it('is the inverse of halfToFloat on every finite binary16 value', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      if ((bits & 0x7c00) === 0x7c00) continue;
      expect(floatToHalf(halfToFloat(bits))).toBe(bits === 0x8000 ? 0x8000 : bits);
    }
  });

  it('is within half a unit in the last place of binary16 (property)', () => {
    fc.assert(
      fc.property(fc.float({ min: -65000, max: 65000, noNaN: true }), (x) => {
        const h = halfToFloat(toFloat16Bits(Float32Array.of(x))[0] as number);
        const bound = Math.abs(x) >= 2 ** -14 ? Math.abs(x) * 2 ** -11 : 2 ** -25;
        expect(Math.abs(h - Math.fround(x))).toBeLessThanOrEqual(bound);
      }),
    );
  });
});
