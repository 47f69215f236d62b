import { describe, expect, it } from 'vitest';
import { fdrRejected } from '../../../src/benchmarking/compare/familywise.js';

const row = (pValue: number, verdict: 'regressed' | 'improved' | 'inconclusive' = 'regressed') => ({
  pValue,
  verdict,
});
const sorted = (s: Set<number>): number[] => [...s].sort((a, b) => a - b);

describe('fdrRejected (Benjamini–Hochberg)', () => {
  it('keeps every row up to the largest rank k with p ≤ k·α/m, and demotes those above it', () => {
    // m = 4 tested: bounds 0.0125, 0.025, 0.0375, 0.05; 0.03 ≤ 0.0375 at rank 3, so ranks 1–3 stay, 0.2 goes.
    expect(sorted(fdrRejected([row(0.2), row(0.01), row(0.03), row(0.03), row(Number.NaN)], 0.05))).toEqual([
      0,
    ]);
    // Step-up: a rank that fails its bound (0.02 > 0.0125) is kept when a later rank passes (0.04 ≤ 0.05).
    expect(fdrRejected([row(0.02), row(0.04)], 0.05).size).toBe(0);
  });

  it('keeps a p-value exactly at its bound, and demotes one just above', () => {
    expect(fdrRejected([row(0.025), row(0.5)], 0.05).size).toBe(1);
    expect(sorted(fdrRejected([row(0.025), row(0.5)], 0.05))).toEqual([1]);
    expect(sorted(fdrRejected([row(0.0251), row(0.5, 'improved')], 0.05))).toEqual([0, 1]);
  });

  it('counts every tested row in m, and only demotes decided verdicts', () => {
    // Ten tested rows: 0.01 > 0.05/10 and no later rank passes, so nothing survives; inconclusive rows stay as they are.
    const rows = [row(0.01, 'improved'), ...Array.from({ length: 9 }, () => row(0.5, 'inconclusive'))];
    expect([...fdrRejected(rows, 0.05)]).toEqual([0]);
    expect(fdrRejected([row(0.005, 'improved'), ...rows.slice(1)], 0.05).size).toBe(0);
    expect(fdrRejected([], 0.05).size).toBe(0);
  });
});
