/** AdamW, gradient clipping and their boundary cases, against hand-computed steps. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adamwUpdate, clipGradients, decays, globalNorm, zeroMoments } from '../../src/training/adamw.js';

const tensor = (dims: number[], values: number[]) => ({ dims, data: Float32Array.from(values) });

describe('AdamW', () => {
  it('first step, by hand: m = 0.05, v = 0.0125, m̂ = 0.5, v̂ = 0.25, step = lr · 0.5 / 0.5; decay only for matrices', () => {
    const opts = { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1 };
    const matrix = tensor([1, 1], [1]);
    const vector = tensor([1], [1]);
    const mm = zeroMoments(1);
    const mv = zeroMoments(1);
    adamwUpdate(matrix, Float32Array.of(0.5), mm, 1, 0.1, opts);
    adamwUpdate(vector, Float32Array.of(0.5), mv, 1, 0.1, opts);
    expect(mm.m[0]).toBeCloseTo(0.05, 7);
    expect(mm.v[0]).toBeCloseTo(0.0125, 7);
    // w·(1 − lr·λ) − lr·m̂/(√v̂ + ε) = 0.99 − 0.1·0.5/0.5 = 0.89 (matrix); 1 − 0.1 = 0.9 (vector, no decay).
    expect(matrix.data[0]).toBeCloseTo(0.89, 6);
    expect(vector.data[0]).toBeCloseTo(0.9, 6);
  });

  it('second step, by hand', () => {
    const w = tensor([2], [0.5, -0.25]);
    const m = zeroMoments(2);
    adamwUpdate(w, Float32Array.of(0.2, -0.4), m, 1, 0.01);
    adamwUpdate(w, Float32Array.of(-0.1, 0.3), m, 2, 0.02);
    // Element 0: m1 = 0.02, v1 = 0.002; m2 = 0.9·0.02 − 0.01 = 0.008, v2 = 0.95·0.002 + 0.05·0.01 = 0.0024;
    // m̂ = 0.008/0.19, v̂ = 0.0024/0.0975; w1 = 0.5 − 0.01·1 = 0.49; w2 = 0.49 − 0.02·m̂/(√v̂ + 1e-8).
    const m2 = 0.008 / (1 - 0.9 ** 2);
    const v2 = 0.0024 / (1 - 0.95 ** 2);
    expect(m.m[0]).toBeCloseTo(0.008, 7);
    expect(m.v[0]).toBeCloseTo(0.0024, 7);
    expect(w.data[0]).toBeCloseTo(0.49 - (0.02 * m2) / (Math.sqrt(v2) + 1e-8), 6);
  });

  it('decays matrices and embeddings, never norm weights and biases', () => {
    expect(decays([32, 32])).toBe(true);
    expect(decays([256, 32])).toBe(true);
    expect(decays([32])).toBe(false);
  });

  it('moves every weight by about lr on its first step, whatever the gradient (no decay)', () => {
    fc.assert(
      fc.property(
        fc.float({ min: -100, max: 100, noNaN: true }).filter((g) => Math.abs(g) > 1e-3),
        (g) => {
          const w = tensor([1], [0]);
          adamwUpdate(w, Float32Array.of(g), zeroMoments(1), 1, 0.01, { weightDecay: 0 });
          expect(Math.abs((w.data[0] as number) + 0.01 * Math.sign(g))).toBeLessThan(1e-6);
        },
      ),
    );
  });
});

describe('gradient clipping by global norm', () => {
  it('scales every gradient by max / (norm + 1e-6) above the limit and returns the norm before', () => {
    const a = Float32Array.of(3, 0);
    const b = Float32Array.of(0, 4);
    expect(clipGradients([a, b], 1)).toBe(5);
    expect(a[0]).toBeCloseTo(3 / (5 + 1e-6), 6);
    expect(b[1]).toBeCloseTo(4 / (5 + 1e-6), 6);
    expect(globalNorm([a, b])).toBeCloseTo(1, 5);
  });

  it('leaves gradients below the limit alone; a norm exactly at the limit is scaled by max / (max + 1e-6)', () => {
    const g = Float32Array.of(0.3, 0.4);
    expect(clipGradients([g], 1)).toBeCloseTo(0.5, 7);
    expect([...g]).toEqual([Math.fround(0.3), Math.fround(0.4)]);
    const at = Float32Array.of(0.6, 0.8);
    clipGradients([at], 1);
    expect(at[0]).toBeCloseTo(0.6 / (1 + 1e-6), 7);
    expect(at[0]).toBeLessThan(Math.fround(0.6));
  });

  it('never clips with a limit of 0', () => {
    const g = Float32Array.of(30, 40);
    expect(clipGradients([g], 0)).toBe(50);
    expect([...g]).toEqual([30, 40]);
  });
});
