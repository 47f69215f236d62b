/**
 * A small seeded, splittable pseudo-random generator: dantinox's counterpart of JAX's `PRNGKey`. The same seed
 * gives the same stream on every platform, so benchmark inputs and model weights are reproducible.
 *
 * The generator is SplitMix64 (Steele, Lea & Flood 2014) on a 64-bit `bigint` state: fast enough for the
 * sizes we draw (token batches, weight initialisation goes through {@link Rng.fillNormal}) and statistically
 * sound. {@link Rng.split} derives independent child generators by hashing the parent state with a counter,
 * so tasks can each take a child without changing what the others see.
 *
 * @packageDocumentation
 */
import { DantinoxError } from './errors.js';
import { messages } from './messages.js';

const MASK64 = (1n << 64n) - 1n;
const GOLDEN = 0x9e3779b97f4a7c15n;

function mix64(z0: bigint): bigint {
  let z = z0 & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/**
 * A seeded, splittable random generator (SplitMix64). Not for cryptography.
 *
 * @example
 * ```ts
 * const rng = new Rng(0);
 * const [taskRng, dataRng] = rng.split(2);
 * const tokens = dataRng.integers(50257, 128); // Int32Array of 128 ids in [0, 50257)
 * ```
 */
export class Rng {
  #state: bigint;
  #splits = 0n;

  /** Creates a generator from an integer seed (any safe integer, or a bigint). */
  constructor(seed: number | bigint = 0) {
    this.#state = mix64(BigInt(seed) ^ GOLDEN);
  }

  /** The next 64 random bits as an unsigned bigint. */
  nextBigUint64(): bigint {
    this.#state = (this.#state + GOLDEN) & MASK64;
    return mix64(this.#state);
  }

  /** A uniform float in [0, 1) with 53 random bits. */
  next(): number {
    return Number(this.nextBigUint64() >> 11n) / 2 ** 53;
  }

  /**
   * A uniform integer in [0, `high`) (`high` ≤ 2^32), unbiased by rejection.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when `high` is not an integer in [1, 2^32].
   */
  int(high: number): number {
    if (!Number.isInteger(high) || high <= 0 || high > 2 ** 32) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.invalidNumberOption('high', high, 'an integer in [1, 2^32]'),
      );
    }
    const limit = 2 ** 32 - (2 ** 32 % high);
    for (;;) {
      const x = Number(this.nextBigUint64() >> 32n);
      if (x < limit) return x % high;
    }
  }

  /** `n` uniform integers in [0, `high`) as an `Int32Array`. */
  integers(high: number, n: number): Int32Array {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(high);
    return out;
  }

  /** Fills `out` with normal samples of mean 0 and standard deviation `std` (Box–Muller), and returns it. */
  fillNormal(out: Float32Array, std = 1): Float32Array {
    for (let i = 0; i < out.length; i += 2) {
      const u1 = 1 - this.next();
      const u2 = this.next();
      const r = Math.sqrt(-2 * Math.log(u1)) * std;
      out[i] = r * Math.cos(2 * Math.PI * u2);
      if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
    }
    return out;
  }

  /**
   * Derives `n` independent child generators. The parent advances, so splitting twice gives different children;
   * the same seed and the same sequence of calls always give the same children.
   */
  split(n = 2): Rng[] {
    const children: Rng[] = [];
    for (let i = 0; i < n; i++) {
      this.#splits += 1n;
      const child = new Rng(0);
      child.#state = mix64(this.#state ^ mix64(this.#splits * GOLDEN));
      children.push(child);
    }
    return children;
  }
}

/**
 * A fast stream of random 32-bit integers (xoshiro128**, Blackman & Vigna), for draws too many for {@link Rng}'s
 * bigint arithmetic (weight initialisation, dropout masks): its 128-bit state is seeded by two
 * {@link Rng.nextBigUint64} draws of `rng`, so the stream is as reproducible as `rng`. Each call returns a signed
 * 32-bit integer (divide by 2³¹ for a uniform float in [−1, 1)).
 */
export function xoshiro128(rng: Rng): () => number {
  const a = rng.nextBigUint64();
  const b = rng.nextBigUint64();
  let s0 = Number(a & 0xffffffffn) | 0;
  let s1 = Number(a >> 32n) | 0;
  let s2 = Number(b & 0xffffffffn) | 0;
  let s3 = Number(b >> 32n) | 0;
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  return () => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
