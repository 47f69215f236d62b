import { describe, expect, it } from 'vitest';
import { compareReports, comparisonRows, formatComparisons } from '../../../src/benchmarking/index.js';
import { expectGolden } from '../../golden.js';
import { fakeRun, fakeRuns } from './fake-runs.js';

/** A 10% slowdown measured 5 times on each side (drift 3% per run). */
const comparison = () =>
  compareReports(
    fakeRuns(5, 'main', { seed: 1, drift: 0.03, generation: true }),
    fakeRuns(5, 'pr-42', { seed: 11, drift: 0.03, generation: true, slowdown: 1.1, perplexity: 12.4 }),
    { baselineLabel: 'main', candidateLabel: 'pr-42' },
  );

describe('formatComparisons', () => {
  it('writes the markdown of a 10% slowdown as in the golden file (UPDATE_GOLDEN=1 to regenerate)', () => {
    expectGolden('benchmarking/compare.md', formatComparisons([comparison()], 'markdown'));
  });

  it('says which method decided each row, and how many runs an inconclusive row needs', () => {
    const text = formatComparisons([comparison()], 'text');
    const header = text.split('\n')[2] ?? '';
    expect(header.split(/\s{2,}/)).toEqual([
      'task',
      'cell',
      'metric',
      'baseline',
      'candidate',
      'change',
      '95% CI',
      'p',
      'runs',
      'method',
      'verdict',
    ]);
    expect(text).toMatch(/ 5\+5 +welch +regressed/);
    expect(text).toContain('Runs per side: 5 baseline, 5 candidate; threshold 5%, α = 0.05');
    expect(text).toContain("welch: Welch's t-test on per-run values");
    const one = formatComparisons(
      [compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, slowdown: 1.1 }))],
      'text',
    );
    expect(one).toMatch(/inconclusive: \d+ runs per side needed/);
    expect(one).toMatch(
      /\d+ metrics inconclusive: one run per side cannot tell a change from run-to-run drift without a noise floor; up to \d+ runs per side needed\./,
    );
    expect(one).toContain(
      '—: not tested: no better direction (counts, spreads, single observations), or one run per side without a noise floor.',
    );
  });

  it('colours regressed rows on request only', () => {
    const c = comparison();
    const plain = formatComparisons([c], 'text');
    expect(plain).not.toContain('\x1b[');
    expect(plain).toContain('pr-42 vs main (baseline):');
    const coloured = formatComparisons([c], 'text', { color: true });
    const red = coloured.split('\n').filter((l) => l.startsWith('\x1b[31m'));
    expect(red.length).toBeGreaterThan(0);
    expect(red.every((l) => l.includes(' regressed') && l.endsWith('\x1b[0m'))).toBe(true);
  });

  it('writes JSON with null for unavailable numbers and one entry per candidate', () => {
    const c = compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, perplexity: 12.4 }));
    const parsed = JSON.parse(formatComparisons([c, c], 'json'));
    expect(parsed.format).toBe('dantinox-comparison');
    expect(parsed.comparisons).toHaveLength(2);
    const ppl = parsed.comparisons[0].rows.find((r: { metric: string }) => r.metric === 'perplexity');
    expect(ppl.changeCi).toEqual([null, null]);
    expect(ppl.pValue).toBeNull();
    expect(ppl).toMatchObject({ verdict: 'inconclusive', method: 'none', runs: [1, 1] });
    expect(ppl.runsNeeded).toBeGreaterThanOrEqual(2);
  });

  it('gives chart rows the method, the runs and the runs needed', () => {
    const rows = comparisonRows([comparison()]);
    const ttft = rows.find((r) => r['metric'] === 'ttft_ms' && r['cell'] === null);
    expect(ttft).toMatchObject({
      method: 'welch',
      runs_baseline: 5,
      runs_candidate: 5,
      runs_needed: null,
      noise_floor: null,
    });
  });
});
