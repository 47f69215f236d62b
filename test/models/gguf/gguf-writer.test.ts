/**
 * The GGUF v3 writer: the header byte by byte for a one-key, one-tensor file, then every metadata type, the
 * alignment padding, the tensor offsets and the file parsed back by the test's own reader (`read-gguf.ts`), and
 * the writer's refusals with their codes and messages.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, test } from 'vitest';
import { messages } from '../../../src/messages.js';
import { encodeGgml } from '../../../src/models/gguf/ggml-types.js';
import {
  GGUF_ALIGNMENT,
  type GgufTensor,
  type GgufValue,
  ggufHeader,
  writeGguf,
} from '../../../src/models/gguf/gguf-writer.js';
import { thrown } from '../../thrown.js';
import { alignUp, GGUF_TYPE, readGguf, tensorData } from './read-gguf.js';

const u32 = (v: number): number[] => [v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >>> 24) & 255];
const u64 = (v: number): number[] => [...u32(v), 0, 0, 0, 0];
const str = (s: string): number[] => [...u64(s.length), ...Buffer.from(s, 'utf8')];

const dir = mkdtempSync(join(tmpdir(), 'dantinox-gguf-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An F32 tensor of `values` with dimensions `ne`. */
const f32 = (name: string, ne: number[], values: number[]): GgufTensor => ({
  name,
  ne,
  type: 'F32',
  data: encodeGgml('F32', Float32Array.from(values)),
});

/** The targets of this process's open file descriptors (Linux `/proc/self/fd`). */
function openFiles(): string[] {
  const fds = readdirSync('/proc/self/fd');
  return fds.flatMap((fd) => {
    try {
      return [readlinkSync(join('/proc/self/fd', fd))];
    } catch {
      return []; // closed between the listing and the read
    }
  });
}

/** Bytes 0, 1, 2, … of length `n`, as a tensor's data. */
const ramp = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 1) & 255);

test('header: magic, version 3, counts, a u32 key, a tensor info, zero padding to 32 bytes', () => {
  const meta = new Map<string, GgufValue>([['a.b', { type: 'u32', value: 7 }]]);
  const tensor = f32('t', [2, 1], [1, 2]);
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
  const unpadded = expected.length;
  while (expected.length % GGUF_ALIGNMENT !== 0) expected.push(0);
  expect(Array.from(header)).toEqual(expected);
  expect(offsets).toEqual([0]);
  // The test reader agrees with the hand-built bytes (it is checked here against the spec, not the writer).
  const file = readGguf(Uint8Array.from([...expected, ...encodeGgml('F32', Float32Array.of(1, 2))]));
  expect(file.metadata.get('a.b')).toEqual({ type: GGUF_TYPE.UINT32, value: 7 });
  expect(file.tensors).toEqual([{ name: 't', ne: [2, 1], type: 0, offset: 0, start: 96, size: 8 }]);
  expect([file.infoEnd, file.dataStart]).toEqual([unpadded, 96]);
});

describe('metadata values', () => {
  it('every type the writer emits reads back with its type id and exact value, in insertion order', () => {
    const meta = new Map<string, GgufValue>([
      ['u32.max', { type: 'u32', value: 0xffffffff }],
      ['i32.min', { type: 'i32', value: -0x80000000 }],
      ['f32', { type: 'f32', value: 0.1 }],
      ['bool.true', { type: 'bool', value: true }],
      ['bool.false', { type: 'bool', value: false }],
      ['u64', { type: 'u64', value: 2n ** 63n + 5n }],
      ['string', { type: 'string', value: 'é✓ x' }],
      ['empty', { type: 'string', value: '' }],
      ['strings', { type: 'array', of: 'string', values: ['a', '', 'ünï'] }],
      ['i32s', { type: 'array', of: 'i32', values: Int32Array.of(-2, 0, 2147483647) }],
      ['f32s', { type: 'array', of: 'f32', values: [1.5, -0.25, 3] }],
      ['no.strings', { type: 'array', of: 'string', values: [] }],
      ['no.i32s', { type: 'array', of: 'i32', values: [] }],
      ['no.f32s', { type: 'array', of: 'f32', values: new Float32Array(0) }],
    ]);
    const { header } = ggufHeader(meta, []);
    const file = readGguf(header);
    const T = GGUF_TYPE;
    expect([...file.metadata]).toEqual([
      ['u32.max', { type: T.UINT32, value: 0xffffffff }],
      ['i32.min', { type: T.INT32, value: -0x80000000 }],
      ['f32', { type: T.FLOAT32, value: Math.fround(0.1) }],
      ['bool.true', { type: T.BOOL, value: true }],
      ['bool.false', { type: T.BOOL, value: false }],
      ['u64', { type: T.UINT64, value: 2n ** 63n + 5n }],
      ['string', { type: T.STRING, value: 'é✓ x' }],
      ['empty', { type: T.STRING, value: '' }],
      ['strings', { type: T.ARRAY, of: T.STRING, values: ['a', '', 'ünï'] }],
      ['i32s', { type: T.ARRAY, of: T.INT32, values: [-2, 0, 2147483647] }],
      ['f32s', { type: T.ARRAY, of: T.FLOAT32, values: [1.5, -0.25, 3] }],
      ['no.strings', { type: T.ARRAY, of: T.STRING, values: [] }],
      ['no.i32s', { type: T.ARRAY, of: T.INT32, values: [] }],
      ['no.f32s', { type: T.ARRAY, of: T.FLOAT32, values: [] }],
    ]);
    expect(file.tensors).toEqual([]);
    expect(header.length).toBe(alignUp(file.infoEnd, 32));
  });

  it('a string is its UTF-8 byte length, then its bytes; a bool is one byte', () => {
    const { header } = ggufHeader(
      new Map<string, GgufValue>([
        ['s', { type: 'string', value: 'é' }],
        ['b', { type: 'bool', value: false }],
      ]),
      [],
    );
    expect(Array.from(header.subarray(24))).toEqual([
      ...str('s'),
      ...u32(8),
      ...u64(2),
      0xc3,
      0xa9,
      ...str('b'),
      ...u32(7),
      0,
      ...new Array<number>(32 - ((24 + 9 + 4 + 10 + 9 + 4 + 1) % 32)).fill(0),
    ]);
  });

  it('arrays of strings and i32, strings, bools and f32 use their type ids; tensor offsets are aligned', () => {
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
    const find = (seq: number[]): number =>
      bytes.findIndex((_, i) => seq.every((v, j) => bytes[i + j] === v));
    expect(find([...str('s'), ...u32(9), ...u32(8), ...u64(2), ...str('x'), ...str('yz')])).toBeGreaterThan(
      0,
    );
    expect(find([...str('i'), ...u32(9), ...u32(5), ...u64(1), 255, 255, 255, 255])).toBeGreaterThan(0);
    expect(find([...str('b'), ...u32(7), 1])).toBeGreaterThan(0);
    expect(find([...str('f'), ...u32(6), 0, 0, 0, 0x3f])).toBeGreaterThan(0);
    expect(offsets).toEqual([0, 32]); // 12 bytes of F32 padded to 32
  });
});

describe('alignment and growth', () => {
  /** The header of a file with one string key `k` whose value has `n` bytes: 24 + 9 + 4 + 8 + n bytes unpadded. */
  const oneString = (n: number): Uint8Array =>
    ggufHeader(new Map<string, GgufValue>([['k', { type: 'string', value: 'v'.repeat(n) }]]), []).header;

  it('a header that ends on the alignment gets no padding; one byte more gets 31 zero bytes', () => {
    expect(oneString(19).length).toBe(64);
    const over = oneString(20);
    expect(over.length).toBe(96);
    expect(readGguf(over).infoEnd).toBe(65);
    expect(Array.from(over.subarray(65))).toEqual(new Array<number>(31).fill(0));
    expect(oneString(18).length).toBe(64);
    // No metadata, no tensors: the 24 fixed bytes padded to 32.
    expect(Array.from(ggufHeader(new Map(), []).header)).toEqual([
      ...Buffer.from('GGUF'),
      ...u32(3),
      ...u64(0),
      ...u64(0),
      ...new Array<number>(8).fill(0),
    ]);
  });

  it('grows its buffer past 64 KiB and past twice its size in one value, keeping every byte', () => {
    for (const n of [65_536 - 45, 65_536 - 44, 70_000, 200_000]) {
      const header = oneString(n);
      expect(header.length, `${n}`).toBe(alignUp(45 + n, 32));
      const entry = readGguf(header).metadata.get('k');
      expect(entry !== undefined && 'value' in entry && entry.value === 'v'.repeat(n), `${n}`).toBe(true);
    }
    // Many small values across the 64 KiB boundary: each string keeps its bytes.
    const values = Array.from({ length: 5000 }, (_, i) => `token-${i}`);
    const entry = readGguf(
      ggufHeader(new Map<string, GgufValue>([['t', { type: 'array', of: 'string', values }]]), []).header,
    ).metadata.get('t');
    expect(entry !== undefined && 'values' in entry ? entry.values : undefined).toEqual(values);
  });

  it('tensor offsets: a 32-byte tensor takes 32, a 34-byte one 64, in order', () => {
    const tensors: GgufTensor[] = [
      { name: 'exact', ne: [16], type: 'F16', data: ramp(32) },
      { name: 'over', ne: [17], type: 'F16', data: ramp(34) },
      { name: 'small', ne: [1], type: 'F32', data: ramp(4) },
      { name: 'q8', ne: [64, 2], type: 'Q8_0', data: ramp(136) },
      { name: 'q4', ne: [32], type: 'Q4_0', data: ramp(18) },
    ];
    const { header, offsets } = ggufHeader(new Map(), tensors);
    expect(offsets).toEqual([0, 32, 96, 128, 288]);
    const file = readGguf(header, { headerOnly: true });
    expect(file.tensors.map((t) => [t.name, t.ne, t.type, t.offset])).toEqual([
      ['exact', [16], 1, 0],
      ['over', [17], 1, 32],
      ['small', [1], 0, 96],
      ['q8', [64, 2], 8, 128],
      ['q4', [32], 2, 288],
    ]);
    expect(header.length).toBe(file.dataStart);
  });
});

describe('writeGguf', () => {
  it('writes the header, each tensor at its offset and zero padding; returns the file length', () => {
    const tensors: GgufTensor[] = [
      f32('a', [3], [1, -2, 3]),
      { name: 'b', ne: [16], type: 'F16', data: ramp(32) },
      { name: 'c', ne: [32, 2], type: 'Q4_0', data: ramp(36) },
    ];
    const meta = new Map<string, GgufValue>([['general.name', { type: 'string', value: 'w' }]]);
    const path = join(dir, 'three.gguf');
    const written = writeGguf(path, meta, tensors);
    const bytes = new Uint8Array(readFileSync(path));
    const file = readGguf(bytes);
    expect(bytes.length).toBe(written);
    expect(written).toBe(file.dataStart + 32 + 32 + 64);
    expect(Array.from(bytes.subarray(0, file.dataStart))).toEqual(
      Array.from(ggufHeader(meta, tensors).header),
    );
    for (const t of tensors)
      expect(Array.from(tensorData(bytes, file, t.name)), t.name).toEqual(Array.from(t.data));
    const a = file.dataStart;
    expect(Array.from(bytes.subarray(a + 12, a + 32))).toEqual(new Array<number>(20).fill(0));
    const c = file.dataStart + 64;
    expect(Array.from(bytes.subarray(c + 36, c + 64))).toEqual(new Array<number>(28).fill(0));
  });

  it('closes the file it wrote (no descriptor of the process still points at it)', () => {
    const path = join(dir, 'closed.gguf');
    writeGguf(path, new Map(), [f32('s', [1], [5])]);
    expect(openFiles().filter((target) => target === path)).toEqual([]);
  });

  it('a file of tensors that fill their alignment exactly has no padding after them', () => {
    const path = join(dir, 'exact.gguf');
    const tensors: GgufTensor[] = [
      { name: 'x', ne: [8], type: 'F32', data: ramp(32) },
      { name: 'y', ne: [16], type: 'F32', data: ramp(64) },
    ];
    const written = writeGguf(path, new Map(), tensors);
    const { header } = ggufHeader(new Map(), tensors);
    expect(written).toBe(header.length + 96);
    expect(Array.from(readFileSync(path))).toEqual([...header, ...ramp(32), ...ramp(64)]);
  });

  it('replaces an existing longer file instead of appending to it or leaving its tail', () => {
    const path = join(dir, 'replace.gguf');
    writeFileSync(path, new Uint8Array(4096).fill(9));
    const written = writeGguf(path, new Map(), [f32('s', [1], [5])]);
    expect(readFileSync(path).length).toBe(written);
    expect(written).toBe(32 + 64);
  });

  it('IO: a folder that does not exist, with the file system error as its cause and no file left', () => {
    const path = join(dir, 'missing', 'x.gguf');
    const error = thrown(() => writeGguf(path, new Map(), [f32('s', [1], [5])]));
    expect(error.code).toBe('IO');
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(error.message).toBe(messages.cannotWrite(path, error.cause));
    expect(existsSync(path)).toBe(false);
  });

  it('IO: a folder in the way of the file', () => {
    const error = thrown(() => writeGguf(dir, new Map(), []));
    expect(error.code).toBe('IO');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('EISDIR');
    expect(error.message).toBe(messages.cannotWrite(dir, error.cause));
  });
});

describe('refusals', () => {
  it('UNSUPPORTED: block rows that are not whole blocks, before any file is opened', () => {
    const q = { name: 'q', ne: [16, 2], type: 'Q4_0' as const, data: new Uint8Array(18) };
    const path = join(dir, 'refused.gguf');
    const error = thrown(() => writeGguf(path, new Map(), [f32('ok', [1], [1]), q]));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toBe(messages.ggufRowNotBlocked('q', 16, 'Q4_0', 32));
    expect(error.message).toMatch(/rows have 16 values, not a multiple of the 32-value block/);
    expect(existsSync(path)).toBe(false);
    // 33 values: one past a block.
    const q8 = { name: 'q8', ne: [33], type: 'Q8_0' as const, data: new Uint8Array(34) };
    expect(thrown(() => ggufHeader(new Map(), [q8])).message).toBe(
      messages.ggufRowNotBlocked('q8', 33, 'Q8_0', 32),
    );
  });

  it('INVALID_INPUT: bytes that do not match the shape, one byte short or long', () => {
    for (const n of [6, 7, 9]) {
      const f = { name: 'f', ne: [4], type: 'F16' as const, data: new Uint8Array(n) };
      const error = thrown(() => ggufHeader(new Map(), [f]));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toBe(messages.ggufTensorBytes('f', n, [4], 'F16'));
    }
    expect(messages.ggufTensorBytes('f', 6, [4], 'F16')).toMatch(
      /has 6 bytes, which does not match F16 data of shape \[4\]/,
    );
    // Every dimension counts, and a block type's bytes are per block: [64, 3] Q8_0 is 6 blocks of 34 bytes.
    const m = { name: 'm', ne: [4, 3], type: 'F32' as const, data: new Uint8Array(16) };
    expect(thrown(() => ggufHeader(new Map(), [m])).message).toBe(
      messages.ggufTensorBytes('m', 16, [4, 3], 'F32'),
    );
    expect(ggufHeader(new Map(), [{ ...m, data: new Uint8Array(48) }]).offsets).toEqual([0]);
    const q = { name: 'q', ne: [64, 3], type: 'Q8_0' as const, data: new Uint8Array(6 * 34) };
    expect(ggufHeader(new Map(), [q]).offsets).toEqual([0]);
    expect(thrown(() => ggufHeader(new Map(), [{ ...q, data: new Uint8Array(6 * 34 - 1) }])).code).toBe(
      'INVALID_INPUT',
    );
  });

  it('a tensor without dimensions is one element: a 4-byte F32 scalar, and no block type', () => {
    const { header } = ggufHeader(new Map(), [{ name: 's', ne: [], type: 'F32', data: ramp(4) }]);
    expect(readGguf(header, { headerOnly: true }).tensors).toEqual([
      { name: 's', ne: [], type: 0, offset: 0, start: 64, size: 4 },
    ]);
    const error = thrown(() => ggufHeader(new Map(), [{ name: 's', ne: [], type: 'Q8_0', data: ramp(34) }]));
    expect(error.message).toBe(messages.ggufRowNotBlocked('s', 1, 'Q8_0', 32));
  });
});
