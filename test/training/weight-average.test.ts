/**
 * Tail averaging: which updates join the average (the boundaries of `averageFrom` and `averageEvery`), the
 * running mean against known answers and, for any weights, against the float64 mean of the same weights.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WeightTensor } from '../../src/models/weights.js';
import { addToAverage, averagesAfter, type WeightAverage } from '../../src/training/weight-average.js';

const weightsOf = (...rows: number[][]): Map<string, WeightTensor> =>
  new Map(rows.map((row, i) => [`w${i}`, { dims: [row.length], data: Float32Array.from(row) }]));

describe('averagesAfter', () => {
  it('never with averageFrom 0; from averageFrom on, every averageEvery-th update', () => {
    const due = (averageFrom: number, averageEvery: number): number[] =>
      Array.from({ length: 12 }, (_, i) => i + 1).filter((s) =>
        averagesAfter({ averageFrom, averageEvery }, s),
      );
    expect(due(0, 1)).toEqual([]);
    expect(due(1, 1)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(due(5, 1)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    expect(due(5, 3)).toEqual([5, 8, 11]);
    expect(due(12, 4)).toEqual([12]);
  });
});

describe('addToAverage', () => {
  it('starts with a copy, then keeps the mean of everything added (known answers)', () => {
    const first = weightsOf([1, 2], [-4]);
    let average: WeightAverage = addToAverage(undefined, first);
    (first.get('w0') as WeightTensor).data[0] = 100;
    expect(average.count).toBe(1);
    expect([...(average.weights.get('w0')?.data ?? [])]).toEqual([1, 2]);
    average = addToAverage(average, weightsOf([3, 4], [2]));
    average = addToAverage(average, weightsOf([8, 0], [5]));
    expect(average.count).toBe(3);
    expect([...(average.weights.get('w0')?.data ?? [])]).toEqual([4, 2]);
    expect([...(average.weights.get('w1')?.data ?? [])]).toEqual([1]);
    expect(average.weights.get('w0')?.dims).toEqual([2]);
  });

  it('stays within float32 rounding of the float64 mean, whatever the weights', () => {
    const value = fc.float({ min: -1e3, max: 1e3, noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 40 }),
        (rows) => {
          let average: WeightAverage | undefined;
          for (const row of rows) average = addToAverage(average, weightsOf(row));
          const mean = average?.weights.get('w0')?.data as Float32Array;
          for (let i = 0; i < 3; i++) {
            const values = rows.map((r) => Math.fround(r[i] as number));
            const exact = values.reduce((a, b) => a + b, 0) / values.length;
            const scale = Math.max(...values.map(Math.abs));
            // One float32 rounding per update: the error stays below count × 2⁻²³ of the largest value added.
            expect(Math.abs((mean[i] as number) - exact)).toBeLessThanOrEqual(
              rows.length * 2 ** -23 * scale + 1e-30,
            );
          }
        },
      ),
      { seed: 46, numRuns: 200 },
    );
  });
});
