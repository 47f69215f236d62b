/** The GGUF v3 header byte by byte for a one-key, one-tensor file, and the writer's refusals. */
import { expect, test } from 'vitest';
import { encodeGgml } from '../../../src/models/gguf/ggml-types.js';
import { GGUF_ALIGNMENT, type GgufValue, ggufHeader } from '../../../src/models/gguf/gguf-writer.js';

const u32 = (v: number): number[] => [v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >>> 24) & 255];
const u64 = (v: number): number[] => [...u32(v), 0, 0, 0, 0];
const str = (s: string): number[] => [...u64(s.length), ...Buffer.from(s, 'utf8')];

test('header: magic, version 3, counts, a u32 key, a tensor info, zero padding to 32 bytes', () => {
  const meta = new Map<string, GgufValue>([['a.b', { type: 'u32', value: 7 }]]);
  const tensor = {
    name: 't',
    ne: [2, 1],
    type: 'F32' as const,
    data: encodeGgml('F32', Float32Array.of(1, 2)),
  };
  const { header, offsets } = ggufHeader(meta, [tensor]);
  const expected = [
    ...Buffer.from('GGUF'),
    ...u32(3),
    ...u64(1), // tensors
    ...u64(1), // metadata entries
    ...str('a.b'),
    ...u32(4), // UINT32
    ...u32(7),
    ...str('t'),
    ...u32(2), // dimensions
    ...u64(2),
    ...u64(1),
    ...u32(0), // F32
    ...u64(0), // offset in the data section
  ];
  while (expected.length % GGUF_ALIGNMENT !== 0) expected.push(0);
  expect(Array.from(header)).toEqual(expected);
  expect(offsets).toEqual([0]);
});

test('arrays of strings and i32, strings, bools and f32 use their type ids; tensor offsets are aligned', () => {
  const meta = new Map<string, GgufValue>([
    ['s', { type: 'array', of: 'string', values: ['x', 'yz'] }],
    ['i', { type: 'array', of: 'i32', values: [-1] }],
    ['b', { type: 'bool', value: true }],
    ['f', { type: 'f32', value: 0.5 }],
  ]);
  const a = { name: 'a', ne: [3], type: 'F32' as const, data: encodeGgml('F32', new Float32Array(3)) };
  const b = { name: 'b', ne: [32], type: 'Q8_0' as const, data: encodeGgml('Q8_0', new Float32Array(32)) };
  const { header, offsets } = ggufHeader(meta, [a, b]);
  const bytes = Array.from(header);
  const find = (seq: number[]): number => bytes.findIndex((_, i) => seq.every((v, j) => bytes[i + j] === v));
  expect(find([...str('s'), ...u32(9), ...u32(8), ...u64(2), ...str('x'), ...str('yz')])).toBeGreaterThan(0);
  expect(find([...str('i'), ...u32(9), ...u32(5), ...u64(1), 255, 255, 255, 255])).toBeGreaterThan(0);
  expect(find([...str('b'), ...u32(7), 1])).toBeGreaterThan(0);
  expect(find([...str('f'), ...u32(6), 0, 0, 0, 0x3f])).toBeGreaterThan(0);
  expect(offsets).toEqual([0, 32]); // 12 bytes of F32 padded to 32
});

test('refuses block rows that are not whole blocks, and bytes that do not match the shape', () => {
  const q = { name: 'q', ne: [16, 2], type: 'Q4_0' as const, data: new Uint8Array(18) };
  expect(() => ggufHeader(new Map(), [q])).toThrow(
    /rows have 16 values, not a multiple of the 32-value block/,
  );
  const f = { name: 'f', ne: [4], type: 'F16' as const, data: new Uint8Array(6) };
  expect(() => ggufHeader(new Map(), [f])).toThrow(
    /has 6 bytes, which does not match F16 data of shape \[4\]/,
  );
});
