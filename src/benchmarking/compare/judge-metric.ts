/**
 * The decision rule of a comparison, for one metric: from the metric's per-run values on each side (and, with one
 * run per side, a noise floor or the spread of earlier runs), a verdict, the method that decided it, and when
 * the data cannot decide, how many runs per side would. Pure: no I/O, no randomness.
 *
 * @packageDocumentation
 */
import {
  type Interval,
  noiseFloorOf,
  type RunSpread,
  runLevelTest,
  runsPerSideNeeded,
  spreadOfNoiseFloor,
} from '../../profiling/index.js';

/**
 * What a comparison concludes about one metric:
 * - `improved` / `regressed`: the change is significant (see {@link ComparisonMethod}) and larger than the
 *   threshold, in the good / bad direction of the metric;
 * - `inconclusive`: not significant, but the uncertainty still allows a change beyond the threshold (too few
 *   runs, or one run per side without a noise floor): more runs per side are needed;
 * - `within noise`: significant but not larger than the threshold;
 * - `no significant change`: not significant, and the interval of the change lies within ±threshold;
 * - `not judged`: the metric has no better direction (a count, a spread) or is a single observation (the cold
 *   first call), so it never gates.
 */
export type Verdict =
  | 'improved'
  | 'regressed'
  | 'inconclusive'
  | 'within noise'
  | 'no significant change'
  | 'not judged';

/** Every {@link Verdict}, in the order reports list them. */
export const VERDICTS: readonly Verdict[] = [
  'regressed',
  'improved',
  'inconclusive',
  'within noise',
  'no significant change',
  'not judged',
];

/**
 * The method that decided a metric's verdict:
 * - `welch`: Welch's t-test on the per-run values (their logs when all are > 0), both sides with ≥ 2 runs;
 * - `pooled`: Student's t-test on the per-run values, spread pooled, one side with a single run;
 * - `earlier-runs`: one run per side, t-test with the run-to-run spread of earlier runs of the baseline's variant;
 * - `noise-floor`: one run per side and a given noise floor: significant when |change| exceeds the floor and the
 *   interval excludes 0 — the per-call bootstrap interval of the change (sampling noise within the runs) widened
 *   by the floor on each side (drift between runs), or change ± floor without per-call samples — and, with
 *   per-call samples, the Mann–Whitney U test on them rejects at α;
 * - `none`: nothing could test (one run per side, no floor, no earlier runs), or the metric is not judged.
 */
export type ComparisonMethod = 'welch' | 'pooled' | 'earlier-runs' | 'noise-floor' | 'none';

/** Short names of the {@link ComparisonMethod}s for table columns. */
export const METHOD_LABELS: Readonly<Record<ComparisonMethod, string>> = {
  welch: 'welch',
  pooled: 'pooled t',
  'earlier-runs': 'earlier runs',
  'noise-floor': 'noise floor',
  none: '—',
};

/** What each {@link ComparisonMethod} does, as printed under a comparison. */
export const METHOD_DESCRIPTIONS: Readonly<Record<ComparisonMethod, string>> = {
  welch:
    "Welch's t-test on per-run values (their logs when all are > 0), two-sided; interval: t interval of the ratio of geometric means",
  pooled:
    "Student's t-test on per-run values with the spread pooled over both sides (one side has a single run); interval: t interval",
  'earlier-runs':
    'one run per side: t-test with the run-to-run spread of earlier runs of the baseline; interval: t interval',
  'noise-floor':
    'one run per side: significant when |change| exceeds the noise floor, the interval excludes 0 and the Mann–Whitney U test on per-call samples (when recorded) rejects; interval: per-call bootstrap interval widened by the floor (change ± floor without samples)',
  none: 'not tested: no better direction (counts, spreads, single observations), or one run per side without a noise floor',
};

/** The test of the per-call samples of two single runs, used only by `noise-floor`. */
export interface CallEvidence {
  /** Two-sided Mann–Whitney U p-value of the two runs' per-call samples. */
  readonly pValue: number;
  /** Bootstrap interval of the metric's relative change from the per-call samples. */
  readonly ci: Interval;
}

/** One metric to judge. */
export interface JudgeInput {
  /** The metric's value in each baseline run (finite). */
  readonly baseline: readonly number[];
  /** The metric's value in each candidate run (finite). */
  readonly candidate: readonly number[];
  /** Direction from the metric descriptor; `null` when neither direction is better (then `not judged`). */
  readonly higherIsBetter: boolean | null;
  /** The per-call test of the two runs, when there is one run per side and both recorded samples. */
  readonly calls?: CallEvidence;
  /** Run-to-run spread of this metric in earlier runs of the baseline's variant. */
  readonly earlierSpread?: RunSpread;
}

/** The settings every metric of a comparison is judged with. */
export interface JudgeSettings {
  /** Smallest relative change that counts (fraction ≥ 0). */
  readonly threshold: number;
  /** Significance level, in (0, 1). */
  readonly alpha: number;
  /** Coverage of the intervals, in (0, 1). */
  readonly confidence: number;
  /** Power the runs-per-side estimate aims at, in (0, 1). */
  readonly power: number;
  /** Noise floor of one run per side (fraction ≥ 0), `null` when none was given. */
  readonly noiseFloor: number | null;
}

/** Fields of a {@link Judgement} whatever its verdict. */
interface JudgementBase {
  /** The method that decided. */
  readonly method: ComparisonMethod;
  /** Centre of the baseline's per-run values: the value for one run, else the geometric mean (arithmetic when a value is ≤ 0). */
  readonly baseline: number;
  /** Centre of the candidate's per-run values, like `baseline`. */
  readonly candidate: number;
  /** Relative change `candidate / baseline − 1` (0.05 = +5%); 0 when equal, ±∞ from a zero baseline. */
  readonly change: number;
  /** Interval of `change` (see the method); `[NaN, NaN]` when none. */
  readonly changeCi: Interval;
  /** Two-sided p-value of the method's test; `NaN` when it has none. */
  readonly pValue: number;
  /** The noise floor used (given, or learned from earlier runs), a fraction; `null` when none. */
  readonly noiseFloor: number | null;
}

/** A metric the data decided (or that is not judged). */
export interface DecidedJudgement extends JudgementBase {
  /** The conclusion. */
  readonly verdict: Exclude<Verdict, 'inconclusive'>;
  /** Always `null`: enough runs. */
  readonly runsNeeded: null;
}

/** A metric the data could not decide. */
export interface InconclusiveJudgement extends JudgementBase {
  /** The conclusion. */
  readonly verdict: 'inconclusive';
  /**
   * Estimated runs per side to decide: {@link runsPerSideNeeded} (n = ⌈2·(z_{1−α/2} + z_{power})²·σ² /
   * ln(1 + δ)²⌉, normal approximation of a two-sided test) with δ the threshold (the observed |change| when the
   * threshold is 0) and σ the run-to-run spread: pooled over the compared runs; implied by the noise floor
   * (ln(1 + floor)/(z_{1−α/2}·√2)); or, with one run per side and nothing else, |ln(1 + change)|/√2 (the only
   * observed difference between runs, a rough first guess). Never fewer than one more than the runs compared.
   * `null` when it cannot be estimated (no threshold and no change, or an unbounded spread).
   */
  readonly runsNeeded: number | null;
}

/** The verdict on one metric: a union on `verdict`. */
export type Judgement = DecidedJudgement | InconclusiveJudgement;

const NO_CI: Interval = [Number.NaN, Number.NaN];

const excludesZero = (ci: Interval): boolean => ci[0] > 0 || ci[1] < 0;

/**
 * Judges one metric from its per-run values:
 * 1. no better direction → `not judged`;
 * 2. several runs on a side (or one run per side with earlier runs and no given floor): a t-test on the per-run
 *    values ({@link runLevelTest}); significant when p < α and the interval excludes 0;
 * 3. one run per side with a noise floor: significant when |change| > floor (strictly), the interval — the
 *    per-call bootstrap interval widened by the floor on each side, or change ± floor without per-call
 *    samples — excludes 0, and the per-call Mann–Whitney p-value, if any, is below α;
 * 4. one run per side and nothing else: `inconclusive`.
 *
 * Significant and |change| > threshold (strictly) → `regressed` / `improved` by direction; significant and not
 * beyond → `within noise`; not significant with the interval inside [−threshold, +threshold] → `no significant
 * change`; otherwise `inconclusive` with {@link InconclusiveJudgement.runsNeeded}.
 */
export function judgeMetric(input: JudgeInput, settings: JudgeSettings): Judgement {
  const { threshold, alpha, confidence } = settings;
  const nb = input.baseline.length;
  const nc = input.candidate.length;
  const single = nb === 1 && nc === 1;
  const earlier = single && settings.noiseFloor === null ? input.earlierSpread : undefined;
  const test = runLevelTest(input.baseline, input.candidate, {
    confidence,
    ...(earlier === undefined ? {} : { earlierSpread: earlier }),
  });
  const { baseline, candidate, change } = test;
  const base = { baseline, candidate, change };
  const plan = (spread: number): number | null => {
    const delta = threshold > 0 ? threshold : Math.abs(change);
    if (!(delta > 0 && Number.isFinite(delta)) || !Number.isFinite(spread)) return null;
    const n = runsPerSideNeeded({ spread, change: delta, alpha, power: settings.power });
    return Math.max(n, Math.max(nb, nc) + 1);
  };
  const conclude = (
    significant: boolean,
    rest: Omit<JudgementBase, 'baseline' | 'candidate' | 'change'>,
    spread: number,
  ): Judgement => {
    const all = { ...base, ...rest };
    if (significant) {
      if (!(Math.abs(change) > threshold)) return { ...all, verdict: 'within noise', runsNeeded: null };
      const better = input.higherIsBetter === change > 0;
      return { ...all, verdict: better ? 'improved' : 'regressed', runsNeeded: null };
    }
    const [lo, hi] = rest.changeCi;
    if (lo >= -threshold && hi <= threshold)
      return { ...all, verdict: 'no significant change', runsNeeded: null };
    return { ...all, verdict: 'inconclusive', runsNeeded: plan(spread) };
  };
  if (input.higherIsBetter === null) {
    return {
      ...base,
      method: 'none',
      changeCi: NO_CI,
      pValue: Number.NaN,
      noiseFloor: null,
      verdict: 'not judged',
      runsNeeded: null,
    };
  }
  if (test.status === 'tested') {
    const significant = test.pValue < alpha && excludesZero(test.changeCi);
    const floor = earlier === undefined ? null : noiseFloorOf(earlier, alpha);
    return conclude(
      significant,
      { method: test.method, changeCi: test.changeCi, pValue: test.pValue, noiseFloor: floor },
      test.spread,
    );
  }
  if (settings.noiseFloor !== null && single) {
    const floor = settings.noiseFloor;
    const calls = input.calls;
    // The interval: the per-call interval of the change (sampling noise within the runs) widened by the floor
    // (drift between runs); the point change ± floor without per-call samples.
    const band: Interval =
      calls === undefined ? [change - floor, change + floor] : [calls.ci[0] - floor, calls.ci[1] + floor];
    const callsAgree = calls === undefined || calls.pValue < alpha;
    const significant = excludesZero(band) && Math.abs(change) > floor && callsAgree;
    return conclude(
      significant,
      {
        method: 'noise-floor',
        changeCi: band,
        pValue: calls?.pValue ?? Number.NaN,
        noiseFloor: floor,
      },
      spreadOfNoiseFloor(floor, alpha),
    );
  }
  // A side without runs has no change (NaN), hence no spread and no estimate.
  const observed = Math.abs(Math.log1p(change)) / Math.SQRT2;
  return {
    ...base,
    method: 'none',
    changeCi: NO_CI,
    pValue: Number.NaN,
    noiseFloor: null,
    verdict: 'inconclusive',
    runsNeeded: plan(observed),
  };
}
