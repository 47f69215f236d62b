import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../src/errors.js';
import { messages } from '../src/messages.js';
import { Rng } from '../src/rng.js';

describe('Rng', () => {
  it('is reproducible: same seed, same stream; different seeds differ', () => {
    const a = new Rng(42).integers(1000, 64);
    expect(new Rng(42).integers(1000, 64)).toEqual(a);
    expect(new Rng(43).integers(1000, 64)).not.toEqual(a);
  });

  it('draws integers in range and floats in [0, 1)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 1, max: 2 ** 32 }),
        (seed, high) => {
          const r = new Rng(seed);
          for (let i = 0; i < 20; i++) {
            const x = r.int(high);
            const u = r.next();
            if (!(Number.isInteger(x) && x >= 0 && x < high && u >= 0 && u < 1)) return false;
          }
          return true;
        },
      ),
    );
  });

  it('splits into independent, reproducible children', () => {
    const [a, b] = new Rng(7).split(2);
    const [a2] = new Rng(7).split(1);
    expect(a?.next()).toBe(a2?.next());
    expect(a?.next()).not.toBe(b?.next());
  });

  it('draws normals with the requested spread', () => {
    const xs = new Rng(1).fillNormal(new Float32Array(20000), 0.02);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
    // 20k samples: standard error of the sd estimate ≈ 0.02/sqrt(40000) = 1e-4, so 5e-4 is 5 σ.
    expect(Math.abs(mean)).toBeLessThan(5e-4);
    expect(Math.abs(sd - 0.02)).toBeLessThan(5e-4);
  });
});

describe('Rng.int argument check', () => {
  it('refuses a bound outside [1, 2^32] with a DantinoxError', () => {
    for (const high of [0, -1, 1.5, 2 ** 32 + 1]) {
      expect(() => new Rng(0).int(high)).toThrow(
        new DantinoxError(
          'INVALID_OPTION',
          messages.invalidNumberOption('high', high, 'an integer in [1, 2^32]'),
        ),
      );
    }
  });
});
