/**
 * A GGUF version 3 file writer: typed metadata key/values, tensor infos and 32-byte-aligned tensor data.
 *
 * Layout (all little-endian): magic `GGUF`, version u32 = 3, tensor count u64, metadata count u64; each
 * metadata entry as key string, value type u32, value (arrays: element type u32, count u64, elements); each
 * tensor info as name string, dimension count u32, dimensions u64 (innermost first), ggml type u32, data
 * offset u64 (relative to the data section); zero padding to the alignment; the tensor data, each tensor
 * starting at a multiple of the alignment. Strings are a u64 byte length and UTF-8 bytes without a terminator.
 *
 * @packageDocumentation
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { removePartial } from '../../text-file.js';
import { GGML_TYPES, type GgmlTypeName } from './ggml-types.js';

/** `general.alignment` default: tensor data offsets are multiples of 32 bytes. */
export const GGUF_ALIGNMENT = 32;

/** GGUF metadata value type ids. */
const VALUE_TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10 } as const;

/** A typed GGUF metadata value. */
export type GgufValue =
  | { readonly type: 'u32' | 'i32' | 'f32'; readonly value: number }
  | { readonly type: 'u64'; readonly value: bigint }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'array'; readonly of: 'string'; readonly values: readonly string[] }
  | { readonly type: 'array'; readonly of: 'i32' | 'f32'; readonly values: ArrayLike<number> };

/** One tensor to write: its GGUF name, dimensions (innermost first, ggml order), type and encoded bytes. */
export interface GgufTensor {
  /** Tensor name, e.g. `blk.0.attn_q.weight`. */
  readonly name: string;
  /** ggml dimensions `ne`, innermost (contiguous) first. */
  readonly ne: readonly number[];
  /** Element type. */
  readonly type: GgmlTypeName;
  /** Encoded data (see `encodeGgml`). */
  readonly data: Uint8Array;
}

/** Little-endian byte buffer that grows as values are appended. */
class ByteSink {
  #buf = new Uint8Array(1 << 16);
  #view = new DataView(this.#buf.buffer);
  length = 0;
  readonly #encoder = new TextEncoder();

  #reserve(n: number): number {
    if (this.length + n > this.#buf.length) {
      const next = new Uint8Array(Math.max(this.#buf.length * 2, this.length + n));
      next.set(this.#buf.subarray(0, this.length));
      this.#buf = next;
      this.#view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }
  u8(v: number): void {
    const at = this.#reserve(1);
    this.#view.setUint8(at, v);
  }
  u32(v: number): void {
    const at = this.#reserve(4);
    this.#view.setUint32(at, v, true);
  }
  i32(v: number): void {
    const at = this.#reserve(4);
    this.#view.setInt32(at, v, true);
  }
  f32(v: number): void {
    const at = this.#reserve(4);
    this.#view.setFloat32(at, v, true);
  }
  u64(v: bigint | number): void {
    const at = this.#reserve(8);
    this.#view.setBigUint64(at, BigInt(v), true);
  }
  string(s: string): void {
    const bytes = this.#encoder.encode(s);
    this.u64(bytes.length);
    const at = this.#reserve(bytes.length);
    this.#buf.set(bytes, at);
  }
  pad(alignment: number): void {
    const n = (alignment - (this.length % alignment)) % alignment;
    this.#reserve(n); // the buffer is zero-filled
  }
  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.length);
  }
}

function writeValue(sink: ByteSink, v: GgufValue): void {
  if (v.type === 'array') {
    sink.u32(VALUE_TYPE[v.of]);
    sink.u64(v.values.length);
    if (v.of === 'string') for (const s of v.values as readonly string[]) sink.string(s);
    else if (v.of === 'i32') for (let i = 0; i < v.values.length; i++) sink.i32(v.values[i] as number);
    else for (let i = 0; i < v.values.length; i++) sink.f32(v.values[i] as number);
    return;
  }
  if (v.type === 'string') sink.string(v.value);
  else if (v.type === 'bool') sink.u8(v.value ? 1 : 0);
  else if (v.type === 'u64') sink.u64(v.value);
  else if (v.type === 'u32') sink.u32(v.value);
  else if (v.type === 'i32') sink.i32(v.value);
  else sink.f32(v.value);
}

/** Checks that a tensor's byte length matches its dimensions and type, and that rows fill whole blocks. */
function checkTensor(t: GgufTensor): void {
  const info = GGML_TYPES[t.type];
  const count = t.ne.reduce((a, b) => a * b, 1);
  const rowLength = t.ne[0] ?? 1;
  if (rowLength % info.blockSize !== 0) {
    throw new DantinoxError(
      'UNSUPPORTED',
      messages.ggufRowNotBlocked(t.name, rowLength, t.type, info.blockSize),
    );
  }
  if (t.data.length !== (count / info.blockSize) * info.blockBytes) {
    throw new DantinoxError('INVALID_INPUT', messages.ggufTensorBytes(t.name, t.data.length, t.ne, t.type));
  }
}

/**
 * Serialises the header (magic, version 3, counts, metadata, tensor infos, padding) of a GGUF file whose
 * tensors are `tensors`, in order; returns it with each tensor's data offset.
 */
export function ggufHeader(
  metadata: ReadonlyMap<string, GgufValue>,
  tensors: readonly GgufTensor[],
): { header: Uint8Array; offsets: number[] } {
  const sink = new ByteSink();
  sink.u32(0x46554747); // "GGUF"
  sink.u32(3);
  sink.u64(tensors.length);
  sink.u64(metadata.size);
  for (const [key, value] of metadata) {
    sink.string(key);
    sink.u32(VALUE_TYPE[value.type]);
    writeValue(sink, value);
  }
  const offsets: number[] = [];
  let offset = 0;
  for (const t of tensors) {
    checkTensor(t);
    sink.string(t.name);
    sink.u32(t.ne.length);
    for (const d of t.ne) sink.u64(d);
    sink.u32(GGML_TYPES[t.type].id);
    sink.u64(offset);
    offsets.push(offset);
    offset += Math.ceil(t.data.length / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;
  }
  sink.pad(GGUF_ALIGNMENT);
  return { header: sink.bytes(), offsets };
}

/**
 * Writes a GGUF v3 file: `metadata` in insertion order, then `tensors` in order, each tensor's data aligned to
 * {@link GGUF_ALIGNMENT} bytes. Returns the number of bytes written.
 *
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` when a block type's row length is not a multiple of its block,
 * `INVALID_INPUT` when a tensor's bytes do not match its shape, `IO` when the file cannot be written.
 */
export function writeGguf(
  path: string,
  metadata: ReadonlyMap<string, GgufValue>,
  tensors: readonly GgufTensor[],
): number {
  const { header } = ggufHeader(metadata, tensors);
  const zeros = new Uint8Array(GGUF_ALIGNMENT);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'w');
    let written = writeSync(fd, header);
    for (const t of tensors) {
      written += writeSync(fd, t.data);
      const pad = (GGUF_ALIGNMENT - (t.data.length % GGUF_ALIGNMENT)) % GGUF_ALIGNMENT;
      if (pad > 0) written += writeSync(fd, zeros, 0, pad);
    }
    return written;
  } catch (cause) {
    // A file cut short (a full disk) must never pass for a model, nor block the next export as "already exists".
    if (fd !== undefined) removePartial(path);
    throw new DantinoxError('IO', messages.cannotWrite(path, cause), { cause });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
