/**
 * The one IEEE 754 half-precision codec: float16 bit patterns ↔ float32 values, for fp16 weights, logits and
 * probe inputs (Node 20 has no `Float16Array`, so ONNX Runtime hands float16 tensors over as `Uint16Array`).
 *
 * @packageDocumentation
 */

/** The float value of one IEEE 754 binary16 bit pattern (subnormals, ±∞ and NaN included). */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** Float32 values of float16 bit patterns (exact: every binary16 value is a float32 value). */
export function float16ToFloat32(half: Uint16Array): Float32Array {
  const out = new Float32Array(half.length);
  for (let i = 0; i < half.length; i++) out[i] = halfToFloat(half[i] ?? 0);
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The binary16 bit pattern nearest to float32(`x`): round to nearest even, overflow to ±∞, NaN kept NaN. */
export function floatToHalf(x: number): number {
  f32[0] = x;
  const bits = u32[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const e = exponent - 112; // rebias 127 → 15
  if (e >= 31) return sign | 0x7c00;
  // Normal results keep 10 of 23 mantissa bits; subnormal ones shift the implicit 1 in as well.
  const shift = e <= 0 ? 14 - e : 13;
  if (shift > 24) return sign;
  const full = e <= 0 ? mantissa | 0x800000 : mantissa;
  let v = (e <= 0 ? 0 : e << 10) | (full >>> shift);
  const rest = full & ((1 << shift) - 1);
  const halfway = 1 << (shift - 1);
  if (rest > halfway || (rest === halfway && (v & 1) === 1)) v += 1; // may carry into the exponent: correct
  return sign | v;
}

/** binary16 bit patterns of `data` (see {@link floatToHalf}). */
export function toFloat16Bits(data: Float32Array): Uint16Array {
  const out = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = floatToHalf(data[i] as number);
  return out;
}
