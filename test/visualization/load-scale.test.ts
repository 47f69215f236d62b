/** The offered-load x axis of the serving charts: ticks at the sweep's points, log 2 for a doubling sweep. */
import { describe, expect, it } from 'vitest';
import { loadScale } from '../../src/visualization/charts/serving-rows.js';

describe('loadScale', () => {
  it('ticks a sweep of 1 and 4 at 1 and 4 on a linear scale, as integers', () => {
    expect(loadScale([4, 1, 4, 1])).toEqual({
      scale: { type: 'linear', zero: false },
      axis: { values: [1, 4], format: 'd' },
    });
  });

  it('puts a doubling sweep (three points or more) on a log-2 scale', () => {
    expect(loadScale([1, 2, 4, 8, 16]).scale).toEqual({ type: 'log', base: 2, zero: false });
    expect(loadScale([2, 4]).scale.type).toBe('linear');
    expect(loadScale([1, 2, 4, 16]).scale.type).toBe('linear');
  });

  it('keeps fractional rates and drops an unbounded one', () => {
    expect(loadScale([0.5, 1.5, Number.POSITIVE_INFINITY]).axis).toEqual({
      values: [0.5, 1.5],
      format: '~g',
    });
  });
});
