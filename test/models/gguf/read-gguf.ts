/**
 * A test-only GGUF v3 reader written from the GGUF v3 format's specification, independent of
 * `src/models/gguf/gguf-writer.ts`: the tests parse the writer's bytes with it and compare values, not bytes
 * produced by the same code.
 *
 * Layout (little-endian): magic `GGUF`, version u32, tensor count u64, metadata count u64; metadata entries (key
 * string, value type u32, value); tensor infos (name string, dimension count u32, dimensions u64, ggml type
 * u32, offset u64); zero padding to `general.alignment` (default 32); the tensor data. A string is a u64 byte
 * length and UTF-8 bytes; an array is an element type u32, a u64 count and the elements.
 */

/** GGUF metadata value type ids (`gguf_metadata_value_type`). */
export const GGUF_TYPE = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;

/** ggml tensor type ids and their block sizes and bytes per block, for the types this reader sizes. */
export const GGML_TYPE_SIZES: ReadonlyMap<number, { readonly block: number; readonly bytes: number }> =
  new Map([
    [0, { block: 1, bytes: 4 }], // F32
    [1, { block: 1, bytes: 2 }], // F16
    [2, { block: 32, bytes: 18 }], // Q4_0
    [8, { block: 32, bytes: 34 }], // Q8_0
  ]);

/** A scalar metadata value: 64-bit integers as bigint, everything else as a JavaScript number, boolean or string. */
export type GgufScalar = number | bigint | boolean | string;

/** One metadata entry: its value type id and value; for arrays the element type id and the elements. */
export type GgufEntry =
  | { readonly type: number; readonly value: GgufScalar }
  | { readonly type: 9; readonly of: number; readonly values: readonly GgufScalar[] };

/** One tensor info, and where its data lies in the file. */
export interface GgufTensorInfo {
  readonly name: string;
  /** Dimensions, innermost first. */
  readonly ne: readonly number[];
  /** ggml type id. */
  readonly type: number;
  /** Offset relative to the data section. */
  readonly offset: number;
  /** Absolute offset of its first byte in the file. */
  readonly start: number;
  /** Its byte length from its type and dimensions. */
  readonly size: number;
}

/** A parsed GGUF file. */
export interface GgufFile {
  readonly version: number;
  /** Metadata in file order. */
  readonly metadata: ReadonlyMap<string, GgufEntry>;
  readonly tensors: readonly GgufTensorInfo[];
  /** The alignment in force: `general.alignment` or 32. */
  readonly alignment: number;
  /** File offset just after the last tensor info (where the padding starts). */
  readonly infoEnd: number;
  /** File offset of the data section (a multiple of the alignment). */
  readonly dataStart: number;
}

/** Sequential little-endian reads over `bytes`; a read past the end throws a `RangeError`. */
class Cursor {
  at = 0;
  readonly #view: DataView;
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  #take(n: number): number {
    if (this.at + n > this.#bytes.length)
      throw new RangeError(`read of ${n} bytes at ${this.at} past the end`);
    const at = this.at;
    this.at += n;
    return at;
  }
  u32(): number {
    return this.#view.getUint32(this.#take(4), true);
  }
  u64(): bigint {
    return this.#view.getBigUint64(this.#take(8), true);
  }
  /** A u64 that must fit a safe JavaScript integer (counts, lengths, dimensions, offsets). */
  size(): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`size ${v} too large`);
    return Number(v);
  }
  string(): string {
    const n = this.size();
    const at = this.#take(n);
    return new TextDecoder('utf-8', { fatal: true }).decode(this.#bytes.subarray(at, at + n));
  }
  scalar(type: number): GgufScalar {
    const v = this.#view;
    switch (type) {
      case GGUF_TYPE.UINT8:
        return v.getUint8(this.#take(1));
      case GGUF_TYPE.INT8:
        return v.getInt8(this.#take(1));
      case GGUF_TYPE.UINT16:
        return v.getUint16(this.#take(2), true);
      case GGUF_TYPE.INT16:
        return v.getInt16(this.#take(2), true);
      case GGUF_TYPE.UINT32:
        return this.u32();
      case GGUF_TYPE.INT32:
        return v.getInt32(this.#take(4), true);
      case GGUF_TYPE.FLOAT32:
        return v.getFloat32(this.#take(4), true);
      case GGUF_TYPE.BOOL: {
        const b = v.getUint8(this.#take(1));
        if (b > 1) throw new RangeError(`bool byte ${b}`);
        return b === 1;
      }
      case GGUF_TYPE.STRING:
        return this.string();
      case GGUF_TYPE.UINT64:
        return this.u64();
      case GGUF_TYPE.INT64:
        return v.getBigInt64(this.#take(8), true);
      case GGUF_TYPE.FLOAT64:
        return v.getFloat64(this.#take(8), true);
      default:
        throw new RangeError(`unknown value type ${type}`);
    }
  }
}

/** `n` rounded up to a multiple of `alignment`. */
export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/**
 * Parses a GGUF v3 file's header and tensor infos; throws on a bad magic, version, type or truncated file.
 * `headerOnly`: `bytes` is the header alone (its tensor data is not checked to be present).
 */
export function readGguf(bytes: Uint8Array, { headerOnly = false }: { headerOnly?: boolean } = {}): GgufFile {
  const c = new Cursor(bytes);
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (magic !== 'GGUF') throw new Error(`bad magic ${JSON.stringify(magic)}`);
  c.at = 4;
  const version = c.u32();
  if (version !== 3) throw new Error(`unsupported version ${version}`);
  const tensorCount = c.size();
  const metadataCount = c.size();
  const metadata = new Map<string, GgufEntry>();
  for (let i = 0; i < metadataCount; i++) {
    const key = c.string();
    if (metadata.has(key)) throw new Error(`duplicate key ${key}`);
    const type = c.u32();
    if (type === GGUF_TYPE.ARRAY) {
      const of = c.u32();
      const n = c.size();
      const values: GgufScalar[] = [];
      for (let j = 0; j < n; j++) values.push(c.scalar(of));
      metadata.set(key, { type: GGUF_TYPE.ARRAY, of, values });
    } else {
      metadata.set(key, { type, value: c.scalar(type) });
    }
  }
  const align = metadata.get('general.alignment');
  const alignment = align !== undefined && 'value' in align ? Number(align.value) : 32;
  const infos: Omit<GgufTensorInfo, 'start'>[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = c.string();
    const dims = c.u32();
    const ne: number[] = [];
    for (let j = 0; j < dims; j++) ne.push(c.size());
    const type = c.u32();
    const offset = c.size();
    if (offset % alignment !== 0) throw new Error(`tensor ${name} offset ${offset} is not aligned`);
    const sizes = GGML_TYPE_SIZES.get(type);
    if (sizes === undefined) throw new Error(`tensor ${name} has unknown type ${type}`);
    const count = ne.reduce((a, b) => a * b, 1);
    infos.push({ name, ne, type, offset, size: (count / sizes.block) * sizes.bytes });
  }
  const infoEnd = c.at;
  const dataStart = alignUp(infoEnd, alignment);
  const tensors = infos.map((t) => ({ ...t, start: dataStart + t.offset }));
  for (const t of tensors) {
    if (!headerOnly && t.start + t.size > bytes.length)
      throw new RangeError(`tensor ${t.name} runs past the end of the file`);
  }
  return { version, metadata, tensors, alignment, infoEnd, dataStart };
}

/** The data bytes of tensor `name` in `bytes` parsed as `file`. */
export function tensorData(bytes: Uint8Array, file: GgufFile, name: string): Uint8Array {
  const t = file.tensors.find((x) => x.name === name);
  if (t === undefined) throw new Error(`no tensor ${name}`);
  return bytes.subarray(t.start, t.start + t.size);
}
