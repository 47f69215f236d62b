/**
 * Known-answer blocks for the ggml encoders, derived by hand from the format's definition (see ggml-types.ts),
 * and properties checked with an independent decoder written here from the same definition.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { floatToHalf, halfToFloat } from '../../../src/models/float16.js';
import { encodeGgml, GGML_TYPES, ggmlBytes } from '../../../src/models/gguf/ggml-types.js';

/** Decodes Q8_0 / Q4_0 blocks: value = q · d, and (nibble − 8) · d with element j low, j + 16 high. */
function decode(type: 'Q8_0' | 'Q4_0', bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const blockBytes = GGML_TYPES[type].blockBytes;
  const out = new Float32Array((bytes.length / blockBytes) * 32);
  for (let b = 0; b < bytes.length / blockBytes; b++) {
    const d = halfToFloat(view.getUint16(b * blockBytes, true));
    for (let j = 0; j < 32; j++) {
      if (type === 'Q8_0') out[b * 32 + j] = view.getInt8(b * blockBytes + 2 + j) * d;
      else {
        const byte = view.getUint8(b * blockBytes + 2 + (j % 16));
        out[b * 32 + j] = ((j < 16 ? byte & 15 : byte >> 4) - 8) * d;
      }
    }
  }
  return out;
}

const block = (entries: Record<number, number>): Float32Array => {
  const x = new Float32Array(32);
  for (const [i, v] of Object.entries(entries)) x[Number(i)] = v;
  return x;
};

test('type table: ids and block sizes of the ggml format', () => {
  expect(GGML_TYPES.F32).toEqual({ id: 0, blockSize: 1, blockBytes: 4 });
  expect(GGML_TYPES.F16).toEqual({ id: 1, blockSize: 1, blockBytes: 2 });
  expect(GGML_TYPES.Q4_0).toEqual({ id: 2, blockSize: 32, blockBytes: 18 });
  expect(GGML_TYPES.Q8_0).toEqual({ id: 8, blockSize: 32, blockBytes: 34 });
  expect(ggmlBytes('Q4_0', 64)).toBe(36);
});

test('Q8_0 known block: one value 1 → d = 1/127 (binary16 0x2008), q = 127', () => {
  const bytes = encodeGgml('Q8_0', block({ 0: 1 }));
  expect(Array.from(bytes.subarray(0, 3))).toEqual([0x08, 0x20, 127]);
  expect(bytes.subarray(3).every((b) => b === 0)).toBe(true);
});

test('Q8_0 rounds halves away from zero: d = 1, 2.5 → 3 and −2.5 → −3', () => {
  const bytes = encodeGgml('Q8_0', block({ 0: 127, 1: 2.5, 2: -2.5, 3: 0.5, 4: -127 }));
  const q = new Int8Array(bytes.buffer, 2, 32);
  expect(Array.from(bytes.subarray(0, 2))).toEqual([0x00, 0x3c]); // d = 1.0
  expect(Array.from(q.subarray(0, 5))).toEqual([127, 3, -3, 1, -127]);
});

test('Q4_0 known block: the largest magnitude −4 sets d = 0.5 and maps to nibble 0; zeros to 8', () => {
  const bytes = encodeGgml('Q4_0', block({ 0: -4, 16: 2 }));
  expect(Array.from(bytes.subarray(0, 2))).toEqual([0x00, 0x38]); // d = 0.5
  expect(bytes[2]).toBe(0xc0); // low nibble 0 (−4), high nibble 12 (element 16: 2 / 0.5 + 8)
  expect(Array.from(bytes.subarray(3))).toEqual(new Array(15).fill(0x88));
});

test('Q4_0 with a positive maximum: d = −0.5, the opposite extreme clamps to nibble 15', () => {
  const bytes = encodeGgml('Q4_0', block({ 0: 4, 1: -4 }));
  expect(Array.from(bytes.subarray(0, 2))).toEqual([0x00, 0xb8]); // d = −0.5
  expect(bytes[2]).toBe(0x80); // element 0 → nibble 0, element 16 (0) → 8
  expect(bytes[3]).toBe(0x8f); // element 1: trunc(8 + 8.5) = 16, clamped to 15
});

test('all-zero blocks have d = 0 and decode to zeros', () => {
  expect(decode('Q8_0', encodeGgml('Q8_0', new Float32Array(32))).every((v) => v === 0)).toBe(true);
  expect(decode('Q4_0', encodeGgml('Q4_0', new Float32Array(32))).every((v) => v === 0)).toBe(true);
});

test('F32 and F16 are little-endian element by element', () => {
  expect(Array.from(encodeGgml('F32', Float32Array.of(1, -2)))).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
  expect(Array.from(encodeGgml('F16', Float32Array.of(1, -2, 65504)))).toEqual([
    0, 0x3c, 0, 0xc0, 0xff, 0x7b,
  ]);
});

test('floatToHalf: every binary16 value round-trips; halfway cases round to even', () => {
  for (let h = 0; h < 0x10000; h++) {
    const v = halfToFloat(h);
    if (Number.isNaN(v)) expect(Number.isNaN(halfToFloat(floatToHalf(v)))).toBe(true);
    else expect(floatToHalf(v)).toBe(h);
  }
  expect(floatToHalf(1 + 2 ** -11)).toBe(0x3c00); // halfway between 1 and 1 + 2⁻¹⁰: even mantissa wins
  expect(floatToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
  expect(floatToHalf(65520)).toBe(0x7c00); // rounds up to infinity
  expect(floatToHalf(2 ** -25)).toBe(0); // half of the smallest subnormal: ties to even (0)
  expect(floatToHalf(2 ** -25 * 1.5)).toBe(1);
});

const finiteBlock = fc.float32Array({
  minLength: 32,
  maxLength: 32,
  noNaN: true,
  noDefaultInfinity: true,
  min: -1e4,
  max: 1e4,
});

test('several blocks: each is encoded on its own scale, at its own place (block k = the encoding of its 32 values)', () => {
  const x = new Float32Array(96);
  for (let i = 0; i < 96; i++) x[i] = ((i % 7) - 3) * 10 ** Math.floor(i / 32); // scales 1, 10, 100
  for (const type of ['Q8_0', 'Q4_0'] as const) {
    const { blockBytes } = GGML_TYPES[type];
    const bytes = encodeGgml(type, x);
    expect(bytes.length).toBe(3 * blockBytes);
    for (let b = 0; b < 3; b++)
      expect(bytes.subarray(b * blockBytes, (b + 1) * blockBytes), `${type} block ${b}`).toEqual(
        encodeGgml(type, x.subarray(b * 32, (b + 1) * 32)),
      );
    const y = decode(type, bytes);
    for (let i = 0; i < 96; i++) {
      const scale = 10 ** Math.floor(i / 32);
      expect(Math.abs((y[i] as number) - (x[i] as number)), `${type} ${i}`).toBeLessThanOrEqual(
        (type === 'Q8_0' ? 3 / 127 : 3 / 8) * scale,
      );
    }
  }
});

test('property: Q8_0 decodes within 0.57·d of every input (rounding plus the binary16 scale, d = max|x|/127)', () => {
  fc.assert(
    fc.property(finiteBlock, (x) => {
      const amax = x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      fc.pre(amax >= 1e-2); // smaller scales leave binary16's normal range
      const y = decode('Q8_0', encodeGgml('Q8_0', x));
      for (let i = 0; i < 32; i++)
        expect(Math.abs((y[i] as number) - (x[i] as number))).toBeLessThanOrEqual(
          0.57 * (amax / 127) * (1 + 1e-6),
        );
    }),
    { numRuns: 200, seed: 15 },
  );
});

test('property: Q4_0 decodes within |d|·1.07 of every input (one step at the clamped extreme)', () => {
  fc.assert(
    fc.property(finiteBlock, (x) => {
      const amax = x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      fc.pre(amax >= 1e-2); // smaller scales leave binary16's normal range
      const y = decode('Q4_0', encodeGgml('Q4_0', x));
      for (let i = 0; i < 32; i++)
        expect(Math.abs((y[i] as number) - (x[i] as number))).toBeLessThanOrEqual(
          1.07 * (amax / 8) * (1 + 1e-6),
        );
    }),
    { numRuns: 200, seed: 15 },
  );
});
