/**
 * A small ONNX graph builder on `onnx-proto`: nodes with generated value names, float32/int64 initializers, and a
 * writer that stores large initializers in an external-data file (`model.onnx_data`, 4 KiB-aligned offsets so
 * ONNX Runtime can memory-map them) and the graph in `model.onnx`.
 *
 * @packageDocumentation
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import type { onnx as OnnxNamespace } from 'onnx-proto';

const require = createRequire(import.meta.url);
/** The `onnx` protobuf namespace (onnx-proto is CommonJS without named ESM exports). */
export const onnx: typeof OnnxNamespace = (require('onnx-proto') as { onnx: typeof OnnxNamespace }).onnx;

/** An attribute value: an int, `{ float }`, a string, or a list of ints. */
export type AttributeValue = number | string | readonly number[] | { readonly float: number };

/** Symbolic or fixed dimension of a graph input/output. */
export type Dim = number | string;

/** One initializer waiting to be written: its name, shape, element type and bytes. */
interface PendingInitializer {
  readonly name: string;
  readonly dims: readonly number[];
  readonly dataType: number;
  readonly bytes: Uint8Array;
}

/** Options of {@link GraphBuilder.write}. */
export interface WriteGraphOptions {
  /**
   * Store initializers of ≥ 1 KiB in `<model>.onnx_data` instead of inside the `.onnx` file (needed beyond 2 GB,
   * and keeps the protobuf small).
   * @default false
   */
  readonly externalData?: boolean;
}

const ALIGN = 4096;
const EXTERNAL_MIN_BYTES = 1024;

/** Builds one ONNX graph (default domain, one opset) and writes it to disk. */
export class GraphBuilder {
  readonly #nodes: OnnxNamespace.INodeProto[] = [];
  readonly #initializers: PendingInitializer[] = [];
  readonly #inputs: OnnxNamespace.IValueInfoProto[] = [];
  readonly #outputs: OnnxNamespace.IValueInfoProto[] = [];
  #counter = 0;

  /** @param opset - default-domain opset version. @default 17 */
  constructor(readonly opset = 17) {}

  /** Declares a graph input of element type `dataType` (an `onnx.TensorProto.DataType`). */
  input(name: string, dataType: number, dims: readonly Dim[]): string {
    this.#inputs.push(valueInfo(name, dataType, dims));
    return name;
  }

  /** Declares `value` as the graph output `name` (adds an Identity node when the names differ). */
  output(value: string, name: string, dataType: number, dims: readonly Dim[]): void {
    if (value !== name) this.op('Identity', [value], {}, name);
    this.#outputs.push(valueInfo(name, dataType, dims));
  }

  /** A float32 initializer. */
  float(name: string, dims: readonly number[], data: Float32Array): string {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.#initializers.push({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, bytes });
    return name;
  }

  /** A float32 constant (scalar when `dims` is empty). */
  floatConst(values: readonly number[], dims: readonly number[] = []): string {
    return this.float(`const_${this.#counter++}`, dims, Float32Array.from(values));
  }

  /** An int64 constant (scalar when `dims` is empty, else a 1-D list by default). */
  intConst(values: readonly number[], dims: readonly number[] = [values.length]): string {
    const data = BigInt64Array.from(values, (v) => BigInt(v));
    const bytes = new Uint8Array(data.buffer);
    const name = `const_${this.#counter++}`;
    this.#initializers.push({ name, dims, dataType: onnx.TensorProto.DataType.INT64, bytes });
    return name;
  }

  /** Adds a node and returns its (first) output name; `output` names it, else a fresh name is made. */
  op(
    type: string,
    inputs: readonly string[],
    attributes: Record<string, AttributeValue> = {},
    output?: string,
  ): string {
    const out = output ?? `${type}_${this.#counter++}`;
    this.#nodes.push({
      opType: type,
      name: `${type}_node_${this.#counter++}`,
      input: [...inputs],
      output: [out],
      attribute: Object.entries(attributes).map(([name, v]) => attribute(name, v)),
    });
    return out;
  }

  /** Encodes the model and writes it to `path` (plus `<path>_data` with external data); returns the byte count. */
  write(path: string, options: WriteGraphOptions = {}): number {
    const external = options.externalData ?? false;
    const dataFile = `${basename(path)}_data`;
    const initializers: OnnxNamespace.ITensorProto[] = [];
    let fd: number | undefined;
    let offset = 0;
    try {
      for (const init of this.#initializers) {
        const tensor: OnnxNamespace.ITensorProto = {
          name: init.name,
          dims: [...init.dims],
          dataType: init.dataType,
        };
        if (external && init.bytes.byteLength >= EXTERNAL_MIN_BYTES) {
          fd ??= openSync(`${path}_data`, 'w');
          const padded = Math.ceil(offset / ALIGN) * ALIGN;
          if (padded > offset) writeSync(fd, new Uint8Array(padded - offset));
          writeSync(fd, init.bytes);
          tensor.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
          tensor.externalData = [
            { key: 'location', value: dataFile },
            { key: 'offset', value: String(padded) },
            { key: 'length', value: String(init.bytes.byteLength) },
          ];
          offset = padded + init.bytes.byteLength;
        } else {
          tensor.rawData = init.bytes;
        }
        initializers.push(tensor);
      }
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    const model = onnx.ModelProto.encode({
      irVersion: 8,
      producerName: 'dantinox',
      opsetImport: [{ domain: '', version: this.opset }],
      graph: {
        name: 'decoder',
        node: this.#nodes,
        initializer: initializers,
        input: this.#inputs,
        output: this.#outputs,
      },
    }).finish();
    const out = openSync(path, 'w');
    try {
      writeSync(out, model);
    } finally {
      closeSync(out);
    }
    return model.byteLength + offset;
  }
}

function valueInfo(name: string, dataType: number, dims: readonly Dim[]): OnnxNamespace.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: dataType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attribute(name: string, value: AttributeValue): OnnxNamespace.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof value === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(value) };
  if (typeof value === 'number') return { name, type: T.INT, i: value };
  if ('float' in value) return { name, type: T.FLOAT, f: value.float };
  return { name, type: T.INTS, ints: [...value] };
}
