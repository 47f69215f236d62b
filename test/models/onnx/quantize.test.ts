import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dequantizeBlock4,
  dequantizeInt8,
  quantizeBlock4,
  quantizeInt8,
} from '../../../src/models/onnx/quantize.js';

const matrix = (k: number, n: number) =>
  fc.float32Array({
    minLength: k * n,
    maxLength: k * n,
    noNaN: true,
    noDefaultInfinity: true,
    min: -50,
    max: 50,
  });

describe('quantizeInt8', () => {
  it('known answer: per-channel scales are max|w| / 127 and the extremes map to ±127', () => {
    // [k=2, n=3]
    const w = Float32Array.from([1, -0.5, 0, -2, 0.25, 0]);
    const q = quantizeInt8(w, 2, 3, true);
    expect(Array.from(q.scales)).toEqual([2 / 127, 0.5 / 127, 1].map(Math.fround));
    expect(Array.from(q.values)).toEqual([64, -127, 0, -127, 64, 0]);
    const t = quantizeInt8(w, 2, 3, false);
    expect(Array.from(t.scales)).toEqual([Math.fround(2 / 127)]);
    expect(Array.from(t.values)).toEqual([64, -32, 0, -127, 16, 0]);
  });

  it('round trip error ≤ half a scale step, per channel and per tensor (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        (k, n, pc) => {
          fc.assert(
            fc.property(matrix(k, n), (w) => {
              const q = quantizeInt8(w, k, n, pc);
              const back = dequantizeInt8(q, k, n);
              for (let i = 0; i < w.length; i++) {
                const s = q.scales[pc ? i % n : 0] as number;
                expect(Math.abs((back[i] as number) - (w[i] as number))).toBeLessThanOrEqual(
                  s / 2 + 1e-6 * s,
                );
              }
            }),
            { numRuns: 5 },
          );
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('quantizeBlock4', () => {
  it('known answer: MatMulNBits layout (one row per column, low nibble first) with scale and zero point', () => {
    // k=16 (one block of 16), n=1: values −1, −0.5, …, 6.5 in steps of 0.5 → range [−1, 6.5], scale 0.5, zp 2.
    const w = Float32Array.from({ length: 16 }, (_, i) => -1 + 0.5 * i);
    const q = quantizeBlock4(w, 16, 1, 16);
    expect(Array.from(q.scales)).toEqual([0.5]);
    expect(Array.from(q.zeroPoints)).toEqual([2]);
    expect(Array.from(q.packed)).toEqual([0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]);
    expect(Array.from(dequantizeBlock4(q, 16, 1))).toEqual(Array.from(w));
  });

  it('two blocks per column share a zero-point byte (low nibble = first block)', () => {
    const k = 32;
    const w = Float32Array.from({ length: k }, (_, i) => (i < 16 ? i : -i));
    const q = quantizeBlock4(w, k, 1, 16);
    expect(q.zeroPoints.length).toBe(1);
    expect((q.zeroPoints[0] as number) & 15).toBe(0); // block 0 is ≥ 0: zero point 0
    expect((q.zeroPoints[0] as number) >> 4).toBe(15); // block 1 is ≤ 0: zero point 15
  });

  it('round trip error ≤ half a block step (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(16, 32),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        (bs, blocks, n) => {
          const k = bs * blocks;
          fc.assert(
            fc.property(matrix(k, n), (w) => {
              const q = quantizeBlock4(w, k, n, bs);
              const back = dequantizeBlock4(q, k, n);
              for (let r = 0; r < k; r++)
                for (let c = 0; c < n; c++) {
                  const s = q.scales[c * blocks + Math.floor(r / bs)] as number;
                  const err = Math.abs((back[r * n + c] as number) - (w[r * n + c] as number));
                  expect(err).toBeLessThanOrEqual(s / 2 + 1e-5 * s + 1e-30);
                }
            }),
            { numRuns: 5 },
          );
        },
      ),
      { numRuns: 20 },
    );
  });
});
