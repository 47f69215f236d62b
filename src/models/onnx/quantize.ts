/**
 * Weight quantizers of the generated graphs, pure functions over row-major float32 matrices `[K, N]` (the
 * `x @ W` layout of every projection):
 *
 * - {@link quantizeInt8}: symmetric int8 with one scale per output column (per-channel) or one for the whole
 *   matrix (per-tensor): `q = round(w / s)` clamped to [−L, L], `s = max|w| / L` (L = 127, or 63 for the
 *   7-bit range of the q8 graphs); `w ≈ q · s`.
 * - {@link quantizeBlock4}: asymmetric 4-bit blocks of `blockSize` consecutive K values of one output column
 *   (a float32 scale and a 4-bit zero point per block), in `com.microsoft.MatMulNBits`'s layout.
 *
 * Each has its inverse (`dequantize…`), used by tests and by the reference comparisons.
 *
 * @packageDocumentation
 */

/** An int8-quantized matrix `[K, N]`: values and scales. */
export interface Int8Matrix {
  /** Row-major `[K, N]` int8 values. */
  readonly values: Int8Array;
  /** Scales: `[N]` per output column, or `[1]` per tensor. */
  readonly scales: Float32Array;
}

/** A 4-bit block-quantized matrix in `MatMulNBits` layout (transposed: one row per output column). */
export interface Block4Matrix {
  /** `[N, K / blockSize, blockSize / 2]` bytes: element 2j in the low nibble, 2j + 1 in the high nibble. */
  readonly packed: Uint8Array;
  /** `[N · K / blockSize]` block scales, by column then block (`scales[n · blocks + b]`). */
  readonly scales: Float32Array;
  /** `[N · ⌈blocks / 2⌉]` 4-bit zero points, two per byte (low nibble first), by column then block. */
  readonly zeroPoints: Uint8Array;
  /** K values per block. */
  readonly blockSize: number;
}

/**
 * Quantizes a row-major `[k, n]` matrix to symmetric int8 in [−maxLevel, maxLevel], one scale per column
 * (`perChannel`) or one for all. An all-zero column or matrix gets scale 1 (its values stay 0).
 */
export function quantizeInt8(
  data: Float32Array,
  k: number,
  n: number,
  perChannel: boolean,
  maxLevel = 127,
): Int8Matrix {
  const absMax = new Float32Array(perChannel ? n : 1);
  for (let r = 0; r < k; r++) {
    const row = r * n;
    for (let c = 0; c < n; c++) {
      const a = Math.abs(data[row + c] as number);
      const i = perChannel ? c : 0;
      if (a > (absMax[i] as number)) absMax[i] = a;
    }
  }
  // A scale that underflows to 0 (subnormal columns) becomes 1: the column quantizes to zeros.
  const scales = absMax.map((m) => Math.fround(m / maxLevel) || 1);
  const inverse = scales.map((s) => 1 / s);
  const values = new Int8Array(k * n);
  for (let r = 0; r < k; r++) {
    const row = r * n;
    for (let c = 0; c < n; c++) {
      const q = Math.round((data[row + c] as number) * (inverse[perChannel ? c : 0] as number));
      values[row + c] = Math.max(-maxLevel, Math.min(maxLevel, q));
    }
  }
  return { values, scales };
}

/** The float32 matrix `[k, n]` an {@link Int8Matrix} stands for. */
export function dequantizeInt8(m: Int8Matrix, k: number, n: number): Float32Array {
  const out = new Float32Array(k * n);
  const perChannel = m.scales.length === n && n > 1;
  for (let r = 0; r < k; r++)
    for (let c = 0; c < n; c++)
      out[r * n + c] = (m.values[r * n + c] as number) * (m.scales[perChannel ? c : 0] as number);
  return out;
}

/**
 * Quantizes a row-major `[k, n]` matrix to asymmetric 4-bit blocks of `blockSize` K values per output column
 * (`MatMulNBits` layout, as ONNX Runtime's own quantizer writes it): per block over [min(lo, 0), max(hi, 0)],
 * `s = range / 15`, zero point `z = round(−min / s)`, `q = clamp(round(w / s) + z, 0, 15)`; `w ≈ (q − z) · s`.
 * `blockSize` must divide `k` and be a power of two ≥ 16 (checked by the caller).
 */
export function quantizeBlock4(data: Float32Array, k: number, n: number, blockSize: number): Block4Matrix {
  const blocks = k / blockSize;
  const zpStride = Math.ceil(blocks / 2);
  const packed = new Uint8Array(n * blocks * (blockSize / 2));
  const scales = new Float32Array(n * blocks);
  const zeroPoints = new Uint8Array(n * zpStride);
  const column = new Float32Array(blockSize);
  for (let c = 0; c < n; c++) {
    for (let b = 0; b < blocks; b++) {
      let lo = 0;
      let hi = 0;
      for (let j = 0; j < blockSize; j++) {
        const v = data[(b * blockSize + j) * n + c] as number;
        column[j] = v;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      const scale = (hi - lo) / 15;
      const inv = scale === 0 ? 0 : 1 / scale;
      const zp = scale === 0 ? 8 : clamp4(Math.round(-lo * inv));
      scales[c * blocks + b] = scale;
      const at = c * zpStride + (b >> 1);
      zeroPoints[at] = (zeroPoints[at] as number) | (b & 1 ? zp << 4 : zp);
      const base = (c * blocks + b) * (blockSize / 2);
      for (let j = 0; j < blockSize; j += 2) {
        const q0 = clamp4(Math.round((column[j] as number) * inv) + zp);
        const q1 = clamp4(Math.round((column[j + 1] as number) * inv) + zp);
        packed[base + j / 2] = q0 | (q1 << 4);
      }
    }
  }
  return { packed, scales, zeroPoints, blockSize };
}

function clamp4(q: number): number {
  return Math.max(0, Math.min(15, q));
}

/** The float32 matrix `[k, n]` a {@link Block4Matrix} stands for. */
export function dequantizeBlock4(m: Block4Matrix, k: number, n: number): Float32Array {
  const { blockSize } = m;
  const blocks = k / blockSize;
  const zpStride = Math.ceil(blocks / 2);
  const out = new Float32Array(k * n);
  for (let c = 0; c < n; c++) {
    for (let b = 0; b < blocks; b++) {
      const scale = m.scales[c * blocks + b] as number;
      const zpByte = m.zeroPoints[c * zpStride + (b >> 1)] as number;
      const zp = b & 1 ? zpByte >> 4 : zpByte & 15;
      const base = (c * blocks + b) * (blockSize / 2);
      for (let j = 0; j < blockSize; j++) {
        const byte = m.packed[base + (j >> 1)] as number;
        const q = j & 1 ? byte >> 4 : byte & 15;
        out[(b * blockSize + j) * n + c] = (q - zp) * scale;
      }
    }
  }
  return out;
}
