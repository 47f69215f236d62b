/**
 * A small ONNX graph builder over `onnx-proto` (protobufjs): named nodes with typed attributes, initializers
 * stored inline or as in-memory external data, graph inputs/outputs with symbolic dimensions, and encoding to
 * the protobuf bytes ONNX Runtime loads.
 *
 * @packageDocumentation
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/** ONNX tensor element types used by the generated graphs. */
export const ElemType = { float: 1, bool: 9, int32: 6, int64: 7 } as const;
/** An ONNX tensor element type code. */
export type ElemType = (typeof ElemType)[keyof typeof ElemType];

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

/** A node of the graph as the FLOPs counter and the tests see it. */
export interface NodeInfo {
  /** Operator type, e.g. `MatMul`. */
  readonly opType: string;
  /** Operator domain (`''` for the ONNX domain). */
  readonly domain: string;
  /** Input value names (`''` for an omitted optional input). */
  readonly inputs: readonly string[];
  /** Output value names. */
  readonly outputs: readonly string[];
  /** Attributes by name. */
  readonly attributes: Readonly<Record<string, Attribute>>;
  /** Free-form tag set by the builder (e.g. `attention:scores`), read by the FLOPs counter. */
  readonly tag: string;
}

/** An initializer's shape and type (its data may live outside the protobuf). */
export interface InitializerInfo {
  /** Shape. */
  readonly dims: readonly number[];
  /** Element type. */
  readonly type: ElemType;
  /** Int64 values of small integer constants (shape tensors); `undefined` for float data. */
  readonly int64?: readonly number[];
}

/** A chunk of external weight data handed to ONNX Runtime's `externalData` session option. */
export interface ExternalDataEntry {
  /** The "file" name the tensor's `location` refers to. */
  readonly path: string;
  /** The bytes (a view of the weight's Float32Array: not copied). */
  readonly data: Uint8Array;
}

/** Float tensors at least this many bytes are stored as external data instead of inside the protobuf. */
export const EXTERNAL_DATA_MIN_BYTES = 1024;

function encodeAttribute(name: string, a: Attribute): onnxProto.onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if ('int' in a) return { name, type: T.INT, i: a.int };
  if ('float' in a) return { name, type: T.FLOAT, f: a.float };
  if ('ints' in a) return { name, type: T.INTS, ints: [...a.ints] };
  return { name, type: T.STRING, s: new TextEncoder().encode(a.string) };
}

/**
 * Accumulates an ONNX graph. Value names are generated (`v0`, `v1`, …) unless given; every node gets a unique
 * name. {@link GraphBuilder.encode} produces the model bytes and the external-data list for the session.
 */
export class GraphBuilder {
  readonly #nodes: onnxProto.onnx.INodeProto[] = [];
  readonly #nodeInfos: NodeInfo[] = [];
  readonly #initializers: onnxProto.onnx.ITensorProto[] = [];
  readonly #initInfos = new Map<string, InitializerInfo>();
  readonly #inputs: onnxProto.onnx.IValueInfoProto[] = [];
  readonly #outputs: onnxProto.onnx.IValueInfoProto[] = [];
  readonly #external: ExternalDataEntry[] = [];
  readonly #metadata: Record<string, string> = {};
  readonly #constCache = new Map<string, string>();
  #counter = 0;

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
    const domain = options.domain ?? '';
    this.#nodes.push({
      opType,
      domain,
      input: [...inputs],
      output: outs,
      name: `n${this.#nodes.length}_${opType}`,
      attribute: Object.entries(attributes).map(([k, v]) => encodeAttribute(k, v)),
      ...(options.tag ? { docString: options.tag } : {}),
    });
    this.#nodeInfos.push({
      opType,
      domain,
      inputs: [...inputs],
      outputs: outs,
      attributes,
      tag: options.tag ?? '',
    });
    return outs;
  }

  /** Adds a single-output node and returns its output name. */
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
   * Adds a float32 initializer. Tensors of at least {@link EXTERNAL_DATA_MIN_BYTES} bytes become external data
   * pointing at a view of `data` (no copy), so the protobuf stays small and the weights exist once in JS.
   */
  floatInit(name: string, dims: readonly number[], data: Float32Array): string {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (data.byteLength >= EXTERNAL_DATA_MIN_BYTES) {
      this.#external.push({ path: name, data: bytes });
      this.#initializers.push({
        name,
        dims: [...dims],
        dataType: ElemType.float,
        dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
        externalData: [
          { key: 'location', value: name },
          { key: 'offset', value: '0' },
          { key: 'length', value: String(data.byteLength) },
        ],
      });
    } else {
      this.#initializers.push({ name, dims: [...dims], dataType: ElemType.float, rawData: bytes.slice() });
    }
    this.#initInfos.set(name, { dims: [...dims], type: ElemType.float });
    return name;
  }

  /** An int64 constant initializer (shapes, axes), deduplicated by value. */
  int64(values: readonly number[], dims: readonly number[] = [values.length]): string {
    const key = `i64:${dims.join('x')}:${values.join(',')}`;
    const cached = this.#constCache.get(key);
    if (cached !== undefined) return cached;
    const name = this.fresh('const_i64');
    this.#initializers.push({ name, dims: [...dims], dataType: ElemType.int64, int64Data: [...values] });
    this.#initInfos.set(name, { dims: [...dims], type: ElemType.int64, int64: [...values] });
    this.#constCache.set(key, name);
    return name;
  }

  /** A float scalar or small float constant initializer, deduplicated by value. */
  float(values: readonly number[], dims: readonly number[] = []): string {
    const key = `f32:${dims.join('x')}:${values.join(',')}`;
    const cached = this.#constCache.get(key);
    if (cached !== undefined) return cached;
    const name = this.fresh('const_f32');
    this.#initializers.push({ name, dims: [...dims], dataType: ElemType.float, floatData: [...values] });
    this.#initInfos.set(name, { dims: [...dims], type: ElemType.float });
    this.#constCache.set(key, name);
    return name;
  }

  /** Declares a graph input. */
  input(name: string, type: ElemType, dims: readonly Dim[]): string {
    this.#inputs.push({
      name,
      type: {
        tensorType: {
          elemType: type,
          shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
        },
      },
    });
    return name;
  }

  /** Declares a graph output (shape left to inference). */
  output(name: string, type: ElemType = ElemType.float): string {
    this.#outputs.push({ name, type: { tensorType: { elemType: type } } });
    return name;
  }

  /** Sets a `metadata_props` entry of the model. */
  metadata(key: string, value: string): void {
    this.#metadata[key] = value;
  }

  /** The nodes added so far, in order. */
  get nodes(): readonly NodeInfo[] {
    return this.#nodeInfos;
  }

  /** Initializer shapes by name. */
  get initializers(): ReadonlyMap<string, InitializerInfo> {
    return this.#initInfos;
  }

  /** The external data entries to pass to the session (views of the weight arrays). */
  get externalData(): readonly ExternalDataEntry[] {
    return this.#external;
  }

  /** Encodes the model (IR version 10, ONNX opset `opset`, com.microsoft opset 1). */
  encode(opset = 21): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 10,
      producerName: 'dantinox',
      opsetImport: [
        { domain: '', version: opset },
        { domain: MS_DOMAIN, version: 1 },
      ],
      metadataProps: Object.entries(this.#metadata).map(([key, value]) => ({ key, value })),
      graph: {
        name: 'dantinox',
        node: this.#nodes,
        initializer: this.#initializers,
        input: this.#inputs,
        output: this.#outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
