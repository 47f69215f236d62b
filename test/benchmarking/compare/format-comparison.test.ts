import { describe, expect, it } from 'vitest';
import { compareReports, formatComparisons } from '../../../src/benchmarking/index.js';
import { expectGolden } from '../../golden.js';
import { fakeRun } from './fake-runs.js';

const comparison = () =>
  compareReports(
    fakeRun({ seed: 1, runId: 'main' }),
    fakeRun({ seed: 2, slowdown: 1.1, runId: 'pr-42', perplexity: 12.4 }),
    {
      resamples: 200,
    },
  );

describe('formatComparisons', () => {
  it('writes the markdown of a 10% slowdown as in the golden file (UPDATE_GOLDEN=1 to regenerate)', () => {
    expectGolden('benchmarking/compare.md', formatComparisons([comparison()], 'markdown'));
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
    const c = comparison();
    const parsed = JSON.parse(formatComparisons([c, c], 'json'));
    expect(parsed.format).toBe('dantinox-comparison');
    expect(parsed.comparisons).toHaveLength(2);
    const ppl = parsed.comparisons[0].rows.find((r: { metric: string }) => r.metric === 'perplexity');
    expect(ppl.changeCi).toEqual([null, null]);
    expect(ppl.pValue).toBeNull();
    expect(ppl.verdict).toBe('within noise');
  });
});
