/**
 * Position ids of a decoder call: sequence b's token t sits at position `pastLength + t`.
 *
 * @packageDocumentation
 */

/** Row-major `[batch, seq]` int64 positions `pastLength … pastLength + seq − 1`, the same for every sequence. */
export function positionIds(batch: number, seq: number, pastLength: number): BigInt64Array {
  const positions = new BigInt64Array(batch * seq);
  for (let t = 0; t < seq; t++) positions[t] = BigInt(pastLength + t);
  for (let b = 1; b < batch; b++) positions.copyWithin(b * seq, 0, seq);
  return positions;
}
