import fc from 'fast-check';
import { expect, test } from 'vitest';
import { float16ToFloat32, halfToFloat } from '../../../src/models/hf/float16.js';

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
