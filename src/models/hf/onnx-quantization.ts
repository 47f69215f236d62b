/**
 * Which weight matrices an ONNX file stores in a dtype other than float32, read from its graph (nodes and
 * initializers, never the weights' data): the {@link QuantizationInfo} of a Hugging Face ONNX folder's file, as the
 * built-in models record theirs while building the graph.
 *
 * A matrix is the weight input of a matrix product ({@link WEIGHT_INPUTS}) that is an initializer, or the
 * initializer behind a `Cast`, `DequantizeLinear` or `Transpose` of one. Its dtype follows from how it is stored:
 * `MatMulNBits` with `bits` 4 → `q4` (`q4f16` when its scales are float16), `MatMulBnb4` → `bnb4`,
 * `GatherBlockQuantized` → `q<bits>`, an 8-bit integer initializer → `q8` (`int8`/`uint8` in a file of that dtype),
 * a 4-bit one → `q4`, float16 → `fp16`, bfloat16 → `bf16`; float32 matrices are not listed. The LM head is the
 * product whose output features equal the vocabulary size.
 *
 * @packageDocumentation
 */
import { basename } from 'node:path';
import { DTYPES, type Dtype, dtypeOfOnnxFile, TENSOR_TYPES } from '../../dtype.js';
import type { ModelInfo, QuantizationInfo } from '../model.js';
import { predominantDtype } from '../predominant-dtype.js';
import {
  type OnnxGraphInfo,
  type OnnxInitializerInfo,
  type OnnxNodeInfo,
  readOnnxGraph,
} from './onnx-file-info.js';

/** The input index of the weight matrix, by operator: float, int8, 4-bit and block-quantized products and lookups. */
export const WEIGHT_INPUTS: Readonly<Record<string, number>> = Object.freeze({
  MatMul: 1,
  Gemm: 1,
  FusedMatMul: 1,
  MatMulInteger: 1,
  MatMulIntegerToFloat: 1,
  DynamicQuantizeMatMul: 1,
  QLinearMatMul: 3,
  MatMulNBits: 1,
  MatMulBnb4: 1,
  GatherBlockQuantized: 0,
});

/** Operators between an initializer and the product that uses it, followed back to the initializer. */
const PASS_THROUGH: ReadonlySet<string> = new Set(['Cast', 'DequantizeLinear', 'Transpose']);

/** The dtype of each ONNX element type a stored matrix may have (float32 and the index types are absent). */
const DTYPE_OF_ELEMENT: ReadonlyMap<number, string> = new Map([
  [TENSOR_TYPES.float16.onnx, 'fp16'],
  [TENSOR_TYPES.bfloat16.onnx, 'bf16'],
  [TENSOR_TYPES.int8.onnx, 'q8'],
  [TENSOR_TYPES.uint8.onnx, 'q8'],
  [TENSOR_TYPES.int4.onnx, 'q4'],
  [TENSOR_TYPES.uint4.onnx, 'q4'],
]);

/** One matrix found: its initializer, dtype and output features (`undefined` for a lookup table). */
interface Matrix {
  readonly name: string;
  readonly dtype: string;
  readonly outFeatures: number | undefined;
}

/**
 * The dtype of the matrix `init` used by `node`, or `undefined` when it is float32. `fileDtype` names 8-bit
 * integer matrices in a file of an 8-bit dtype (`model_int8.onnx` → `int8`).
 */
function matrixDtype(
  node: OnnxNodeInfo,
  init: OnnxInitializerInfo,
  inits: ReadonlyMap<string, OnnxInitializerInfo>,
  fileDtype: Dtype | undefined,
): string | undefined {
  const bits = node.ints['bits'];
  if (node.opType === 'MatMulNBits') {
    const scales = inits.get(node.inputs[2] ?? '');
    if ((bits ?? 4) !== 4) return `q${bits}`;
    return scales?.dataType === TENSOR_TYPES.float16.onnx ? 'q4f16' : 'q4';
  }
  if (node.opType === 'MatMulBnb4') return 'bnb4';
  if (node.opType === 'GatherBlockQuantized') return `q${bits ?? 4}`;
  const dtype = DTYPE_OF_ELEMENT.get(init.dataType);
  if (dtype === 'q8' && fileDtype !== undefined && DTYPES[fileDtype].bits === 8) return fileDtype;
  return dtype;
}

/**
 * Output features of the product `node` over the matrix `init` (`transposed` when a `Transpose` lies between), or
 * `undefined` for a lookup (`GatherBlockQuantized`).
 */
function outFeatures(node: OnnxNodeInfo, init: OnnxInitializerInfo, transposed: boolean): number | undefined {
  if (node.opType === 'GatherBlockQuantized') return undefined;
  const n = node.ints['N'];
  if (n !== undefined) return n; // MatMulNBits, MatMulBnb4: the packed initializer's shape is not [K, N]
  const [rows, cols] = init.dims;
  // `transB` (Gemm, FusedMatMul) multiplies by the matrix transposed; a Transpose before it undoes that.
  return transposed !== (node.ints['transB'] === 1) ? rows : cols;
}

/**
 * The {@link QuantizationInfo} of an ONNX graph read by `readOnnxGraph`, or `undefined` when every matrix is
 * float32. `vocabSize` finds the LM head; `fileDtype` is the dtype of the file's name, when it has one.
 * `dtype` is the most frequent dtype of the other matrices, `headDtype` the head's (`fp32` when it is not listed);
 * `blockSize` and `accuracyLevel` come from the first block-quantized operator's attributes.
 */
export function onnxQuantizationInfo(
  graph: OnnxGraphInfo,
  vocabSize: number,
  fileDtype?: Dtype,
): QuantizationInfo | undefined {
  const inits = new Map(graph.initializers.map((t) => [t.name, t]));
  const producers = new Map<string, OnnxNodeInfo>();
  for (const node of graph.nodes) for (const out of node.outputs) producers.set(out, node);
  // The initializer behind `name`, and whether an odd number of Transposes lie between.
  const source = (name: string): [OnnxInitializerInfo, boolean] | undefined => {
    const seen = new Set<string>();
    let current = name;
    let transposed = false;
    for (;;) {
      const init = inits.get(current);
      if (init !== undefined) return [init, transposed];
      const producer = producers.get(current);
      if (producer === undefined || !PASS_THROUGH.has(producer.opType) || seen.has(current)) return undefined;
      seen.add(current);
      if (producer.opType === 'Transpose') transposed = !transposed;
      current = producer.inputs[0] ?? '';
    }
  };
  const matrices = new Map<string, Matrix>();
  let blocks: { blockSize: number; accuracyLevel: number } | undefined;
  for (const node of graph.nodes) {
    const input = WEIGHT_INPUTS[node.opType];
    const found = input === undefined ? undefined : source(node.inputs[input] ?? '');
    if (found === undefined || matrices.has(found[0].name)) continue;
    const [init, transposed] = found;
    const dtype = matrixDtype(node, init, inits, fileDtype);
    if (dtype === undefined) continue;
    matrices.set(init.name, { name: init.name, dtype, outFeatures: outFeatures(node, init, transposed) });
    const blockSize = node.ints['block_size'];
    if (blocks === undefined && blockSize !== undefined)
      blocks = { blockSize, accuracyLevel: node.ints['accuracy_level'] ?? 0 };
  }
  if (matrices.size === 0) return undefined;
  const head = [...matrices.values()].find((m) => m.outFeatures === vocabSize);
  return {
    dtype: predominantDtype([...matrices.values()].filter((m) => m !== head).map((m) => m.dtype)),
    headDtype: head?.dtype ?? 'fp32',
    matrices: Object.fromEntries([...matrices.values()].map((m) => [m.name, m.dtype])),
    ...blocks,
  };
}

/**
 * `{ quantization }` of the ONNX file at `path` (its dtype named by its transformers.js file name), or `{}` when
 * every matrix is float32: a part of a {@link ModelInfo} to spread. `graph` is the file's, when already read.
 *
 * @throws Error when the file is not a well-formed protobuf (read it through the loader's checks first).
 */
export function onnxFileQuantization(
  path: string,
  vocabSize: number,
  graph: OnnxGraphInfo = readOnnxGraph(path),
): Pick<ModelInfo, 'quantization'> {
  const quantization = onnxQuantizationInfo(graph, vocabSize, dtypeOfOnnxFile(basename(path)));
  return quantization === undefined ? {} : { quantization };
}
