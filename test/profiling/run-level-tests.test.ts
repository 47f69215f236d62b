import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import {
  noiseFloorOf,
  type RunLevelTested,
  relativeChange,
  runLevelTest,
  runSpreadOf,
  runsPerSideNeeded,
  spreadOfNoiseFloor,
} from '../../src/profiling/index.js';

const close = (actual: number, expected: number, rel: number) =>
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(
    rel * Math.abs(expected),
  );

function tested(a: readonly number[], b: readonly number[], options = {}): RunLevelTested {
  const r = runLevelTest(a, b, options);
  if (r.status !== 'tested') throw new Error(`untestable: ${r.reason}`);
  return r;
}

describe('runLevelTest: known answers (SciPy 1.17 ttest_ind on the logs)', () => {
  it('Welch on 3 vs 4 runs', () => {
    const r = tested([10, 10.5, 9.8], [11, 11.4, 10.9, 11.2]);
    expect(r.method).toBe('welch');
    expect(r.scale).toBe('log');
    close(r.pValue, 0.02464551278254843, 1e-9);
    close(r.df, 2.9450928437043298, 1e-12);
    close(r.change, 0.10178550878014647, 1e-12);
    close(r.changeCi[0], 0.023997181052924903, 1e-9);
    close(r.changeCi[1], 0.1854830558319522, 1e-9);
    close(r.baseline, Math.cbrt(10 * 10.5 * 9.8), 1e-12);
  });

  it('pooled Student t when one side has a single run', () => {
    const r = tested([10], [11, 11.4, 10.9, 11.2]);
    expect(r.method).toBe('pooled');
    expect(r.df).toBe(3);
    close(r.pValue, 0.017324114769423887, 1e-9);
    close(r.changeCi[0], 0.036346858697980725, 1e-9);
    close(r.changeCi[1], 0.1938943397511664, 1e-9);
  });

  it('on the values themselves (Welch, linear scale) when a value is not > 0', () => {
    const r = tested([-1, 0.5, 0.2], [1, 2, 1.5]);
    expect(r.scale).toBe('linear');
    close(r.pValue, 0.051728357242958815, 1e-9);
    close(r.df, 3.371353939921638, 1e-12);
    expect(r.change).toBeCloseTo(-16, 12); // 1.5 / (−0.1) − 1
    close(r.changeCi[0], -0.21037951539115698, 1e-8);
    close(r.changeCi[1], 32.21037951539116, 1e-9);
  });

  it('one run per side: untestable without earlier runs, a t-test with their spread', () => {
    const none = runLevelTest([10], [11]);
    expect(none).toEqual({
      status: 'untestable',
      reason: 'one run per side',
      baseline: 10,
      candidate: 11,
      change: expect.closeTo(0.1, 12),
    });
    const r = tested([10], [11], { earlierSpread: { sd: 0.03, df: 4 } });
    expect(r.method).toBe('earlier-runs');
    expect(r.df).toBe(4);
    expect(r.spread).toBe(0.03);
    // t = ln(1.1) / (0.03·√2) = 2.2465 on 4 df.
    close(r.pValue, 0.08793, 1e-3);
    expect(r.changeCi[0]).toBeLessThan(0);
  });

  it('no runs on a side: untestable', () => {
    expect(runLevelTest([], [1, 2]).status).toBe('untestable');
    expect(runLevelTest([1], []).status).toBe('untestable');
  });

  it('ties: constant equal sides give p = 1 and the point interval [0, 0]; constant different sides p = 0', () => {
    const same = tested([5, 5, 5], [5, 5]);
    expect(same.pValue).toBe(1);
    expect(same.change).toBe(0);
    expect(same.changeCi).toEqual([0, 0]);
    const diff = tested([5, 5], [6, 6]);
    expect(diff.pValue).toBe(0);
    expect(diff.change).toBeCloseTo(0.2, 12);
    expect(diff.changeCi[0]).toBe(diff.change);
    expect(diff.changeCi[1]).toBe(diff.change);
  });

  it('equal centres with spread: change exactly 0, p = 1, interval symmetric in log', () => {
    const r = tested([9, 11], [11, 9]);
    expect(r.change).toBe(0);
    expect(r.pValue).toBe(1);
    expect(Math.log1p(r.changeCi[0])).toBeCloseTo(-Math.log1p(r.changeCi[1]), 12);
  });

  it('refuses non-finite values and bad options', () => {
    expect(() => runLevelTest([1, Number.NaN], [1, 2])).toThrow(DantinoxError);
    expect(() => runLevelTest([1, 2], [1, 2], { confidence: 1 })).toThrow(DantinoxError);
    expect(() => runLevelTest([1], [2], { earlierSpread: { sd: 0.1, df: 0 } })).toThrow(DantinoxError);
    expect(() => runLevelTest([1], [2], { earlierSpread: { sd: -1, df: 3 } })).toThrow(DantinoxError);
  });
});

describe('runLevelTest: boundaries', () => {
  it('no runs on a side: the reason and NaN centres, whichever side is empty', () => {
    for (const [a, b] of [
      [[], [1, 2]],
      [[1, 2], []],
      [[1], []],
      [[], [1]],
    ] as const) {
      const r = runLevelTest(a, b);
      expect(r).toEqual({
        status: 'untestable',
        reason: 'no runs',
        baseline: Number.NaN,
        candidate: Number.NaN,
        change: Number.NaN,
      });
    }
  });

  it('a zero on either side puts the test on the linear scale (log needs every value > 0)', () => {
    expect(tested([0, 1, 2], [1, 2, 3]).scale).toBe('linear');
    expect(tested([1, 2, 3], [0, 1, 2]).scale).toBe('linear');
    expect(tested([1, 2, 3], [1, 2, 4]).scale).toBe('log');
  });

  it('spread: the pooled SD of the logs, or on the linear scale relative to the baseline mean (known answers)', () => {
    close(tested([10, 10.5, 9.8], [11, 11.4, 10.9, 11.2]).spread, 0.027212805657446094, 1e-12);
    close(tested([10], [11, 11.4, 10.9, 11.2]).spread, 0.01988691936814675, 1e-12);
    close(tested([-1, 0.5, 0.2], [1, 2, 1.5]).spread, 6.6332495807108, 1e-12);
  });

  it('pooled when exactly one side has two runs or more, on one fewer df than the runs', () => {
    for (const [a, b] of [
      [[10, 10.4], [11]],
      [[10], [11, 11.4]],
    ] as const) {
      const r = tested(a, b);
      expect(r.method).toBe('pooled');
      expect(r.df).toBe(1);
    }
    expect(tested([10, 10.4], [11, 11.4]).method).toBe('welch');
  });

  it('Welch with no spread on either side falls back to nb + nc − 2 df', () => {
    expect(tested([5, 5, 5], [6, 6]).df).toBe(3);
  });

  it('a zero baseline mean on the linear scale gives a NaN interval, not a division by zero', () => {
    const r = tested([-1, 1], [1, 2]);
    expect(r.scale).toBe('linear');
    expect(r.changeCi.every(Number.isNaN)).toBe(true);
  });

  it('confidence must be inside (0, 1); its ends and outside are refused by name', () => {
    for (const confidence of [0, 1, -0.5, 1.5, Number.NaN]) {
      expect(() => runLevelTest([1, 2], [1, 3], { confidence })).toThrow(
        /`confidence` must be a number in \(0, 1\)/,
      );
    }
    expect(tested([1, 2], [1, 3], { confidence: 0.5 }).status).toBe('tested');
    expect(tested([1, 2], [1, 3], { confidence: 0.999 }).status).toBe('tested');
  });

  it('an earlier spread needs sd ≥ 0 and df ≥ 1: df 1 and sd 0 are accepted', () => {
    expect(tested([10], [11], { earlierSpread: { sd: 0.03, df: 1 } }).df).toBe(1);
    expect(tested([10], [11], { earlierSpread: { sd: 0, df: 3 } }).pValue).toBe(0);
    for (const earlierSpread of [
      { sd: 0.03, df: 0.5 },
      { sd: -0.01, df: 3 },
      { sd: Number.POSITIVE_INFINITY, df: 3 },
    ]) {
      expect(() => runLevelTest([10], [11], { earlierSpread })).toThrow(
        /`earlierSpread` must be sd ≥ 0 and df ≥ 1/,
      );
    }
  });
});

describe('runLevelTest: properties', () => {
  const positive = fc.array(fc.double({ min: 0.5, max: 2, noNaN: true }), { minLength: 2, maxLength: 8 });

  it('the interval holds the change, and p < α exactly when the (1 − α) interval excludes 0', () => {
    fc.assert(
      fc.property(positive, positive, fc.constantFrom(0.05, 0.1), (a, b, alpha) => {
        const r = tested(a, b, { confidence: 1 - alpha });
        expect(r.changeCi[0]).toBeLessThanOrEqual(r.change + 1e-12);
        expect(r.changeCi[1]).toBeGreaterThanOrEqual(r.change - 1e-12);
        const excludes = r.changeCi[0] > 0 || r.changeCi[1] < 0;
        // Away from the boundary (numerical ties aside) the two agree.
        if (Math.abs(r.pValue - alpha) > 1e-9) expect(r.pValue < alpha).toBe(excludes);
      }),
    );
  });

  it('scaling every run by the same factor changes nothing; swapping the sides inverts the ratio', () => {
    fc.assert(
      fc.property(positive, positive, fc.double({ min: 0.01, max: 100, noNaN: true }), (a, b, k) => {
        const r = tested(a, b);
        const scaled = tested(
          a.map((x) => x * k),
          b.map((x) => x * k),
        );
        expect(scaled.change).toBeCloseTo(r.change, 9);
        expect(scaled.pValue).toBeCloseTo(r.pValue, 9);
        const swapped = tested(b, a);
        expect(swapped.pValue).toBeCloseTo(r.pValue, 12);
        expect((1 + swapped.change) * (1 + r.change)).toBeCloseTo(1, 12);
      }),
    );
  });
});

describe('runSpreadOf / noiseFloorOf / spreadOfNoiseFloor', () => {
  it('learns the SD of the logs, df = runs − 1; nothing from fewer than 2 positive values', () => {
    const s = runSpreadOf([1, Math.E]);
    expect(s?.df).toBe(1);
    expect(s?.sd).toBeCloseTo(Math.SQRT1_2, 12); // logs 0 and 1: SD 1/√2
    expect(runSpreadOf([3])).toBeUndefined();
    expect(runSpreadOf([])).toBeUndefined();
    expect(runSpreadOf([1, 0])).toBeUndefined();
    expect(runSpreadOf([1, Number.POSITIVE_INFINITY])).toBeUndefined();
    expect(runSpreadOf([2, 2, 2])).toEqual({ sd: 0, df: 2 });
  });

  it('the floor of a 3% spread over 5 runs is +12.5% (t on 4 df), and 0 for no spread', () => {
    close(noiseFloorOf({ sd: 0.03, df: 4 }), 0.12501299836139532, 1e-9);
    expect(noiseFloorOf({ sd: 0, df: 4 })).toBe(0);
  });

  it('spreadOfNoiseFloor inverts the floor of a known spread (df = ∞)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 0.5, noNaN: true }), (sd) => {
        const floor = noiseFloorOf({ sd, df: Number.POSITIVE_INFINITY });
        expect(spreadOfNoiseFloor(floor)).toBeCloseTo(sd, 10);
      }),
    );
    expect(spreadOfNoiseFloor(0)).toBe(0);
    expect(() => spreadOfNoiseFloor(-0.01)).toThrow(DantinoxError);
    expect(() => noiseFloorOf({ sd: 0.1, df: 3 }, 0)).toThrow(DantinoxError);
  });
});

describe('runsPerSideNeeded', () => {
  it('known answers: σ 3%, 5% change, α 0.05, 80% power → 6 (2·2.8016²·0.03²/ln(1.05)² = 5.93)', () => {
    expect(runsPerSideNeeded({ spread: 0.03, change: 0.05 })).toBe(6);
    // 90% power: 2·(1.95996 + 1.28155)²·0.03²/ln(1.05)² = 7.95 → 8.
    expect(runsPerSideNeeded({ spread: 0.03, change: 0.05, power: 0.9 })).toBe(8);
    // 10% change: 2·7.849·0.0009/0.009085 = 1.56 → at least 2.
    expect(runsPerSideNeeded({ spread: 0.03, change: 0.1 })).toBe(2);
    expect(runsPerSideNeeded({ spread: 0, change: 0.05 })).toBe(2);
  });

  it('an exact integer is not rounded up: σ chosen so the formula gives 10', () => {
    const z = 1.959963984540054 + 0.8416212335729143;
    const spread = Math.sqrt((10 * Math.log1p(0.05) ** 2) / (2 * z * z));
    expect(runsPerSideNeeded({ spread, change: 0.05 })).toBe(10);
    expect(runsPerSideNeeded({ spread: spread * 1.01, change: 0.05 })).toBe(11);
  });

  it('grows with the spread and the power, shrinks with the change and α', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.2, noNaN: true }),
        fc.double({ min: 0.01, max: 0.5, noNaN: true }),
        (spread, change) => {
          const n = runsPerSideNeeded({ spread, change });
          expect(Number.isInteger(n)).toBe(true);
          expect(n).toBeGreaterThanOrEqual(2);
          expect(runsPerSideNeeded({ spread: spread * 2, change })).toBeGreaterThanOrEqual(n);
          expect(runsPerSideNeeded({ spread, change: change * 2 })).toBeLessThanOrEqual(n);
          expect(runsPerSideNeeded({ spread, change, power: 0.9 })).toBeGreaterThanOrEqual(n);
          expect(runsPerSideNeeded({ spread, change, alpha: 0.1 })).toBeLessThanOrEqual(n);
        },
      ),
    );
  });

  it('refuses a change that is not > 0 and out-of-range options', () => {
    expect(() => runsPerSideNeeded({ spread: 0.03, change: 0 })).toThrow(DantinoxError);
    expect(() => runsPerSideNeeded({ spread: -0.03, change: 0.05 })).toThrow(DantinoxError);
    expect(() => runsPerSideNeeded({ spread: 0.03, change: 0.05, power: 1 })).toThrow(DantinoxError);
  });
});

describe('run-level options: every bound refused by name, its inside accepted', () => {
  it('alpha in (0, 1) for the noise floor, its inverse and the run count', () => {
    for (const alpha of [0, 1, -0.1, 1.1, Number.NaN]) {
      const refused = /`alpha` must be a number in \(0, 1\)/;
      expect(() => noiseFloorOf({ sd: 0.03, df: 4 }, alpha)).toThrow(refused);
      expect(() => spreadOfNoiseFloor(0.1, alpha)).toThrow(refused);
      expect(() => runsPerSideNeeded({ spread: 0.03, change: 0.05, alpha })).toThrow(refused);
    }
    expect(spreadOfNoiseFloor(0.1, 0.5)).toBeGreaterThan(0);
  });

  it('a noise floor ≥ 0 and finite', () => {
    for (const floor of [-0.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => spreadOfNoiseFloor(floor)).toThrow(/`noiseFloor` must be a fraction ≥ 0/);
    }
  });

  it('power in (0, 1), spread ≥ 0 and finite, change > 0 and finite', () => {
    for (const power of [0, 1, -0.2, 1.2, Number.NaN]) {
      expect(() => runsPerSideNeeded({ spread: 0.03, change: 0.05, power })).toThrow(
        /`power` must be a number in \(0, 1\)/,
      );
    }
    for (const spread of [-0.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => runsPerSideNeeded({ spread, change: 0.05 })).toThrow(/`spread` must be a number ≥ 0/);
    }
    for (const change of [0, -0.05, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => runsPerSideNeeded({ spread: 0.03, change })).toThrow(/`change` must be a fraction > 0/);
    }
    expect(runsPerSideNeeded({ spread: 0.03, change: 0.05, power: 0.5 })).toBeGreaterThanOrEqual(2);
  });
});

describe('relativeChange', () => {
  it('is exactly 0 for equal values, ±∞ from a zero baseline', () => {
    expect(relativeChange(3, 3)).toBe(0);
    expect(relativeChange(0, 0)).toBe(0);
    expect(relativeChange(2, 3)).toBeCloseTo(0.5, 15);
    expect(relativeChange(0, 1)).toBe(Number.POSITIVE_INFINITY);
  });
});
