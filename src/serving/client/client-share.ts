/**
 * How one sweep point's requests are dealt to client processes (pods, array tasks) that start together: each
 * takes a share of the concurrency and the requests of its slots, keeping their index in the whole point.
 */

/**
 * One client process's share of a sweep point whose requests are split over `count` processes (pods, array tasks)
 * that start together: this process is client `index` (0-based).
 */
export interface ClientShare {
  /** 0-based client index, `0 ≤ index < count`. */
  readonly index: number;
  /** Number of client processes. */
  readonly count: number;
}

/**
 * The concurrency slots of client `share.index` when a point's `concurrency` slots are dealt round-robin (slot s to
 * client s mod count): ⌈(concurrency − index) / count⌉, 0 when concurrency ≤ index; unbounded stays unbounded.
 */
export function shareSlots(concurrency: number, share: ClientShare): number {
  if (!Number.isFinite(concurrency)) return concurrency;
  return Math.max(0, Math.ceil((concurrency - share.index) / share.count));
}

/**
 * Whether request k of a point is client `share.index`'s: with planned send times (an open loop, a trace) every
 * count-th, k mod count = index; in a closed loop the requests of its slots, (k mod concurrency) mod count = index,
 * so that each client sends in proportion to its slots.
 */
export function clientSends(k: number, concurrency: number, scheduled: boolean, share: ClientShare): boolean {
  const slot = scheduled || !Number.isFinite(concurrency) ? k : k % concurrency;
  return slot % share.count === share.index;
}
