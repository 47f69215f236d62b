/**
 * The small ONNX graphs `dantinox calibrate` times: dense GEMM per weight dtype (fp32 `MatMul`, fp16 `MatMul`,
 * int8 `MatMulInteger` u8×s8 and `com.microsoft.DynamicQuantizeMatMul`, 4-bit `com.microsoft.MatMulNBits`) with
 * the weight as an initializer (so ONNX Runtime prepacks it as it does model weights), each at the shapes of
 * {@link gemmShapes}, and a matrix–vector product over a weight much larger than the last-level cache (weight
 * streaming). Every initializer is external data handed to the session without a copy.
 *
 * @packageDocumentation
 */

import { DantinoxError } from '../../errors.js';
import { toFloat16Bits } from '../float16.js';
import { GRAPH_OPSET, MS_DOMAIN, onnx } from '../onnx/graph-builder.js';

/** ONNX element type codes of the probe tensors. */
const ElemType = { float: 1, uint8: 2, int8: 3, int32: 6, float16: 10 } as const;
const UINT8 = ElemType.uint8;
const INT8 = ElemType.int8;

/** One graph input or initializer. */
interface ProbeTensor {
  readonly name: string;
  readonly type: number;
  readonly dims: readonly number[];
}

/** A probe graph: encoded model, its external initializers, and the work of one run. */
export interface ProbeGraph {
  /** Probe id, e.g. `gemm-fp32`. */
  readonly id: string;
  /** Weight dtype whose ceiling it measures (`fp32`, `fp16`, `q8`, `q4`), or `bandwidth`. */
  readonly measures: string;
  /** Human description with the shape. */
  readonly description: string;
  /** The `ModelProto` bytes. */
  readonly bytes: Uint8Array;
  /** External initializers for the session's `externalData` option (views, not copies). */
  readonly externalData: readonly { readonly path: string; readonly data: Uint8Array }[];
  /** Inputs to feed: name → element type, dims and data. */
  readonly feeds: readonly (ProbeTensor & { readonly data: ArrayBufferView })[];
  /** Work of one run: FLOPs (or integer ops, 1 multiply-add = 2) for GEMM probes, bytes read for bandwidth. */
  readonly work: number;
}

/**
 * The shape of a GEMM probe: `chain` products of `m × k` activations by a `k × n` weight (a chain of more than one
 * product needs `k = n`: each product's output is the next one's input).
 */
export interface GemmShape {
  /** Name that tells the shape apart in probe ids (`square`, `wide`). */
  readonly name: string;
  /** Rows of the activations (tokens). */
  readonly m: number;
  /** Inner dimension (the weight's rows). */
  readonly k: number;
  /** Columns of the weight. */
  readonly n: number;
  /** Products per run. */
  readonly chain: number;
}

/**
 * The GEMM shapes the ceilings are measured at, for a side `size` (1024 by default), best rate kept: a chain of
 * four `size³` products, and the wide product of a transformer's projections and LM head (`size / 4` tokens, an
 * inner dimension of `size / 2`, `8 · size` columns). On an AMD Zen 4, ONNX Runtime's fp32 `MatMul` ran the
 * wide shape 1.3× faster than the square one (an inner dimension of 1024 is slower than 512 or 768), and a model's
 * products outran a square-only ceiling (utilisation above 1).
 */
export function gemmShapes(size: number): readonly GemmShape[] {
  return [
    { name: 'square', m: size, k: size, n: size, chain: 4 },
    { name: 'wide', m: size / 4, k: size / 2, n: 8 * size, chain: 1 },
  ];
}

/** `m×k·k×n` with the chain count when more than one, for probe descriptions. */
const shapeText = (s: GemmShape): string =>
  `${s.m}×${s.k}·${s.k}×${s.n}${s.chain > 1 ? `, ${s.chain} chained` : ''}`;

/** The probe id of `base` at `shape`: the square shape keeps the bare id. */
const probeId = (base: string, shape: GemmShape): string =>
  shape.name === 'square' ? base : `${base}-${shape.name}`;

/** The products of `shape` from input `a` to output `y`, each made by `node`, as graph nodes. */
function chainNodes(
  shape: GemmShape,
  node: (input: string, output: string) => onnx.INodeProto,
): onnx.INodeProto[] {
  if (shape.chain > 1 && shape.k !== shape.n)
    throw new DantinoxError(
      'INVALID_OPTION',
      `A GEMM probe chains ${shape.chain} products only when k = n (got k = ${shape.k}, n = ${shape.n}): set chain to 1 or k = n.`,
    );
  return Array.from({ length: shape.chain }, (_, i) =>
    node(i === 0 ? 'a' : `x${i - 1}`, i === shape.chain - 1 ? 'y' : `x${i}`),
  );
}

/** Work of one run of a GEMM probe: 2 · m · k · n per product. */
const gemmWork = (s: GemmShape): number => 2 * s.m * s.k * s.n * s.chain;

/** Deterministic values in [-scale, scale) (a 32-bit LCG: fast, good enough for timing inputs). */
export function fillUniform(out: Float32Array, scale: number, seed: number): Float32Array {
  let x = seed | 0;
  for (let i = 0; i < out.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    out[i] = ((x >>> 8) / 8388608 - 1) * scale;
  }
  return out;
}

/** Deterministic bytes (the same LCG). */
function fillBytes(out: Uint8Array, seed: number): Uint8Array {
  let x = seed | 0;
  for (let i = 0; i < out.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    out[i] = x >>> 24;
  }
  return out;
}

const asBytes = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

const valueInfo = (t: ProbeTensor): onnx.IValueInfoProto => ({
  name: t.name,
  type: { tensorType: { elemType: t.type, shape: { dim: t.dims.map((d) => ({ dimValue: d })) } } },
});

/** Encodes a one-output probe model whose initializers are all external (location = their name). */
function probeModel(
  nodes: readonly onnx.INodeProto[],
  inputs: readonly ProbeTensor[],
  inits: readonly (ProbeTensor & { readonly data: ArrayBufferView })[],
  output: ProbeTensor,
): { bytes: Uint8Array; externalData: { path: string; data: Uint8Array }[] } {
  const model = onnx.ModelProto.create({
    irVersion: 10,
    producerName: 'dantinox-calibrate',
    opsetImport: [
      { domain: '', version: GRAPH_OPSET },
      { domain: MS_DOMAIN, version: 1 },
    ],
    graph: {
      name: 'probe',
      node: nodes.map((n, i) => ({ ...n, name: `probe_${i}` })),
      initializer: inits.map((t) => ({
        name: t.name,
        dims: [...t.dims],
        dataType: t.type,
        dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
        externalData: [
          { key: 'location', value: t.name },
          { key: 'offset', value: '0' },
          { key: 'length', value: String(t.data.byteLength) },
        ],
      })),
      input: inputs.map(valueInfo),
      output: [valueInfo(output)],
    },
  });
  return {
    bytes: onnx.ModelProto.encode(model).finish(),
    externalData: inits.map((t) => ({ path: t.name, data: asBytes(t.data) })),
  };
}

/** fp32 (or fp16) products x ← x·W at `shape`. */
export function gemmFloatProbe(shape: GemmShape, half: boolean): ProbeGraph {
  const { m, k, n } = shape;
  const type = half ? ElemType.float16 : ElemType.float;
  const w = fillUniform(new Float32Array(k * n), 1 / Math.sqrt(k), 1);
  const a = fillUniform(new Float32Array(m * k), 1, 2);
  const nodes = chainNodes(shape, (x, out) => ({
    opType: 'MatMul',
    domain: '',
    input: [x, 'w'],
    output: [out],
  }));
  const model = probeModel(
    nodes,
    [{ name: 'a', type, dims: [m, k] }],
    [{ name: 'w', type, dims: [k, n], data: half ? toFloat16Bits(w) : w }],
    { name: 'y', type, dims: [m, n] },
  );
  const dtype = half ? 'fp16' : 'fp32';
  return {
    id: probeId(`gemm-${dtype}`, shape),
    measures: dtype,
    description: `MatMul ${dtype} ${shapeText(shape)}`,
    ...model,
    feeds: [{ name: 'a', type, dims: [m, k], data: half ? toFloat16Bits(a) : a }],
    work: gemmWork(shape),
  };
}

/** Products x ← DynamicQuantizeMatMul(x, W_int8) at `shape` (fp32 activations quantized on the fly, int8 weights). */
export function gemmDynamicQuantProbe(shape: GemmShape): ProbeGraph {
  const { m, k, n } = shape;
  const nodes = chainNodes(shape, (x, out) => ({
    opType: 'DynamicQuantizeMatMul',
    domain: MS_DOMAIN,
    input: [x, 'w', 'w_scale', 'w_zero'],
    output: [out],
  }));
  const model = probeModel(
    nodes,
    [{ name: 'a', type: ElemType.float, dims: [m, k] }],
    [
      {
        name: 'w',
        type: INT8,
        dims: [k, n],
        data: new Int8Array(fillBytes(new Uint8Array(k * n), 3).buffer),
      },
      { name: 'w_scale', type: ElemType.float, dims: [], data: Float32Array.of(1 / (64 * Math.sqrt(k))) },
      { name: 'w_zero', type: INT8, dims: [], data: Int8Array.of(0) },
    ],
    { name: 'y', type: ElemType.float, dims: [m, n] },
  );
  return {
    id: probeId('gemm-q8-dynamic', shape),
    measures: 'q8',
    description: `DynamicQuantizeMatMul fp32·int8 ${shapeText(shape)}`,
    ...model,
    feeds: [
      { name: 'a', type: ElemType.float, dims: [m, k], data: fillUniform(new Float32Array(m * k), 1, 4) },
    ],
    work: gemmWork(shape),
  };
}

/** One `MatMulInteger` u8×s8 product of an n×n uint8 input by an n×n int8 weight (int32 out). */
export function gemmIntegerProbe(n: number): ProbeGraph {
  const model = probeModel(
    [{ opType: 'MatMulInteger', domain: '', input: ['a', 'w'], output: ['y'] }],
    [{ name: 'a', type: UINT8, dims: [n, n] }],
    [
      {
        name: 'w',
        type: INT8,
        dims: [n, n],
        data: new Int8Array(fillBytes(new Uint8Array(n * n), 5).buffer),
      },
    ],
    { name: 'y', type: ElemType.int32, dims: [n, n] },
  );
  return {
    id: 'gemm-q8-integer',
    measures: 'q8',
    description: `MatMulInteger u8×s8 ${n}×${n}·${n}×${n}`,
    ...model,
    feeds: [{ name: 'a', type: UINT8, dims: [n, n], data: fillBytes(new Uint8Array(n * n), 6) }],
    work: 2 * n * n * n,
  };
}

/** Products x ← MatMulNBits(x, W) at `shape` with 4-bit weights in blocks of 32 (one fp32 scale per block). */
export function gemmNBitsProbe(shape: GemmShape): ProbeGraph {
  const { m, k, n } = shape;
  const block = 32;
  const blocks = k / block;
  const int = onnx.AttributeProto.AttributeType.INT;
  const nodes = chainNodes(shape, (x, out) => ({
    opType: 'MatMulNBits',
    domain: MS_DOMAIN,
    input: [x, 'w', 'w_scales'],
    output: [out],
    attribute: [
      { name: 'K', type: int, i: k },
      { name: 'N', type: int, i: n },
      { name: 'bits', type: int, i: 4 },
      { name: 'block_size', type: int, i: block },
      { name: 'accuracy_level', type: int, i: 4 },
    ],
  }));
  const model = probeModel(
    nodes,
    [{ name: 'a', type: ElemType.float, dims: [m, k] }],
    [
      {
        name: 'w',
        type: UINT8,
        dims: [n, blocks, block / 2],
        data: fillBytes(new Uint8Array((n * k) / 2), 7),
      },
      {
        name: 'w_scales',
        type: ElemType.float,
        dims: [n * blocks],
        data: new Float32Array(n * blocks).fill(1 / (8 * Math.sqrt(k))),
      },
    ],
    { name: 'y', type: ElemType.float, dims: [m, n] },
  );
  return {
    id: probeId('gemm-q4', shape),
    measures: 'q4',
    description: `MatMulNBits 4-bit (block ${block}) ${shapeText(shape)}`,
    ...model,
    feeds: [
      { name: 'a', type: ElemType.float, dims: [m, k], data: fillUniform(new Float32Array(m * k), 1, 8) },
    ],
    work: gemmWork(shape),
  };
}

/** A 1×k·k×m fp32 matrix–vector product streaming a `weightBytes` weight once per run (bytes read). */
export function gemvProbe(weightBytes: number): ProbeGraph {
  const k = 4096;
  const m = Math.max(1, Math.round(weightBytes / 4 / k));
  const model = probeModel(
    [{ opType: 'MatMul', domain: '', input: ['x', 'w'], output: ['y'] }],
    [{ name: 'x', type: ElemType.float, dims: [1, k] }],
    [{ name: 'w', type: ElemType.float, dims: [k, m], data: fillUniform(new Float32Array(k * m), 0.01, 9) }],
    { name: 'y', type: ElemType.float, dims: [1, m] },
  );
  return {
    id: 'gemv-fp32',
    measures: 'bandwidth',
    description: `MatMul fp32 GEMV 1×${k}·${k}×${m} (${((4 * k * m) / 2 ** 20).toFixed(0)} MiB weight)`,
    ...model,
    feeds: [{ name: 'x', type: ElemType.float, dims: [1, k], data: fillUniform(new Float32Array(k), 1, 10) }],
    work: 4 * k * m,
  };
}
