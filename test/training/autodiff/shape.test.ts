/** Known answers of the static-shape helpers, including the broadcasts a mutation would get wrong. */
import { describe, expect, it } from 'vitest';
import {
  broadcastShapes,
  inversePermutation,
  reductionAxes,
  sameShape,
  sizeOf,
} from '../../../src/training/autodiff/shape.js';

describe('shape helpers', () => {
  it('size of a shape (a scalar has one element)', () => {
    expect(sizeOf([])).toBe(1);
    expect(sizeOf([2, 3, 4])).toBe(24);
    expect(sizeOf([5, 0])).toBe(0);
  });

  it('broadcast NumPy-style, aligned on the last axis', () => {
    expect(broadcastShapes([[2, 3, 4], [4]])).toEqual([2, 3, 4]);
    expect(
      broadcastShapes([
        [2, 1, 4],
        [3, 1],
      ]),
    ).toEqual([2, 3, 4]);
    expect(broadcastShapes([[], [2, 2]])).toEqual([2, 2]);
    expect(broadcastShapes([[1], [1]])).toEqual([1]);
    expect(
      broadcastShapes([
        [2, 3],
        [3, 2],
      ]),
    ).toBeUndefined();
  });

  it('reduction axes back to a broadcast input', () => {
    expect(reductionAxes([2, 3, 4], [4])).toEqual([0, 1]);
    expect(reductionAxes([2, 3, 4], [2, 1, 4])).toEqual([1]);
    expect(reductionAxes([2, 3, 4], [2, 3, 4])).toEqual([]);
    expect(reductionAxes([2, 3], [])).toEqual([0, 1]);
    expect(reductionAxes([1, 3], [1, 3])).toEqual([]);
  });

  it('inverse permutations undo their permutation', () => {
    expect(inversePermutation([2, 0, 1])).toEqual([1, 2, 0]);
    expect(inversePermutation([0, 3, 1, 2])).toEqual([0, 2, 3, 1]);
    const perm = [3, 1, 0, 2];
    const inverse = inversePermutation(perm);
    expect(perm.map((p) => inverse[p])).toEqual([0, 1, 2, 3]);
  });

  it('compares shapes by rank and dimensions', () => {
    expect(sameShape([2, 3], [2, 3])).toBe(true);
    expect(sameShape([2, 3], [3, 2])).toBe(false);
    expect(sameShape([6], [6, 1])).toBe(false);
  });
});
