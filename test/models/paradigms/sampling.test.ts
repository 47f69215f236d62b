import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crossEntropy, logSoftmax, logSumExp } from '../../../src/models/paradigms/log-probs.js';
import { argmax, kthLargest, sampleToken } from '../../../src/models/paradigms/sampling.js';
import { Rng } from '../../../src/rng.js';

describe('log-probs', () => {
  it('log-sum-exp is stable for huge logits and exact for uniform ones', () => {
    expect(logSumExp([1000, 1000])).toBeCloseTo(1000 + Math.LN2, 9);
    expect(logSumExp(new Float32Array(7))).toBeCloseTo(Math.log(7), 14);
    expect(crossEntropy(Float32Array.from([3e38, 0]), 0, 2, 1)).toBe(3.0000000054977558e38);
    expect(Number.isFinite(crossEntropy(Float32Array.from([3e38, -3e38]), 0, 2, 1))).toBe(true);
    expect(logSumExp([Number.NaN, 1])).toBeNaN();
  });

  it('log-softmax exponentiates to a distribution', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (xs) => {
          const total = [...logSoftmax(xs)].reduce((a, b) => a + Math.exp(b), 0);
          expect(total).toBeCloseTo(1, 10);
        },
      ),
    );
  });
});

describe('sampling', () => {
  it('kthLargest agrees with sorting', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        (xs, k0) => {
          const k = (k0 % xs.length) + 1;
          const sorted = [...xs].sort((a, b) => b - a);
          expect(kthLargest(Float64Array.from(xs), k)).toBe(sorted[k - 1]);
        },
      ),
    );
  });

  it('argmax takes the first of equal maxima, within the given range', () => {
    expect(argmax(Float32Array.from([1, 3, 3, 2]))).toBe(1);
    expect(argmax(Float32Array.from([5, 5]))).toBe(0);
    // Offsets are relative to `from`: the row [3, 3, 0] starting at index 2.
    expect(argmax(Float32Array.from([9, 9, 3, 3, 0]), 2, 3)).toBe(0);
  });

  it('greedy, temperature 0, top-k 1 and a tiny top-p all pick the arg-max', () => {
    const logits = Float32Array.from([0.1, 2, -1, 1.9]);
    const rng = new Rng(0);
    expect(argmax(logits)).toBe(1);
    expect(sampleToken(logits, 0, 4, rng, { greedy: true })).toBe(1);
    expect(sampleToken(logits, 0, 4, rng, { temperature: 0 })).toBe(1);
    for (let i = 0; i < 20; i++) {
      expect(sampleToken(logits, 0, 4, rng, { topK: 1 })).toBe(1);
      expect(sampleToken(logits, 0, 4, rng, { topP: 0.01 })).toBe(1);
    }
  });

  it('samples in proportion to the softmax, and top-k / top-p cut the tail', () => {
    const logits = Float64Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)]);
    const rng = new Rng(1);
    const counts = new Int32Array(4);
    for (let i = 0; i < 4000; i++) {
      const t = sampleToken(logits, 0, 4, rng);
      counts[t] = (counts[t] ?? 0) + 1;
    }
    expect(Array.from(counts, (c) => Math.round((c / 4000) * 20) / 20)).toEqual([0.5, 0.3, 0.15, 0.05]);
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) seen.add(sampleToken(logits, 0, 4, rng, { topK: 2 }));
    expect([...seen].sort()).toEqual([0, 1]);
    seen.clear();
    for (let i = 0; i < 500; i++) seen.add(sampleToken(logits, 0, 4, rng, { topP: 0.79 }));
    expect([...seen].sort()).toEqual([0, 1]);
    seen.clear();
    for (let i = 0; i < 500; i++) seen.add(sampleToken(logits, 0, 4, rng, { topP: 0.81 }));
    expect([...seen].sort()).toEqual([0, 1, 2]);
  });

  it('is reproducible for a seed', () => {
    const logits = new Rng(2).fillNormal(new Float32Array(100), 1);
    const draw = (seed: number): number[] => {
      const rng = new Rng(seed);
      return Array.from({ length: 20 }, () =>
        sampleToken(logits, 0, 100, rng, { temperature: 1.5, topP: 0.9 }),
      );
    };
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3)).not.toEqual(draw(4));
  });
});
