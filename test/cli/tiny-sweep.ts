/**
 * The smallest sweep a real `bench` run can time, as CLI flags: one cell of 8 tokens, batch 1, no warm-up, two
 * timed calls and no minimum times — for tests that need a real run of `tiny` and not its numbers.
 */
export const TINY_SWEEP: readonly string[] = [
  '--seq-lens',
  '8',
  '--batch-sizes',
  '1',
  '--n-warmup',
  '0',
  '--n-measure',
  '2',
  '--min-warmup-ms',
  '0',
  '--min-measure-ms',
  '0',
];
