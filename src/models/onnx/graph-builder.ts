/**
 * The ONNX graph builder of dantinox, over `onnx-proto` (protobufjs): named nodes with typed attributes, float32
 * weight initializers (views of the weight arrays, never copied) and deduplicated small constants, graph
 * inputs/outputs with symbolic dimensions. A built graph is either encoded for an in-memory session (large weights
 * become the session's external data) or written to disk as `model.onnx` (+ `model.onnx_data`).
 *
 * @packageDocumentation
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import onnxProto from 'onnx-proto';
import { TENSOR_TYPES, type TensorType } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';

/** The `onnx` protobuf namespace (messages and enums of `onnx.proto`); dantinox obtains it here only. */
export import onnx = onnxProto.onnx;

/** Domain of ONNX Runtime's contrib operators. */
export const MS_DOMAIN = 'com.microsoft';

/** A typed node attribute: the wrapper says how to encode numbers (ONNX distinguishes int and float). */
export type Attribute =
  | { readonly int: number }
  | { readonly float: number }
  | { readonly ints: readonly number[] }
  | { readonly string: string };

/** One dimension of a graph input: a fixed size or a symbolic name. */
export type Dim = number | string;

/** A chunk of external weight data handed to ONNX Runtime's `externalData` session option. */
export interface ExternalDataEntry {
  /** The "file" name the tensor's `location` refers to. */
  readonly path: string;
  /** The bytes (a view of the weight's Float32Array: not copied). */
  readonly data: Uint8Array;
}

/** Options of {@link GraphBuilder.write}. */
export interface WriteGraphOptions {
  /**
   * Store weights of at least {@link EXTERNAL_DATA_MIN_BYTES} in `<model>_data` (e.g. `model.onnx_data`) instead
   * of inside the model file: needed beyond the 2 GB protobuf limit, and keeps the protobuf small.
   * @default false
   */
  readonly externalData?: boolean;
  /**
   * Outputs whose producing nodes are written first, ahead of the topological order (ONNX Runtime sorts the graph
   * itself and accepts such a file; `onnx.checker` does not, so use it only for files ONNX Runtime alone reads).
   * ONNX Runtime prepacks weights in the file's node order, so listing the node of the largest matrix first packs
   * it while few other weights are resident (see `model-files.ts`).
   * @default [] (topological order)
   */
  readonly firstNodes?: readonly string[];
}

/** Weights of at least this many bytes are stored as external data instead of inside the protobuf. */
export const EXTERNAL_DATA_MIN_BYTES = 1024;

/** ONNX opset of the generated graphs (ONNX IR version 10); com.microsoft operators are at opset 1. */
export const GRAPH_OPSET = 21;

/** Alignment of tensors in an external-data file (4 KiB), so ONNX Runtime can memory-map them. */
const EXTERNAL_DATA_ALIGN = 4096;

/**
 * An initializer: its protobuf fields without data placement, and the weight bytes when it is a weight kept in
 * memory, or where a streamed weight was written (`externalData` entries).
 */
interface Initializer {
  readonly tensor: onnx.ITensorProto;
  readonly weight?: Uint8Array;
  readonly placed?: onnx.IStringStringEntryProto[];
}

/** Options of the {@link GraphBuilder} constructor. */
export interface GraphBuilderOptions {
  /**
   * Stream the weights to disk as they are added: each weight of at least {@link EXTERNAL_DATA_MIN_BYTES} is
   * written to `${streamTo}_data` (4 KiB-aligned) when {@link GraphBuilder.tensorInit} receives it, and the builder
   * keeps no reference to its bytes, so a caller that drops each array after adding it holds one weight at a
   * time. Finish with `write(streamTo, { externalData: true })`; such a builder cannot {@link GraphBuilder.encode}.
   */
  readonly streamTo?: string;
  /**
   * Called after each weight streamed to disk with the bytes streamed so far, e.g. to collect the arrays already
   * written before the engine allocates its own copy.
   */
  readonly onStreamed?: (streamedBytes: number) => void;
}

/** The `<model>_data` file a streaming builder appends weights to. */
class ExternalDataFile {
  readonly #fd: number;
  #end = 0;

  constructor(
    readonly path: string,
    readonly location: string,
  ) {
    this.#fd = openSync(path, 'w');
  }

  /** Appends `bytes` at the next 4 KiB boundary; returns the tensor's `externalData` entries. */
  append(bytes: Uint8Array): onnx.IStringStringEntryProto[] {
    const offset = Math.ceil(this.#end / EXTERNAL_DATA_ALIGN) * EXTERNAL_DATA_ALIGN;
    if (offset > this.#end) writeSync(this.#fd, new Uint8Array(offset - this.#end));
    writeSync(this.#fd, bytes);
    this.#end = offset + bytes.byteLength;
    return externalEntries(this.location, offset, bytes.byteLength);
  }

  /** Bytes written so far. */
  get size(): number {
    return this.#end;
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** Where a weight's bytes go: the `externalData` entries of the tensor, or `undefined` to keep it inline. */
type PlaceWeight = (name: string, bytes: Uint8Array) => onnx.IStringStringEntryProto[] | undefined;

function encodeAttribute(name: string, a: Attribute): onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if ('int' in a) return { name, type: T.INT, i: a.int };
  if ('float' in a) return { name, type: T.FLOAT, f: a.float };
  if ('ints' in a) return { name, type: T.INTS, ints: [...a.ints] };
  return { name, type: T.STRING, s: new TextEncoder().encode(a.string) };
}

function externalEntries(location: string, offset: number, length: number): onnx.IStringStringEntryProto[] {
  return [
    { key: 'location', value: location },
    { key: 'offset', value: String(offset) },
    { key: 'length', value: String(length) },
  ];
}

/**
 * Accumulates an ONNX graph. Value names are generated (`matmul_0`, `const_i64_1`, …) unless given; every node
 * gets a unique name. {@link GraphBuilder.encode} produces the model bytes and {@link GraphBuilder.externalData}
 * the weights for an in-memory session; {@link GraphBuilder.write} writes the model files instead.
 */
export class GraphBuilder {
  readonly #nodes: onnx.INodeProto[] = [];
  readonly #initializers: Initializer[] = [];
  readonly #inputs: onnx.IValueInfoProto[] = [];
  readonly #outputs: onnx.IValueInfoProto[] = [];
  readonly #metadata: Record<string, string> = {};
  readonly #constCache = new Map<string, string>();
  readonly #stream: ExternalDataFile | undefined;
  readonly #onStreamed: ((streamedBytes: number) => void) | undefined;
  #counter = 0;

  /**
   * @throws a file-system error when `options.streamTo`'s data file cannot be created.
   */
  constructor(options: GraphBuilderOptions = {}) {
    this.#stream =
      options.streamTo === undefined
        ? undefined
        : new ExternalDataFile(`${options.streamTo}_data`, `${basename(options.streamTo)}_data`);
    this.#onStreamed = options.onStreamed;
  }

  /** A fresh value name with an optional readable prefix. */
  fresh(prefix = 'v'): string {
    return `${prefix}_${this.#counter++}`;
  }

  /**
   * Adds a node and returns its output names (`outputs` as a count generates names; pass names to pick them;
   * an empty string omits an optional output).
   */
  node(
    opType: string,
    inputs: readonly string[],
    outputs: number | readonly string[] = 1,
    attributes: Readonly<Record<string, Attribute>> = {},
    options: { domain?: string; tag?: string } = {},
  ): string[] {
    const outs =
      typeof outputs === 'number'
        ? Array.from({ length: outputs }, () => this.fresh(opType.toLowerCase()))
        : [...outputs];
    this.#nodes.push({
      opType,
      domain: options.domain ?? '',
      input: [...inputs],
      output: outs,
      name: `n${this.#nodes.length}_${opType}`,
      attribute: Object.entries(attributes).map(([k, v]) => encodeAttribute(k, v)),
      ...(options.tag ? { docString: options.tag } : {}),
    });
    return outs;
  }

  /** Adds a single-output node and returns its output name (`options.output` names it). */
  op(
    opType: string,
    inputs: readonly string[],
    attributes: Readonly<Record<string, Attribute>> = {},
    options: { domain?: string; tag?: string; output?: string } = {},
  ): string {
    const out = this.node(opType, inputs, options.output ? [options.output] : 1, attributes, options);
    return out[0] as string;
  }

  /**
   * Adds a float32 weight initializer over a view of `data` (no copy). Weights of at least
   * {@link EXTERNAL_DATA_MIN_BYTES} bytes become external data when encoded or written, so the protobuf stays
   * small and the weights exist once in JS.
   */
  floatInit(name: string, dims: readonly number[], data: Float32Array): string {
    return this.tensorInit(name, dims, 'float32', data);
  }

  /**
   * Adds a weight initializer of element type `type` over a view of `data`'s bytes (no copy): quantized
   * weights (int8, packed 4-bit uint8), their scales, float16 weights. Large ones become external data like
   * {@link GraphBuilder.floatInit}'s.
   */
  tensorInit(name: string, dims: readonly number[], type: TensorType, data: ArrayBufferView): string {
    const tensor = { name, dims: [...dims], dataType: TENSOR_TYPES[type].onnx };
    const weight = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (this.#stream !== undefined && weight.byteLength >= EXTERNAL_DATA_MIN_BYTES) {
      this.#initializers.push({ tensor, placed: this.#stream.append(weight) });
      this.#onStreamed?.(this.#stream.size);
    } else this.#initializers.push({ tensor, weight });
    return name;
  }

  /** Bytes of weights streamed to disk so far (0 unless the builder streams; see {@link GraphBuilderOptions}). */
  get streamedBytes(): number {
    return this.#stream?.size ?? 0;
  }

  /** Closes a streaming builder's data file without writing the model (after a failed build); idempotent. */
  discard(): void {
    this.#closeStream();
  }

  #closed = false;

  #closeStream(): void {
    if (this.#stream === undefined || this.#closed) return;
    this.#closed = true;
    this.#stream.close();
  }

  /** An int64 constant initializer (shapes, axes), deduplicated by value. */
  int64(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.#constant('i64', values, dims, { dataType: TENSOR_TYPES.int64.onnx, int64Data: [...values] });
  }

  /** A float scalar or small float constant initializer, deduplicated by value. */
  float(values: readonly number[], dims: readonly number[] = []): string {
    return this.#constant('f32', values, dims, {
      dataType: TENSOR_TYPES.float32.onnx,
      floatData: [...values],
    });
  }

  /** A float64 scalar or small constant initializer, deduplicated by value. */
  double(values: readonly number[], dims: readonly number[] = []): string {
    return this.#constant('f64', values, dims, {
      dataType: TENSOR_TYPES.float64.onnx,
      doubleData: [...values],
    });
  }

  #constant(
    kind: string,
    values: readonly number[],
    dims: readonly number[],
    data: onnx.ITensorProto,
  ): string {
    const key = `${kind}:${dims.join('x')}:${values.join(',')}`;
    const cached = this.#constCache.get(key);
    if (cached !== undefined) return cached;
    const name = this.fresh(`const_${kind}`);
    this.#initializers.push({ tensor: { name, dims: [...dims], ...data } });
    this.#constCache.set(key, name);
    return name;
  }

  /** Declares a graph input of element type `type` (e.g. `float32`, `int64`). */
  input(name: string, type: TensorType, dims: readonly Dim[]): string {
    this.#inputs.push(valueInfo(name, type, dims));
    return name;
  }

  /** Declares a graph output; its shape is left to inference unless `dims` are given. */
  output(name: string, type: TensorType = 'float32', dims?: readonly Dim[]): string {
    this.#outputs.push(valueInfo(name, type, dims));
    return name;
  }

  /** Sets a `metadata_props` entry of the model. */
  metadata(key: string, value: string): void {
    this.#metadata[key] = value;
  }

  /** The weights stored outside the protobuf by {@link GraphBuilder.encode}, for the session's `externalData`. */
  get externalData(): readonly ExternalDataEntry[] {
    if (this.#stream !== undefined)
      throw new DantinoxError('INVALID_INPUT', messages.streamedGraphInMemory(this.#stream.path));
    const out: ExternalDataEntry[] = [];
    for (const { tensor, weight } of this.#initializers) {
      if (weight !== undefined && weight.byteLength >= EXTERNAL_DATA_MIN_BYTES)
        out.push({ path: tensor.name as string, data: weight });
    }
    return out;
  }

  /**
   * Encodes the model for an in-memory session: each weight of at least {@link EXTERNAL_DATA_MIN_BYTES} is an
   * external tensor whose `location` is its own name (see {@link GraphBuilder.externalData}).
   */
  encode(): Uint8Array {
    if (this.#stream !== undefined)
      throw new DantinoxError('INVALID_INPUT', messages.streamedGraphInMemory(this.#stream.path));
    return this.#encode([], (name, bytes) => externalEntries(name, 0, bytes.byteLength));
  }

  /**
   * Writes the model to `path` and, with `externalData`, the large weights to `<path>_data` at 4 KiB-aligned
   * offsets (files are overwritten); returns the bytes written.
   */
  write(path: string, options: WriteGraphOptions = {}): number {
    if (this.#stream !== undefined) return this.#writeStreamed(path, options);
    let fd: number | undefined;
    let end = 0;
    let model: Uint8Array;
    try {
      model = this.#encode(options.firstNodes ?? [], (_, bytes) => {
        if (!options.externalData) return undefined;
        fd ??= openSync(`${path}_data`, 'w');
        const offset = Math.ceil(end / EXTERNAL_DATA_ALIGN) * EXTERNAL_DATA_ALIGN;
        if (offset > end) writeSync(fd, new Uint8Array(offset - end));
        writeSync(fd, bytes);
        end = offset + bytes.byteLength;
        return externalEntries(`${basename(path)}_data`, offset, bytes.byteLength);
      });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    const out = openSync(path, 'w');
    try {
      writeSync(out, model);
    } finally {
      closeSync(out);
    }
    return model.byteLength + end;
  }

  /** {@link GraphBuilder.write} of a streaming builder: its weights are already in the data file. */
  #writeStreamed(path: string, options: WriteGraphOptions): number {
    const stream = this.#stream as ExternalDataFile;
    this.#closeStream();
    if (options.externalData !== true || `${path}_data` !== stream.path)
      throw new DantinoxError('INVALID_INPUT', messages.streamedGraphPath(stream.path, path));
    const model = this.#encode(options.firstNodes ?? [], () => undefined);
    const out = openSync(path, 'w');
    try {
      writeSync(out, model);
    } finally {
      closeSync(out);
    }
    return model.byteLength + stream.size;
  }

  /** The `ModelProto` bytes, with each large weight placed by `place` (or where it was streamed), smaller ones inline. */
  #encode(firstNodes: readonly string[], place: PlaceWeight): Uint8Array {
    const initializer = this.#initializers.map(({ tensor, weight, placed }): onnx.ITensorProto => {
      if (placed !== undefined)
        return { ...tensor, dataLocation: onnx.TensorProto.DataLocation.EXTERNAL, externalData: placed };
      if (weight === undefined) return tensor;
      const external =
        weight.byteLength >= EXTERNAL_DATA_MIN_BYTES ? place(tensor.name as string, weight) : undefined;
      return external === undefined
        ? { ...tensor, rawData: weight }
        : { ...tensor, dataLocation: onnx.TensorProto.DataLocation.EXTERNAL, externalData: external };
    });
    const contrib = this.#nodes.some((n) => n.domain === MS_DOMAIN);
    const model = onnx.ModelProto.create({
      irVersion: 10,
      producerName: 'dantinox',
      opsetImport: [
        { domain: '', version: GRAPH_OPSET },
        ...(contrib ? [{ domain: MS_DOMAIN, version: 1 }] : []),
      ],
      metadataProps: Object.entries(this.#metadata).map(([key, value]) => ({ key, value })),
      graph: {
        name: 'dantinox',
        node: leading(this.#nodes, firstNodes),
        initializer,
        input: this.#inputs,
        output: this.#outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

/** `nodes` with those producing one of `outputs` moved to the front (in their order), the others after. */
function leading(nodes: readonly onnx.INodeProto[], outputs: readonly string[]): onnx.INodeProto[] {
  const first = (n: onnx.INodeProto): boolean => (n.output ?? []).some((o) => outputs.includes(o));
  return [...nodes.filter(first), ...nodes.filter((n) => !first(n))];
}

function valueInfo(name: string, type: TensorType, dims: readonly Dim[] | undefined): onnx.IValueInfoProto {
  const shape =
    dims === undefined
      ? {}
      : { shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } };
  return { name, type: { tensorType: { elemType: TENSOR_TYPES[type].onnx, ...shape } } };
}
