/**
 * The training run's random draws, each a pure function of the seed, the step and what it is for: the batch
 * (windows, and diffusion masks) and dropout masks of step s come from `trainingRng(seed, stream, s)` and nothing else, so a run
 * resumed at step k draws exactly what the uninterrupted run drew from step k on.
 *
 * @packageDocumentation
 */
import { Rng } from '../rng.js';

/** What a stream of draws is for, and its number in the derivation. */
export const RNG_STREAMS = Object.freeze({
  /** A training batch: its window starts, then (diffusion) which of its tokens are masked. */
  batch: 1,
  /** Dropout keep-masks. */
  dropout: 2,
  /** Which tokens the diffusion validation batches mask (the same at every validation). */
  validation: 3,
});

/** A stream of {@link RNG_STREAMS}. */
export type RngStream = keyof typeof RNG_STREAMS;

/**
 * The generator of `stream` at `step` of a run seeded with `seed`: an {@link Rng} seeded with
 * `seed · φ + step · c₁ + stream · c₂ (mod 2⁶⁴)` (φ = 0x9E3779B97F4A7C15, c₁ = 0xBF58476D1CE4E5B9,
 * c₂ = 0x94D049BB133111EB, SplitMix64's constants), which the generator's own SplitMix64 finaliser mixes.
 */
export function trainingRng(seed: number, stream: RngStream, step: number): Rng {
  const mixed =
    BigInt(seed) * 0x9e3779b97f4a7c15n +
    BigInt(step) * 0xbf58476d1ce4e5b9n +
    BigInt(RNG_STREAMS[stream]) * 0x94d049bb133111ebn;
  return new Rng(BigInt.asUintN(64, mixed));
}
