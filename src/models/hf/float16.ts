/**
 * IEEE 754 half-precision → float32 conversion, for fp16 logits of Hugging Face exports (Node 20 has no
 * `Float16Array`, so ONNX Runtime hands float16 tensors over as `Uint16Array` bit patterns).
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
