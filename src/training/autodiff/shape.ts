/**
 * Static tensor shapes of the training graphs: every value of a graph built by {@link DiffGraph} has a known
 * shape (training runs at one fixed batch and sequence length), which is what lets a gradient be summed back to
 * the shape of a broadcast input.
 *
 * @packageDocumentation
 */

/** A static shape, outermost dimension first; `[]` is a scalar. */
export type Shape = readonly number[];

/** Number of elements of `shape`. */
export function sizeOf(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * The shape of a NumPy-style broadcast of `shapes` (aligned on their last axis; a dimension of 1 stretches), or
 * `undefined` when two dimensions differ and neither is 1.
 */
export function broadcastShapes(shapes: readonly Shape[]): Shape | undefined {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    let dim = 1;
    for (const s of shapes) {
      const d = s[s.length - rank + i] ?? 1;
      if (d === 1) continue;
      if (dim !== 1 && d !== dim) return undefined;
      dim = d;
    }
    out.push(dim);
  }
  return out;
}

/**
 * The axes of `from` (a broadcast result) that must be summed to get back to `to` (one of its broadcast inputs):
 * the leading axes `to` lacks, and the axes where `to` has 1 and `from` more. Empty when the shapes are equal.
 */
export function reductionAxes(from: Shape, to: Shape): number[] {
  const lead = from.length - to.length;
  const axes: number[] = [];
  for (let i = 0; i < from.length; i++) {
    if (i < lead || ((to[i - lead] as number) === 1 && (from[i] as number) !== 1)) axes.push(i);
  }
  return axes;
}

/** Whether two shapes are equal. */
export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** `perm`'s inverse permutation: `inverse[perm[i]] = i`. */
export function inversePermutation(perm: readonly number[]): number[] {
  const out = new Array<number>(perm.length);
  perm.forEach((p, i) => {
    out[p] = i;
  });
  return out;
}
