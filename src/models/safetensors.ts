/**
 * Reading and writing weights in the safetensors format (Hugging Face): an 8-byte little-endian header length
 * N, a JSON header of N bytes `{name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?: {k: v}}`, then
 * the raw little-endian tensor bytes, offsets relative to the end of the header.
 *
 * Files are streamed tensor by tensor: neither function builds the whole file in memory.
 *
 * @packageDocumentation
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { endianness } from 'node:os';
import { TENSOR_TYPES } from '../dtype.js';
import { DantinoxError, errorText } from '../errors.js';
import { messages } from '../messages.js';
import { halfToFloat } from './float16.js';
import { numElements, type WeightMap, type WeightTensor } from './weights.js';

/** Contents of a safetensors file: its tensors (as float32) and its string metadata. */
export interface SafetensorsFile {
  /** Tensors by name, in file order, converted to float32. */
  readonly weights: WeightMap;
  /** The `__metadata__` string map (empty when absent). */
  readonly metadata: Readonly<Record<string, string>>;
}

/** Bytes per element of the safetensors dtypes we read (and convert to float32), by safetensors name. */
const DTYPE_BYTES: ReadonlyMap<string, number> = new Map(
  (['float32', 'float16', 'bfloat16'] as const).map((t) => [
    TENSOR_TYPES[t].safetensors,
    TENSOR_TYPES[t].bytes,
  ]),
);

/** Largest header we accept, as the reference implementation does (100 MB). */
const MAX_HEADER_BYTES = 100_000_000;

/** Bytes per read/write system call when streaming tensor data. */
const CHUNK_BYTES = 1 << 26;

/** Float32Array views are platform-endian and safetensors is little-endian; every Node target we know is LE. */
function assertLittleEndian(): void {
  if (endianness() !== 'LE')
    throw new DantinoxError('UNSUPPORTED', 'safetensors I/O needs a little-endian platform.');
}

/**
 * Writes `weights` to `path` as a safetensors file with F32 tensors in map order, and `metadata` as
 * `__metadata__`. The header is padded with spaces to a multiple of 8 bytes so tensor data stays aligned.
 *
 * @param metadata - string key/value pairs stored in the header (e.g. the model config as JSON). @default {}
 * @throws {@link dantinox!DantinoxError} `IO` when the file cannot be written; `INVALID_INPUT` when a tensor's data length
 * does not match its shape.
 */
export async function saveSafetensors(
  path: string,
  weights: WeightMap,
  metadata: Readonly<Record<string, string>> = {},
): Promise<void> {
  assertLittleEndian();
  const header: Record<string, unknown> =
    Object.keys(metadata).length > 0 ? { __metadata__: { ...metadata } } : {};
  let offset = 0;
  for (const [name, t] of weights) {
    if (t.data.length !== numElements(t.dims)) {
      throw new DantinoxError('INVALID_INPUT', `${name}: ${messages.weightLength(t.data.length, t.dims)}`);
    }
    const end = offset + t.data.byteLength;
    header[name] = {
      dtype: TENSOR_TYPES.float32.safetensors,
      shape: [...t.dims],
      data_offsets: [offset, end],
    };
    offset = end;
  }
  let json = Buffer.from(JSON.stringify(header), 'utf8');
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) json = Buffer.concat([json, Buffer.alloc(padded - json.length, 0x20)]);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(json.length));
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(path, 'w');
    await writeAll(fh, prefix);
    await writeAll(fh, json);
    for (const t of weights.values()) {
      await writeAll(fh, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    }
  } catch (cause) {
    throw new DantinoxError('IO', `Cannot write safetensors file "${path}": ${errorText(cause)}.`, { cause });
  } finally {
    await fh?.close();
  }
}

async function writeAll(fh: Awaited<ReturnType<typeof open>>, bytes: Uint8Array): Promise<void> {
  for (let pos = 0; pos < bytes.length; pos += CHUNK_BYTES) {
    const chunk = bytes.subarray(pos, Math.min(bytes.length, pos + CHUNK_BYTES));
    let written = 0;
    while (written < chunk.length) {
      const r = await fh.write(chunk, written, chunk.length - written);
      written += r.bytesWritten;
    }
  }
}

async function readExactly(
  fh: Awaited<ReturnType<typeof open>>,
  into: Uint8Array,
  position: number,
): Promise<number> {
  let done = 0;
  while (done < into.length) {
    const n = Math.min(CHUNK_BYTES, into.length - done);
    const r = await fh.read(into, done, n, position + done);
    if (r.bytesRead === 0) break;
    done += r.bytesRead;
  }
  return done;
}

interface HeaderEntry {
  readonly name: string;
  readonly dtype: string;
  readonly shape: number[];
  readonly begin: number;
  readonly end: number;
}

function parseHeader(
  path: string,
  json: string,
  dataBytes: number,
): { entries: HeaderEntry[]; meta: Record<string, string> } {
  const bad = (problem: string): DantinoxError =>
    new DantinoxError('IO', messages.badSafetensors(path, problem));
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new DantinoxError('IO', messages.badSafetensors(path, `header is not JSON (${errorText(cause)})`), {
      cause,
    });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad('header is not a JSON object');
  const meta: Record<string, string> = {};
  const entries: HeaderEntry[] = [];
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (value === null || typeof value !== 'object') throw bad('__metadata__ is not an object');
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) meta[k] = String(v);
      continue;
    }
    const v = value as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    const shape = v?.shape;
    const offsets = v?.data_offsets;
    if (
      v === null ||
      typeof v !== 'object' ||
      typeof v.dtype !== 'string' ||
      !Array.isArray(shape) ||
      !shape.every((d) => Number.isSafeInteger(d) && d >= 0) ||
      !Array.isArray(offsets) ||
      offsets.length !== 2 ||
      !offsets.every((o) => Number.isSafeInteger(o) && o >= 0)
    ) {
      throw bad(`tensor "${name}" needs dtype (string), shape (integers) and data_offsets ([begin, end])`);
    }
    const [begin, end] = offsets as [number, number];
    if (end < begin || end > dataBytes) {
      throw bad(`tensor "${name}" has data_offsets [${begin}, ${end}] outside the ${dataBytes} data bytes`);
    }
    const size = DTYPE_BYTES.get(v.dtype);
    if (size !== undefined && end - begin !== numElements(shape as number[]) * size) {
      throw bad(
        `tensor "${name}" has ${end - begin} bytes but shape [${shape.join(', ')}] of ${v.dtype} needs ${numElements(shape as number[]) * size}`,
      );
    }
    entries.push({ name, dtype: v.dtype, shape: shape as number[], begin, end });
  }
  entries.sort((a, b) => a.begin - b.begin);
  return { entries, meta };
}

/** The header length stored in `prefix`, checked against the file's size. */
function headerLength(path: string, prefix: Uint8Array, fileBytes: number): number {
  const headerBytes = Buffer.from(prefix).readBigUInt64LE(0);
  if (headerBytes > BigInt(Math.min(MAX_HEADER_BYTES, fileBytes - 8))) {
    throw new DantinoxError(
      'IO',
      messages.badSafetensors(
        path,
        `header length ${headerBytes} exceeds the file size (${fileBytes} bytes) or 100 MB`,
      ),
    );
  }
  return Number(headerBytes);
}

/**
 * The `__metadata__` of a safetensors file, read synchronously from its header alone (no tensor data is read).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the file cannot be read or its header is malformed.
 */
export function readSafetensorsMetadata(path: string): Readonly<Record<string, string>> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotRead(path, 'safetensors', cause), { cause });
  }
  try {
    const fileBytes = fstatSync(fd).size;
    const prefix = new Uint8Array(8);
    if (fileBytes < 8 || readSync(fd, prefix, 0, 8, 0) < 8) {
      throw new DantinoxError(
        'IO',
        messages.badSafetensors(path, `file is ${fileBytes} bytes, shorter than the 8-byte header length`),
      );
    }
    const n = headerLength(path, prefix, fileBytes);
    const header = new Uint8Array(n);
    for (let done = 0; done < n; ) {
      const read = readSync(fd, header, done, n - done, 8 + done);
      if (read === 0) break;
      done += read;
    }
    return parseHeader(path, Buffer.from(header).toString('utf8'), fileBytes - 8 - n).meta;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a safetensors file, converting F16 and BF16 tensors to float32. Tensors are read one by one straight
 * into their own buffers (F32) or through one temporary buffer per tensor (F16/BF16).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the file cannot be read or is malformed (bad header length, header
 * not JSON, offsets out of range or inconsistent with the shape, truncated data); `UNSUPPORTED` for a dtype
 * other than F32, F16 or BF16.
 */
export async function loadSafetensors(path: string): Promise<SafetensorsFile> {
  assertLittleEndian();
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotRead(path, 'safetensors', cause), { cause });
  }
  try {
    const fileBytes = (await fh.stat()).size;
    const prefix = new Uint8Array(8);
    if ((await readExactly(fh, prefix, 0)) < 8) {
      throw new DantinoxError(
        'IO',
        messages.badSafetensors(path, `file is ${fileBytes} bytes, shorter than the 8-byte header length`),
      );
    }
    const n = headerLength(path, prefix, fileBytes);
    const headerBuf = new Uint8Array(n);
    await readExactly(fh, headerBuf, 8);
    const dataStart = 8 + n;
    const { entries, meta } = parseHeader(
      path,
      Buffer.from(headerBuf).toString('utf8'),
      fileBytes - dataStart,
    );
    const weights = new Map<string, WeightTensor>();
    for (const e of entries) {
      const count = numElements(e.shape);
      const size = DTYPE_BYTES.get(e.dtype);
      if (size === undefined)
        throw new DantinoxError('UNSUPPORTED', messages.unsupportedDtype(path, e.name, e.dtype));
      const data = new Float32Array(count);
      if (e.dtype === TENSOR_TYPES.float32.safetensors) {
        await readExactly(fh, new Uint8Array(data.buffer), dataStart + e.begin);
      } else {
        const tmp = new Uint8Array(count * 2);
        await readExactly(fh, tmp, dataStart + e.begin);
        const halves = new Uint16Array(tmp.buffer);
        if (e.dtype === TENSOR_TYPES.float16.safetensors) {
          for (let i = 0; i < count; i++) data[i] = halfToFloat(halves[i] ?? 0);
        } else {
          const bits = new Uint32Array(data.buffer);
          for (let i = 0; i < count; i++) bits[i] = (halves[i] ?? 0) << 16;
        }
      }
      weights.set(e.name, { dims: e.shape, data });
    }
    return { weights, metadata: meta };
  } catch (cause) {
    if (cause instanceof DantinoxError) throw cause;
    throw new DantinoxError('IO', `Cannot read safetensors file "${path}": ${errorText(cause)}.`, { cause });
  } finally {
    await fh.close();
  }
}
