/**
 * Weight layouts the graph runs faster with than the canonical ones: column-concatenated projections (one
 * matrix product instead of two or three) and the transposed embedding for a tied LM head (a plain `MatMul`
 * over `[D, V]` that ONNX Runtime prepacks, instead of a `transB` product). They are built once while the graph
 * is generated, handed to ONNX Runtime (which copies them) and then dropped.
 *
 * @packageDocumentation
 */

/**
 * Concatenates row-major matrices `[rows, cols_i]` along their columns into `[rows, Σ cols_i]`.
 */
export function concatColumns(
  rows: number,
  parts: readonly { data: Float32Array; cols: number }[],
): Float32Array {
  const total = parts.reduce((s, p) => s + p.cols, 0);
  const out = new Float32Array(rows * total);
  for (let r = 0; r < rows; r++) {
    let offset = r * total;
    for (const p of parts) {
      out.set(p.data.subarray(r * p.cols, (r + 1) * p.cols), offset);
      offset += p.cols;
    }
  }
  return out;
}

/** Transposes a row-major `[rows, cols]` matrix into `[cols, rows]` (blocked, cache-friendly). */
export function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  const B = 64;
  for (let r0 = 0; r0 < rows; r0 += B) {
    const r1 = Math.min(rows, r0 + B);
    for (let c0 = 0; c0 < cols; c0 += B) {
      const c1 = Math.min(cols, c0 + B);
      for (let r = r0; r < r1; r++) {
        const row = r * cols;
        for (let c = c0; c < c1; c++) out[c * rows + r] = data[row + c] as number;
      }
    }
  }
  return out;
}
