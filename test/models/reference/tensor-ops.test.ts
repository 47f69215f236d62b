import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  activate,
  applyRotary,
  erf,
  normRows,
  sinusoidal,
} from '../../../src/models/reference/tensor-ops.js';

describe('tensor ops', () => {
  it('erf matches known values to 1e-12 on both branches', () => {
    const known: [number, number][] = [
      [0, 0],
      [0.5, 0.5204998778130465],
      [1, 0.8427007929497149],
      [2, 0.9953222650189527],
      [2.9, 0.9999589021219005],
      [3.5, 0.9999992569016276],
      [-1, -0.8427007929497149],
    ];
    for (const [x, want] of known) expect(Math.abs(erf(x) - want)).toBeLessThan(1e-12);
  });

  it('GELU is the exact erf form: gelu(1) = 0.8413447460685429', () => {
    const x = Float64Array.from([1, -1, 0]);
    activate('gelu', x);
    expect(x[0]).toBeCloseTo(0.8413447460685429, 12);
    expect(x[1]).toBeCloseTo(-0.15865525393145707, 12);
    expect(x[2]).toBe(0);
  });

  it('rotary preserves each head vector norm and is the identity at position 0', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 0, max: 1000 }),
        (values, position) => {
          const x = Float64Array.from(values);
          applyRotary(x, 2, 4, position);
          for (const h of [0, 1]) {
            const before = values.slice(h * 4, h * 4 + 4).reduce((a, b) => a + b * b, 0);
            const after = [...x.subarray(h * 4, h * 4 + 4)].reduce((a, b) => a + b * b, 0);
            expect(after).toBeCloseTo(before, 8);
          }
        },
      ),
    );
    const x = Float64Array.from([1, 2, 3, 4]);
    applyRotary(x, 1, 4, 0);
    expect([...x]).toEqual([1, 2, 3, 4]);
  });

  it('rotary turns pair (i, i + hs/2) by position · 10000^(−2i/hs) (rotate-half)', () => {
    const x = Float64Array.from([1, 1, 0, 0]);
    applyRotary(x, 1, 4, 3);
    expect(x[0]).toBeCloseTo(Math.cos(3), 12);
    expect(x[2]).toBeCloseTo(Math.sin(3), 12);
    expect(x[1]).toBeCloseTo(Math.cos(3 / 100), 12);
    expect(x[3]).toBeCloseTo(Math.sin(3 / 100), 12);
  });

  it('sinusoidal positions follow PE[2i] = sin(p/10000^(2i/D)), PE[2i+1] = cos(…)', () => {
    expect([...sinusoidal(0, 4)]).toEqual([0, 1, 0, 1]);
    const pe = sinusoidal(5, 4);
    expect(pe[0]).toBeCloseTo(Math.sin(5), 12);
    expect(pe[3]).toBeCloseTo(Math.cos(5 / 100), 12);
  });

  it('LayerNorm gives zero mean and unit variance (before weight and bias); RMSNorm unit mean square', () => {
    const x = Float64Array.from([1, 2, 3, 6]);
    const ln = normRows('layernorm', x, 1, 4, new Float32Array(4).fill(1), new Float32Array(4));
    expect(ln.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 12);
    expect(ln.reduce((a, b) => a + b * b, 0) / 4).toBeCloseTo(1 - 1e-5 / 3.5, 6);
    const rms = normRows('rmsnorm', x, 1, 4, new Float32Array(4).fill(1), undefined);
    expect(rms.reduce((a, b) => a + b * b, 0) / 4).toBeCloseTo(1, 5);
  });
});
