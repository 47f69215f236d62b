/**
 * Planned send times of an open-loop load: a Poisson process (exponential gaps) by default, gamma gaps of shape k
 * for bursty (k < 1) or regular (k > 1) arrivals with the same mean, and an optional linear ramp of the rate from 0
 * to its target. Drawn from the seeded {@link Rng}: the same seed gives the same schedule.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Rng } from '../../rng.js';

/** Options of {@link arrivalTimesMs}. */
export interface ArrivalOptions {
  /** Mean arrival rate in requests per second; `Infinity` sends everything at once. */
  readonly rate: number;
  /** Shape k of the gamma gaps: 1 is Poisson, < 1 burstier, > 1 more regular. @default 1 */
  readonly burstiness?: number;
  /** Length of a linear ramp of the rate from 0 to `rate`, in ms. @default 0 */
  readonly rampMs?: number;
  /** Random source. */
  readonly rng: Rng;
  /** Most arrivals to plan. */
  readonly count?: number;
  /** Plan arrivals up to this time, in ms. */
  readonly durationMs?: number;
}

/** A standard normal draw (Box–Muller). */
function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * A gamma draw of shape `k` and scale 1 (mean k), by Marsaglia and Tsang's method (2000); shape < 1 by boosting
 * (draw shape k + 1, times U^(1/k)).
 */
export function gammaDraw(rng: Rng, k: number): number {
  if (k < 1) return gammaDraw(rng, k + 1) * (1 - rng.next()) ** (1 / k);
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const x = normal(rng);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = 1 - rng.next();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
  return k;
}

/**
 * Time (ms) at which the cumulative expected arrivals reach `lambda` under a rate that ramps linearly from 0 to
 * `rate` (per second) over `rampMs`, then stays there.
 */
function invertRamp(lambda: number, rate: number, rampMs: number): number {
  const perMs = rate / 1000;
  const atRampEnd = (perMs * rampMs) / 2;
  if (rampMs <= 0) return lambda / perMs;
  if (lambda <= atRampEnd) return Math.sqrt((2 * lambda * rampMs) / perMs);
  return rampMs + (lambda - atRampEnd) / perMs;
}

/**
 * Planned send times in ms from the start of the load, ascending: gaps of mean 1/rate drawn as gamma(k) / k in
 * the ramp's time scale (exact for a time-varying rate: arrivals of a unit-rate process mapped through the
 * inverse of the cumulative rate). Stops at `count` arrivals or past `durationMs`, whichever comes first.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a rate ≤ 0, a shape ≤ 0, or neither bound given.
 */
export function arrivalTimesMs(options: ArrivalOptions): number[] {
  const { rate, rng } = options;
  const k = options.burstiness ?? 1;
  const rampMs = options.rampMs ?? 0;
  if (!(rate > 0))
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('--rate', rate, 'a number > 0 or inf'),
    );
  if (!(k > 0 && Number.isFinite(k)))
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('--burstiness', k, 'a number > 0'),
    );
  const count = options.count ?? Number.POSITIVE_INFINITY;
  const durationMs = options.durationMs ?? Number.POSITIVE_INFINITY;
  if (!Number.isFinite(count) && !Number.isFinite(durationMs))
    throw new DantinoxError('INVALID_OPTION', messages.loadNeedsBound());
  const out: number[] = [];
  if (rate === Number.POSITIVE_INFINITY) {
    const n = Number.isFinite(count) ? count : 0;
    for (let i = 0; i < n; i++) out.push(0);
    return out;
  }
  let lambda = 0;
  for (let i = 0; i < count; i++) {
    lambda += gammaDraw(rng, k) / k;
    const t = invertRamp(lambda, rate, rampMs);
    if (t > durationMs) break;
    out.push(t);
  }
  return out;
}
