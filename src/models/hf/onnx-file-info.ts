/**
 * What an `.onnx` file declares about its weights, read without loading them: a streaming protobuf scan of
 * `ModelProto.graph.initializer` that skips tensor payloads (so a 500 MB model costs a few hundred small reads),
 * and the parameter count derived from it.
 *
 * @packageDocumentation
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { TENSOR_TYPES, WEIGHT_TENSOR_TYPES } from '../../dtype.js';
import type { ModelConfig } from '../model-config.js';

/** One initializer of an ONNX graph: name, shape, ONNX element type and external-data file if any. */
export interface OnnxInitializerInfo {
  /** Initializer name. */
  readonly name: string;
  /** Shape, outermost first. */
  readonly dims: readonly number[];
  /** `TensorProto.DataType` number (1 = float32, 10 = float16, 16 = bfloat16, 7 = int64…). */
  readonly dataType: number;
  /** `location` of its external data, relative to the model file, when stored outside it. */
  readonly externalLocation?: string;
}

/** Reads a byte range of a file through a 64 KiB window. */
class FileWindow {
  #buf = Buffer.alloc(0);
  #start = 0;
  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}

  byte(pos: number): number {
    if (pos < this.#start || pos >= this.#start + this.#buf.length) this.#fill(pos, 65536);
    return this.#buf[pos - this.#start] ?? 0;
  }

  bytes(pos: number, len: number): Buffer {
    if (pos < this.#start || pos + len > this.#start + this.#buf.length)
      this.#fill(pos, Math.max(len, 65536));
    return this.#buf.subarray(pos - this.#start, pos - this.#start + len);
  }

  #fill(pos: number, len: number): void {
    const n = Math.min(len, this.size - pos);
    if (n <= 0) throw new Error(`truncated file (read past byte ${this.size})`);
    const buf = Buffer.alloc(n);
    readSync(this.fd, buf, 0, n, pos);
    this.#buf = buf;
    this.#start = pos;
  }
}

/** A protobuf field: number, wire type, and either a varint value or the byte range of its payload. */
interface Field {
  readonly num: number;
  readonly wire: number;
  readonly value: number;
  readonly start: number;
  readonly end: number;
}

function varint(w: FileWindow, pos: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    const b = w.byte(pos + i);
    value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) return [value, pos + i + 1];
  }
  throw new Error(`malformed varint at byte ${pos}`);
}

function* fields(w: FileWindow, start: number, end: number): Generator<Field> {
  let pos = start;
  while (pos < end) {
    const [tag, afterTag] = varint(w, pos);
    const num = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === 0) {
      const [value, next] = varint(w, afterTag);
      yield { num, wire, value, start: afterTag, end: next };
      pos = next;
    } else if (wire === 2) {
      const [len, next] = varint(w, afterTag);
      yield { num, wire, value: len, start: next, end: next + len };
      pos = next + len;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      yield { num, wire, value: 0, start: afterTag, end: afterTag + size };
      pos = afterTag + size;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire} at byte ${pos}`);
    }
    if (pos > end) throw new Error(`field ${num} runs past its message (byte ${pos} > ${end})`);
  }
}

const text = (w: FileWindow, f: Field): string => w.bytes(f.start, f.end - f.start).toString('utf8');

function tensorInfo(w: FileWindow, start: number, end: number): OnnxInitializerInfo {
  const dims: number[] = [];
  let name = '';
  let dataType = 0;
  let externalLocation: string | undefined;
  for (const f of fields(w, start, end)) {
    if (f.num === 1 && f.wire === 0) dims.push(f.value);
    else if (f.num === 1 && f.wire === 2) {
      for (let p = f.start; p < f.end; ) {
        const [d, next] = varint(w, p);
        dims.push(d);
        p = next;
      }
    } else if (f.num === 2) dataType = f.value;
    else if (f.num === 8) name = text(w, f);
    else if (f.num === 13) {
      let key = '';
      let value = '';
      for (const e of fields(w, f.start, f.end)) {
        if (e.num === 1) key = text(w, e);
        else if (e.num === 2) value = text(w, e);
      }
      if (key === 'location') externalLocation = value;
    }
  }
  return externalLocation === undefined
    ? { name, dims, dataType }
    : { name, dims, dataType, externalLocation };
}

/** One node of an ONNX graph: operator, input and output names, and its integer attributes. */
export interface OnnxNodeInfo {
  /** `op_type`, e.g. `MatMul`, `Gather`, `MatMulNBits`. */
  readonly opType: string;
  /** Input names, in order (`''` for an omitted optional input). */
  readonly inputs: readonly string[];
  /** Output names, in order. */
  readonly outputs: readonly string[];
  /** Attributes holding one integer (`K`, `N`, `axis`…), by name. */
  readonly ints: Readonly<Record<string, number>>;
}

/** One graph input: its name and its shape (a number per fixed dimension, a string per named one). */
export interface OnnxInputInfo {
  /** Input name. */
  readonly name: string;
  /** Dimensions, outermost first: fixed sizes as numbers, symbolic ones as their names, unknown ones `undefined`. */
  readonly dims: readonly (number | string | undefined)[];
}

/** What the top-level graph of an ONNX file declares, read without its weights. */
export interface OnnxGraphInfo {
  /** Initializers (weights and constants), without their data. */
  readonly initializers: readonly OnnxInitializerInfo[];
  /** Nodes of the top-level graph (subgraphs of `If`/`Loop` nodes are not visited). */
  readonly nodes: readonly OnnxNodeInfo[];
  /** Graph inputs with their declared shapes. */
  readonly inputs: readonly OnnxInputInfo[];
}

function nodeInfo(w: FileWindow, start: number, end: number): OnnxNodeInfo {
  const inputs: string[] = [];
  const outputs: string[] = [];
  const ints: Record<string, number> = {};
  let opType = '';
  for (const f of fields(w, start, end)) {
    if (f.wire !== 2) continue;
    if (f.num === 1) inputs.push(text(w, f));
    else if (f.num === 2) outputs.push(text(w, f));
    else if (f.num === 4) opType = text(w, f);
    else if (f.num === 5) {
      let name = '';
      let value: number | undefined;
      for (const a of fields(w, f.start, f.end)) {
        if (a.num === 1 && a.wire === 2) name = text(w, a);
        else if (a.num === 3 && a.wire === 0) value = a.value;
      }
      if (value !== undefined && name !== '') ints[name] = value;
    }
  }
  return { opType, inputs, outputs, ints };
}

/** The message of field `num` (wire type 2) inside `[start, end)`, or `undefined`. */
function child(w: FileWindow, start: number, end: number, num: number): Field | undefined {
  for (const f of fields(w, start, end)) if (f.num === num && f.wire === 2) return f;
  return undefined;
}

function inputInfo(w: FileWindow, start: number, end: number): OnnxInputInfo {
  let name = '';
  const dims: (number | string | undefined)[] = [];
  for (const f of fields(w, start, end)) {
    if (f.num === 1 && f.wire === 2) name = text(w, f);
    else if (f.num === 2 && f.wire === 2) {
      // TypeProto.tensor_type (1) → TypeProto.Tensor.shape (2) → TensorShapeProto.dim (1, repeated).
      const tensor = child(w, f.start, f.end, 1);
      const shape = tensor === undefined ? undefined : child(w, tensor.start, tensor.end, 2);
      if (shape === undefined) continue;
      for (const d of fields(w, shape.start, shape.end)) {
        if (d.num !== 1 || d.wire !== 2) continue;
        let dim: number | string | undefined;
        for (const v of fields(w, d.start, d.end)) {
          if (v.num === 1 && v.wire === 0) dim = v.value;
          else if (v.num === 2 && v.wire === 2) dim = text(w, v);
        }
        dims.push(dim);
      }
    }
  }
  return { name, dims };
}

/**
 * The initializers, nodes and inputs of the top-level graph of the ONNX model at `path`, without reading the
 * weights' data.
 *
 * @throws Error when the file is not a well-formed protobuf (callers wrap it in a `DantinoxError`).
 */
export function readOnnxGraph(path: string): OnnxGraphInfo {
  const fd = openSync(path, 'r');
  try {
    const { size } = fstatSync(fd);
    const w = new FileWindow(fd, size);
    const initializers: OnnxInitializerInfo[] = [];
    const nodes: OnnxNodeInfo[] = [];
    const inputs: OnnxInputInfo[] = [];
    let sawGraph = false;
    for (const f of fields(w, 0, size)) {
      if (f.num !== 7 || f.wire !== 2) continue;
      sawGraph = true;
      for (const g of fields(w, f.start, f.end)) {
        if (g.wire !== 2) continue;
        if (g.num === 5) initializers.push(tensorInfo(w, g.start, g.end));
        else if (g.num === 1) nodes.push(nodeInfo(w, g.start, g.end));
        else if (g.num === 11) inputs.push(inputInfo(w, g.start, g.end));
      }
    }
    if (!sawGraph) throw new Error('no graph in the file');
    return { initializers, nodes, inputs };
  } finally {
    closeSync(fd);
  }
}

/**
 * The initializers of the ONNX model at `path` (top-level graph only), without reading their data.
 *
 * @throws Error when the file is not a well-formed protobuf (callers wrap it in a `DantinoxError`).
 */
export function readOnnxInitializers(path: string): OnnxInitializerInfo[] {
  return [...readOnnxGraph(path).initializers];
}

/** ONNX element type numbers of the tensor types that hold weights (float and 8-/4-bit integers). */
const WEIGHT_TYPES: ReadonlySet<number> = new Set(WEIGHT_TENSOR_TYPES.map((t) => TENSOR_TYPES[t].onnx));
const ROTARY_NAME = /rope|rotary|cos|sin|inv_freq/i;

const QUANTIZATION_AUX = /(^|[._])(scales?|zero_points?|zp)$/i;
const UINT8 = TENSOR_TYPES.uint8.onnx;

/**
 * Number of parameters declared by `initializers`: elements of weight-typed initializers (float, float16,
 * bfloat16, double, int8/uint8/int4/uint4), excluding scalars and 1-element constants, integer shape/index tensors,
 * rotary cos/sin/inverse-frequency tables (by name, for rotary models), the scales and zero points of quantized
 * matrices (by name: `…scale(s)`, `…zero_point(s)`, `…zp`), and, for a tied head, a second copy of the `[V, D]`
 * embedding (transposed, or quantized) counted once. A 3-D `uint8` initializer is a `MatMulNBits` matrix packed
 * two 4-bit values per byte: it counts twice its bytes.
 */
export function countOnnxParameters(
  initializers: readonly OnnxInitializerInfo[],
  config: ModelConfig,
): number {
  let total = 0;
  let embedding = false;
  let headCopy = 0;
  const embeddingSize = config.vocabSize * config.dim;
  for (const t of initializers) {
    if (!WEIGHT_TYPES.has(t.dataType)) continue;
    const elements = t.dims.reduce((a, b) => a * b, 1);
    if (t.dims.length === 0 || elements <= 1) continue;
    if (QUANTIZATION_AUX.test(t.name)) continue;
    if (config.posEncoding === 'rotary' && ROTARY_NAME.test(t.name)) {
      const last = t.dims[t.dims.length - 1];
      if (last === config.headSize || last === config.headSize / 2) continue;
    }
    const n = t.dataType === UINT8 && t.dims.length === 3 ? 2 * elements : elements;
    const [a, b] = t.dims;
    if (!embedding && t.dims.length === 2 && a === config.vocabSize && b === config.dim) embedding = true;
    else if (headCopy === 0 && n === embeddingSize) headCopy = n;
    total += n;
  }
  return config.weightTying && embedding ? total - headCopy : total;
}
