import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JudgeSettings, judgeMetric } from '../../../src/benchmarking/index.js';
import { noiseFloorOf } from '../../../src/profiling/index.js';

const settings: JudgeSettings = {
  threshold: 0.05,
  alpha: 0.05,
  confidence: 0.95,
  power: 0.8,
  noiseFloor: null,
};
const lower = { higherIsBetter: false } as const;

// Expected p-values, intervals and changes from SciPy 1.17 (ttest_ind(equal_var=False) on the logs).
describe('judgeMetric: several runs per side (Welch on the logs of per-run values)', () => {
  it('regressed: significant and beyond the threshold, in the bad direction', () => {
    const j = judgeMetric({ baseline: [100, 101, 99], candidate: [110, 111, 109.5], ...lower }, settings);
    expect(j.verdict).toBe('regressed');
    expect(j.method).toBe('welch');
    expect(j.pValue).toBeCloseTo(0.00032316555997024773, 10);
    expect(j.change).toBeCloseTo(0.10168576587298994, 12);
    expect(j.runsNeeded).toBeNull();
    // The same numbers for a higher-is-better metric are an improvement.
    expect(
      judgeMetric({ baseline: [100, 101, 99], candidate: [110, 111, 109.5], higherIsBetter: true }, settings)
        .verdict,
    ).toBe('improved');
  });

  it('within noise: significant but not beyond the threshold', () => {
    const j = judgeMetric(
      { baseline: [100, 100.2, 99.9, 100.1], candidate: [103, 103.1, 102.9, 103.2], ...lower },
      settings,
    );
    expect(j.pValue).toBeCloseTo(5.34960619191796e-8, 12);
    expect(j.change).toBeCloseTo(0.029985044395097527, 12);
    expect(j.verdict).toBe('within noise');
  });

  it('no significant change: not significant, interval within ±threshold', () => {
    const j = judgeMetric(
      { baseline: [100, 100.5, 99.5], candidate: [100.2, 99.8, 100.4], ...lower },
      settings,
    );
    expect(j.pValue).toBeCloseTo(0.7166093315566758, 10);
    expect(j.changeCi[0]).toBeCloseTo(-0.008839905626472525, 10);
    expect(j.changeCi[1]).toBeCloseTo(0.011621568850669301, 10);
    expect(j.verdict).toBe('no significant change');
  });

  it('inconclusive: not significant but the interval reaches beyond the threshold; runs needed from the pooled spread', () => {
    const j = judgeMetric({ baseline: [100, 106, 97], candidate: [104, 99, 108], ...lower }, settings);
    expect(j.pValue).toBeCloseTo(0.5109908425225089, 10);
    expect(j.changeCi[0]).toBeCloseTo(-0.07179995895500685, 10);
    expect(j.changeCi[1]).toBeCloseTo(0.13510196793253387, 10);
    expect(j.verdict).toBe('inconclusive');
    // Pooled SD of the logs 0.044365: 2·(1.96 + 0.8416)²·0.044365²/ln(1.05)² = 12.98 → 13.
    expect(j.runsNeeded).toBe(13);
    expect(
      judgeMetric(
        { baseline: [100, 106, 97], candidate: [104, 99, 108], ...lower },
        { ...settings, power: 0.9 },
      ).runsNeeded,
    ).toBeGreaterThan(13);
  });

  it('never asks for fewer runs than one more than it had', () => {
    // Tiny spread but 2 vs 2 runs and a change straddling the threshold: the formula says 2, the answer is 3.
    const j = judgeMetric({ baseline: [100, 100], candidate: [104, 106.5], ...lower }, settings);
    expect(j.verdict).toBe('inconclusive');
    expect(j.runsNeeded).toBe(3);
  });

  it('ties: constant equal sides → no significant change; constant different sides → decided exactly at the threshold', () => {
    const same = judgeMetric({ baseline: [7, 7, 7], candidate: [7, 7], ...lower }, settings);
    expect(same).toMatchObject({ verdict: 'no significant change', pValue: 1, change: 0, changeCi: [0, 0] });
    // 1 → 1.5 is exactly +50%: with threshold 50% it is not beyond (strictly), so within noise.
    const at = judgeMetric(
      { baseline: [1, 1], candidate: [1.5, 1.5], ...lower },
      { ...settings, threshold: 0.5 },
    );
    expect(at.change).toBe(0.5);
    expect(at.pValue).toBe(0);
    expect(at.verdict).toBe('within noise');
    const beyond = judgeMetric(
      { baseline: [1, 1], candidate: [1.5, 1.5], ...lower },
      { ...settings, threshold: 0.4999 },
    );
    expect(beyond.verdict).toBe('regressed');
  });

  it('one side with a single run: Student t with the spread pooled from the other side', () => {
    const j = judgeMetric({ baseline: [10], candidate: [11, 11.4, 10.9, 11.2], ...lower }, settings);
    expect(j.method).toBe('pooled');
    expect(j.pValue).toBeCloseTo(0.017324114769423887, 10);
    expect(j.verdict).toBe('regressed');
  });

  it('not judged: no better direction, whatever the change', () => {
    const j = judgeMetric({ baseline: [1, 1], candidate: [9, 9], higherIsBetter: null }, settings);
    expect(j).toMatchObject({ verdict: 'not judged', method: 'none', runsNeeded: null });
    expect(j.pValue).toBeNaN();
  });
});

describe('judgeMetric: one run per side', () => {
  it('without a noise floor or earlier runs: inconclusive, never regressed, runs needed from the observed change', () => {
    const j = judgeMetric({ baseline: [100], candidate: [110], ...lower }, settings);
    expect(j.verdict).toBe('inconclusive');
    expect(j.method).toBe('none');
    expect(j.pValue).toBeNaN();
    expect(j.changeCi.every(Number.isNaN)).toBe(true);
    // σ = ln(1.1)/√2 = 0.0674: 2·7.849·0.0674²/ln(1.05)² = 29.95 → 30.
    expect(j.runsNeeded).toBe(30);
    // Even a 50% change of a metric with per-call samples that agree is not a regression without a floor.
    const huge = judgeMetric(
      { baseline: [100], candidate: [150], ...lower, calls: { pValue: 1e-9, ci: [0.4, 0.6] } },
      settings,
    );
    expect(huge.verdict).toBe('inconclusive');
  });

  it('identical single runs: inconclusive with the minimum of 2 runs; no estimate when threshold and change are 0', () => {
    expect(judgeMetric({ baseline: [5], candidate: [5], ...lower }, settings).runsNeeded).toBe(2);
    expect(
      judgeMetric({ baseline: [5], candidate: [5], ...lower }, { ...settings, threshold: 0 }).runsNeeded,
    ).toBeNull();
  });

  it('with a noise floor: regressed only beyond the floor (strictly) and the threshold', () => {
    const floor = { ...settings, noiseFloor: 0.03 };
    const j = judgeMetric({ baseline: [100], candidate: [110], ...lower }, floor);
    expect(j).toMatchObject({ verdict: 'regressed', method: 'noise-floor', noiseFloor: 0.03 });
    expect(j.changeCi[0]).toBeCloseTo(0.07, 12);
    expect(j.changeCi[1]).toBeCloseTo(0.13, 12);
    expect(j.pValue).toBeNaN(); // no per-call samples
    // Beyond the floor but not the threshold: within noise.
    expect(judgeMetric({ baseline: [100], candidate: [104], ...lower }, floor).verdict).toBe('within noise');
    // Inside the floor, band [−2%, +4%] within ±5%: no significant change.
    expect(judgeMetric({ baseline: [100], candidate: [101], ...lower }, floor).verdict).toBe(
      'no significant change',
    );
    // Inside the floor, band [−0.5%, +5.5%] reaches beyond 5%: inconclusive; σ = ln(1.03)/(1.96·√2) → n = 0.75 → 2.
    const band = judgeMetric({ baseline: [100], candidate: [102.5], ...lower }, floor);
    expect(band.verdict).toBe('inconclusive');
    expect(band.runsNeeded).toBe(2);
  });

  it('the noise-floor boundary exactly at the threshold: a change equal to both is not a regression', () => {
    const edge = { ...settings, threshold: 0.5, noiseFloor: 0.5 };
    const at = judgeMetric({ baseline: [1], candidate: [1.5], ...lower }, edge);
    expect(at.change).toBe(0.5);
    expect(at.verdict).toBe('inconclusive'); // band [0, 100%] reaches beyond +50%
    // σ = ln(1.5)/(1.96·√2) = 0.1463: 2·7.849·0.1463²/ln(1.5)² = 2.04 → 3.
    expect(at.runsNeeded).toBe(3);
    expect(judgeMetric({ baseline: [1], candidate: [1.5000001], ...lower }, edge).verdict).toBe('regressed');
    expect(judgeMetric({ baseline: [1], candidate: [0.4999999], ...lower }, edge).verdict).toBe('improved');
    // A floor of 0 with a threshold of 0: an exact tie is no change, any difference is decided.
    const zero = { ...settings, threshold: 0, noiseFloor: 0 };
    expect(judgeMetric({ baseline: [3], candidate: [3], ...lower }, zero).verdict).toBe(
      'no significant change',
    );
    expect(judgeMetric({ baseline: [3], candidate: [3.0001], ...lower }, zero).verdict).toBe('regressed');
  });

  it('with a noise floor and per-call samples: both must agree', () => {
    const floor = { ...settings, noiseFloor: 0.03 };
    const agree = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 0.001, ci: [0.05, 0.15] } },
      floor,
    );
    expect(agree).toMatchObject({ verdict: 'regressed', pValue: 0.001 });
    const noisyCalls = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 0.3, ci: [-0.02, 0.2] } },
      floor,
    );
    expect(noisyCalls.verdict).toBe('inconclusive');
    // p below α but the interval holds 0: not significant either.
    const ciHasZero = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 0.01, ci: [-0.01, 0.2] } },
      floor,
    );
    expect(ciHasZero.verdict).toBe('inconclusive');
    // The per-call interval widened by the floor: [2% − 3%, 12% + 3%] holds 0, so a 10% change is not enough.
    const widened = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 0.001, ci: [0.02, 0.12] } },
      floor,
    );
    expect(widened.changeCi[0]).toBeCloseTo(-0.01, 12);
    expect(widened.changeCi[1]).toBeCloseTo(0.15, 12);
    expect(widened.verdict).toBe('inconclusive');
    // p exactly α is not below it.
    const atAlpha = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 0.05, ci: [0.05, 0.15] } },
      floor,
    );
    expect(atAlpha.verdict).toBe('inconclusive');
  });

  it('with earlier runs: a t-test with their spread, and the floor it implies; a given floor wins', () => {
    const earlierSpread = { sd: 0.03, df: 4 };
    const j = judgeMetric({ baseline: [100], candidate: [110], ...lower, earlierSpread }, settings);
    expect(j.method).toBe('earlier-runs');
    expect(j.noiseFloor).toBeCloseTo(noiseFloorOf(earlierSpread), 12); // +12.5%
    expect(j.pValue).toBeCloseTo(0.08798737345088806, 8);
    expect(j.verdict).toBe('inconclusive');
    const big = judgeMetric({ baseline: [100], candidate: [115], ...lower, earlierSpread }, settings);
    expect(big.verdict).toBe('regressed');
    const given = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, earlierSpread },
      { ...settings, noiseFloor: 0.03 },
    );
    expect(given.method).toBe('noise-floor');
    // Several runs on a side: the runs decide, earlier runs are not used.
    expect(
      judgeMetric({ baseline: [100, 101], candidate: [110, 111], ...lower, earlierSpread }, settings).method,
    ).toBe('welch');
  });
});

describe('judgeMetric: properties', () => {
  const runs = fc.array(fc.double({ min: 0.5, max: 2, noNaN: true }), { minLength: 1, maxLength: 6 });
  const maybeFloor = fc.option(fc.double({ min: 0, max: 0.2, noNaN: true }), { nil: null });

  it('a decided verdict needs a method and a change beyond the threshold; directions mirror', () => {
    fc.assert(
      fc.property(
        runs,
        runs,
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        maybeFloor,
        (a, b, threshold, noiseFloor) => {
          const s = { ...settings, threshold, noiseFloor };
          const worse = judgeMetric({ baseline: a, candidate: b, higherIsBetter: false }, s);
          const better = judgeMetric({ baseline: a, candidate: b, higherIsBetter: true }, s);
          if (worse.verdict === 'regressed' || worse.verdict === 'improved') {
            expect(Math.abs(worse.change)).toBeGreaterThan(threshold);
            expect(worse.method).not.toBe('none');
          }
          const mirror: Record<string, string> = { regressed: 'improved', improved: 'regressed' };
          expect(better.verdict).toBe(mirror[worse.verdict] ?? worse.verdict);
          if (worse.verdict === 'inconclusive' && worse.runsNeeded !== null)
            expect(worse.runsNeeded).toBeGreaterThan(Math.max(a.length, b.length));
          if (worse.verdict !== 'inconclusive') expect(worse.runsNeeded).toBeNull();
        },
      ),
    );
  });

  it('one run per side and no noise floor never decides, whatever the change', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        (x, y) => {
          expect(judgeMetric({ baseline: [x], candidate: [y], ...lower }, settings).verdict).toBe(
            'inconclusive',
          );
        },
      ),
    );
  });
});

describe('judgeMetric at its boundaries', () => {
  const floor = { ...settings, noiseFloor: 0.02 };

  it('an interval that touches 0 does not exclude it (noise floor: band edge exactly 0)', () => {
    // Per-call interval [0.02, 0.3] widened by the 0.02 floor starts exactly at 0: not significant.
    const up = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 1e-6, ci: [0.02, 0.3] } },
      floor,
    );
    expect(up.changeCi[0]).toBe(0);
    expect(up.verdict).toBe('inconclusive');
    const down = judgeMetric(
      { baseline: [100], candidate: [80], ...lower, calls: { pValue: 1e-6, ci: [-0.3, -0.02] } },
      floor,
    );
    expect(down.changeCi[1]).toBe(0);
    expect(down.verdict).toBe('inconclusive');
    // Just inside: decided.
    const inside = judgeMetric(
      { baseline: [100], candidate: [80], ...lower, calls: { pValue: 1e-6, ci: [-0.3, -0.021] } },
      floor,
    );
    expect(inside.verdict).toBe('improved');
  });

  it('noise floor: a band that holds 0 is not significant even when the change beats the floor and the calls agree', () => {
    const j = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 0.001, ci: [-0.01, 0.3] } },
      floor,
    );
    expect(j.verdict).toBe('inconclusive');
    // A change exactly equal to the floor is not beyond it, even with a band clear of 0.
    const change = 110 / 100 - 1;
    const at = judgeMetric(
      { baseline: [100], candidate: [110], ...lower, calls: { pValue: 0.001, ci: [0.08, 0.15] } },
      { ...settings, noiseFloor: change },
    );
    expect(at.change).toBe(change);
    expect(at.verdict).toBe('inconclusive');
  });

  it('an interval reaching below −threshold with its top inside +threshold is inconclusive, not "no change"', () => {
    const j = judgeMetric(
      { baseline: [100], candidate: [97], ...lower, calls: { pValue: 0.5, ci: [-0.07, 0] } },
      { ...settings, noiseFloor: 0.01 },
    );
    expect(j.changeCi).toEqual([-0.08, 0.01]);
    expect(j.verdict).toBe('inconclusive');
  });

  it('a run-level test needs both p < α and an interval clear of 0 (they part when confidence ≠ 1 − α)', () => {
    const input = { baseline: [100, 103, 98], candidate: [104, 101, 107], ...lower };
    const narrow = { ...settings, confidence: 0.5 };
    const j = judgeMetric(input, narrow);
    expect(j.method).toBe('welch');
    expect(j.pValue).toBeGreaterThan(0.05); // not significant…
    expect(j.changeCi[0]).toBeGreaterThan(0); // …although the 50% interval excludes 0
    expect(j.verdict).toBe('inconclusive');
    // p exactly α is not below α.
    expect(judgeMetric(input, { ...narrow, alpha: j.pValue }).verdict).toBe('inconclusive');
    expect(judgeMetric(input, { ...narrow, alpha: j.pValue * 1.0001 }).verdict).toBe('within noise');
  });

  it('uneven sides: never fewer runs than one more than the larger side', () => {
    const j = judgeMetric(
      { baseline: [100, 100], candidate: [102, 108, 102, 108], ...lower },
      { ...settings, power: 0.2 },
    );
    expect(j.verdict).toBe('inconclusive');
    expect(j.runsNeeded).toBe(5);
  });

  it('a side without runs: inconclusive and no estimate, with or without a noise floor; earlier runs are for single runs only', () => {
    for (const noiseFloor of [null, 0.02]) {
      const j = judgeMetric({ baseline: [100], candidate: [], ...lower }, { ...settings, noiseFloor });
      expect(j).toMatchObject({
        verdict: 'inconclusive',
        method: 'none',
        runsNeeded: null,
        noiseFloor: null,
      });
    }
    // One run against four with earlier runs recorded: the pooled t-test of the runs, not the earlier spread.
    const earlierSpread = { sd: 0.001, df: 9 };
    const j = judgeMetric(
      { baseline: [10], candidate: [11, 11.4, 10.9, 11.2], ...lower, earlierSpread },
      settings,
    );
    expect(j.method).toBe('pooled');
    expect(j.noiseFloor).toBeNull();
  });

  it('with threshold 0, runs needed come from the observed change', () => {
    // σ = ln(1.1)/√2 and δ = 0.1: n = 2·(1.96 + 0.8416)²·σ²/ln(1.1)² = 7.85 → 8.
    expect(
      judgeMetric({ baseline: [100], candidate: [110], ...lower }, { ...settings, threshold: 0 }).runsNeeded,
    ).toBe(8);
  });
});
