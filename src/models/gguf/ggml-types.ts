/**
 * The ggml tensor types a GGUF file written by dantinox may hold, and their encoders: `F32`, `F16` and the
 * 32-element block formats `Q8_0` and `Q4_0`, written by our own quantizers from the format's definition.
 *
 * - `Q8_0` block (34 bytes): scale `d` as binary16, then 32 signed bytes `q`; value = `q · d`, with
 *   `d = max|x| / 127` and `q = round(x / d)` (halves away from zero).
 * - `Q4_0` block (18 bytes): scale `d` as binary16, then 16 bytes of nibbles; byte j holds element j in its low
 *   nibble and element j + 16 in its high nibble; value = `(nibble − 8) · d`, with `d = m / −8` where m is the
 *   element of largest magnitude (its sign kept, so m maps to nibble 0), and nibble = `min(15, trunc(x / d + 8.5))`.
 *
 * Every step is rounded to float32 as in the reference definition (the scale is computed in float32 and only
 * stored as binary16), so the bytes equal those of llama.cpp's reference quantizer for the same input.
 *
 * @packageDocumentation
 */
import { floatToHalf } from '../float16.js';

/** Name of a ggml tensor type that dantinox writes. */
export type GgmlTypeName = 'F32' | 'F16' | 'Q8_0' | 'Q4_0';

/** How a ggml type stores elements: its numeric id in GGUF, elements per block and bytes per block. */
export interface GgmlTypeInfo {
  /** `ggml_type` id stored in the tensor info. */
  readonly id: number;
  /** Elements per block (1 for the float types). */
  readonly blockSize: number;
  /** Bytes per block. */
  readonly blockBytes: number;
}

/** The ggml types dantinox writes, by name. */
export const GGML_TYPES: Readonly<Record<GgmlTypeName, GgmlTypeInfo>> = Object.freeze({
  F32: { id: 0, blockSize: 1, blockBytes: 4 },
  F16: { id: 1, blockSize: 1, blockBytes: 2 },
  Q4_0: { id: 2, blockSize: 32, blockBytes: 18 },
  Q8_0: { id: 8, blockSize: 32, blockBytes: 34 },
});

const QK = 32;
const f = Math.fround;

/** Bytes that `count` elements take in type `type` (`count` must be a multiple of the block size). */
export function ggmlBytes(type: GgmlTypeName, count: number): number {
  const info = GGML_TYPES[type];
  return (count / info.blockSize) * info.blockBytes;
}

/** C's `roundf`: nearest integer, halves away from zero. */
function roundHalfAway(x: number): number {
  return x < 0 ? -Math.floor(-x + 0.5) : Math.floor(x + 0.5);
}

/** Q8_0 blocks of `x` (length a multiple of 32), written into `out`. */
function quantizeQ8(x: Float32Array, out: DataView): void {
  for (let b = 0; b < x.length / QK; b++) {
    let amax = 0;
    for (let j = 0; j < QK; j++) amax = Math.max(amax, Math.abs(x[b * QK + j] as number));
    const d = f(amax / 127);
    const id = d === 0 ? 0 : f(1 / d);
    const base = b * 34;
    out.setUint16(base, floatToHalf(d), true);
    for (let j = 0; j < QK; j++) out.setInt8(base + 2 + j, roundHalfAway(f((x[b * QK + j] as number) * id)));
  }
}

/** Q4_0 blocks of `x` (length a multiple of 32), written into `out`. */
function quantizeQ4(x: Float32Array, out: DataView): void {
  const half = QK / 2;
  for (let b = 0; b < x.length / QK; b++) {
    let amax = 0;
    let max = 0;
    for (let j = 0; j < QK; j++) {
      const v = x[b * QK + j] as number;
      if (amax < Math.abs(v)) {
        amax = Math.abs(v);
        max = v;
      }
    }
    const d = f(max / -8);
    const id = d === 0 ? 0 : f(1 / d);
    const base = b * 18;
    out.setUint16(base, floatToHalf(d), true);
    const nibble = (v: number): number => Math.min(15, Math.trunc(f(f(v * id) + 8.5)));
    for (let j = 0; j < half; j++) {
      const lo = nibble(x[b * QK + j] as number);
      const hi = nibble(x[b * QK + half + j] as number);
      out.setUint8(base + 2 + j, lo | (hi << 4));
    }
  }
}

/**
 * Encodes float32 values `x` as ggml type `type`. Block types need `x.length` to be a multiple of 32 (a GGUF
 * tensor's rows, its innermost dimension, must be).
 */
export function encodeGgml(type: GgmlTypeName, x: Float32Array): Uint8Array {
  const bytes = new Uint8Array(ggmlBytes(type, x.length));
  const view = new DataView(bytes.buffer);
  if (type === 'F32') {
    for (let i = 0; i < x.length; i++) view.setFloat32(i * 4, x[i] as number, true);
  } else if (type === 'F16') {
    for (let i = 0; i < x.length; i++) view.setUint16(i * 2, floatToHalf(x[i] as number), true);
  } else if (type === 'Q8_0') {
    quantizeQ8(x, view);
  } else {
    quantizeQ4(x, view);
  }
  return bytes;
}
