import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLowerBetter } from '../../src/visualization/metric-labels.js';
import { normalizeMetric } from '../../src/visualization/radar-normalize.js';

const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const maybe = fc.option(finite, { nil: undefined });

describe('normalizeMetric', () => {
  it('maps known values (higher is better, lower is better)', () => {
    expect(normalizeMetric([10, 20, 30], false)).toEqual([0, 0.5, 1]);
    expect(normalizeMetric([10, 20, 30], true)).toEqual([1, 0.5, 0]);
    expect(normalizeMetric([5, undefined, 15], true)).toEqual([1, undefined, 0]);
  });

  it('maps a constant metric to 0.5 and an all-missing metric to undefined', () => {
    expect(normalizeMetric([7, 7, 7], false)).toEqual([0.5, 0.5, 0.5]);
    expect(normalizeMetric([7, undefined], true)).toEqual([0.5, undefined]);
    expect(normalizeMetric([undefined, Number.NaN], true)).toEqual([undefined, undefined]);
  });

  it('stays in [0, 1], puts the best at 1 and the worst at 0, keeps missing values missing', () => {
    fc.assert(
      fc.property(fc.array(maybe, { minLength: 1, maxLength: 20 }), fc.boolean(), (values, lower) => {
        const out = normalizeMetric(values, lower);
        expect(out).toHaveLength(values.length);
        const defined = values.filter((v): v is number => v !== undefined);
        values.forEach((v, i) => {
          if (v === undefined) expect(out[i]).toBeUndefined();
          else {
            expect(out[i]).toBeGreaterThanOrEqual(0);
            expect(out[i]).toBeLessThanOrEqual(1);
          }
        });
        if (defined.length === 0) return;
        const min = Math.min(...defined);
        const max = Math.max(...defined);
        const best = lower ? min : max;
        const worst = lower ? max : min;
        values.forEach((v, i) => {
          if (min === max && v !== undefined) expect(out[i]).toBe(0.5);
          else if (v === best) expect(out[i]).toBe(1);
          else if (v === worst) expect(out[i]).toBe(0);
        });
      }),
      { numRuns: 500, seed: 1 },
    );
  });

  it('inversion mirrors the scale (inverted = 1 − plain) and preserves / reverses order', () => {
    fc.assert(
      fc.property(fc.array(finite, { minLength: 2, maxLength: 20 }), (values) => {
        const plain = normalizeMetric(values, false);
        const inverted = normalizeMetric(values, true);
        const constant = Math.min(...values) === Math.max(...values);
        values.forEach((v, i) => {
          if (constant) expect(inverted[i]).toBe(0.5);
          else expect(inverted[i]! + plain[i]!).toBeCloseTo(1, 9);
          values.forEach((w, j) => {
            if (v < w) {
              expect(plain[i]!).toBeLessThanOrEqual(plain[j]!);
              expect(inverted[i]!).toBeGreaterThanOrEqual(inverted[j]!);
            }
          });
        });
      }),
      { numRuns: 300, seed: 2 },
    );
  });
});

describe('isLowerBetter', () => {
  it('knows the benchmark metrics', () => {
    for (const m of [
      'latency_mean_ms',
      'prefill_p99_ms',
      'decode_mean_ms',
      'ttft_ms',
      'tpot_ms',
      'perplexity',
      'eval_loss',
      'val_loss',
      'bits_per_byte',
    ]) {
      expect(isLowerBetter(m), m).toBe(true);
    }
    for (const m of ['peak_tps', 'decode_tps', 'throughput_tps', 'tps_seq128', 'tps_bs4', 'accuracy']) {
      expect(isLowerBetter(m), m).toBe(false);
    }
  });

  it('lets options override the patterns', () => {
    expect(isLowerBetter('flops_total_g')).toBe(false);
    expect(isLowerBetter('flops_total_g', { lowerIsBetter: ['flops_total_g'] })).toBe(true);
    expect(isLowerBetter('latency_mean_ms', { higherIsBetter: ['latency_mean_ms'] })).toBe(false);
  });
});
