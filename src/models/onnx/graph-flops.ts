/**
 * FLOPs counted over a generated ONNX graph: the model bytes are decoded, every node's output shape is inferred
 * from the input shapes a call feeds (`batch`, `seq`, `pastLength`, the positions whose logits it computes), and
 * each matrix product contributes `2 · (batch dims) · M · K · N`. It is the independent check of the analytical
 * `countFlops` (same convention: 1 multiply-add = 2 FLOPs, only matrix products counted).
 *
 * Two node kinds need more than shapes, and follow the FLOPs convention of docs/library.md:
 * - attention scores and values (`attention:*` tags): the graph multiplies against every fed key column and
 *   masks; the convention counts every key a query may attend to (the full square for causal attention, only
 *   the visible band with a sliding window, never the masked placeholder row). The counter takes the sizes from
 *   the inferred shapes and the key set from a pair-by-pair walk of the mask rule.
 * - MoE expert rows (`moe:route` NonZero): data-dependent; each expert is charged `N · topK / nExperts` rows,
 *   whose sum over experts is exactly the `N · topK` rows the routed graph executes.
 *
 * `executed` is the plain shape count (masked columns and placeholder included), for reference.
 *
 * @packageDocumentation
 */
import { TENSOR_TYPES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { ModelConfig } from '../model-config.js';
import { ATTENTION_TAGS } from './attention.js';
import { isVisible, maskLayout } from './attention-mask.js';
import { onnx } from './graph-builder.js';
import { MOE_ROUTE_TAG } from './moe.js';

/** Call shape the graph is counted for. */
export interface GraphFlopsOptions {
  /** Sequences B. @default 1 */
  readonly batchSize?: number;
  /** New tokens per sequence T. */
  readonly seqLen: number;
  /** Cached tokens before them. @default 0 */
  readonly pastLength?: number;
  /**
   * Positions per sequence whose logits the call computes, the last ones (the graph's `logits_from` is T minus it).
   * @default seqLen
   */
  readonly logitPositions?: number;
}

/** FLOPs of one call of the graph, by part (same split as `FlopsBreakdown`). */
export interface GraphFlops {
  /** Q, K, V, O projections. */
  readonly attentionProjections: number;
  /** QKᵀ and AV under the convention's key set. */
  readonly attentionScores: number;
  /** MLP / experts plus router. */
  readonly ffn: number;
  /** MoE router (part of `ffn`). */
  readonly router: number;
  /** LM head. */
  readonly lmHead: number;
  /** Sum of the parts. */
  readonly total: number;
  /** Plain shape count of every matrix product the graph runs (masked columns included). */
  readonly executed: number;
  /**
   * Every node of the graph with the FLOPs and bytes this count assigns it, in graph order: the per-node
   * `flops` sum to `total` (only matrix products have FLOPs under the convention).
   */
  readonly nodes: readonly GraphNodeCost[];
}

/** FLOPs and bytes of one graph node in one call: what the per-operator table puts beside its kernel time. */
export interface GraphNodeCost {
  /** The node's name in the graph (ONNX Runtime's profiler names its kernel event `<name>_kernel_time`). */
  readonly name: string;
  /** Operator type, e.g. `MatMul`. */
  readonly opType: string;
  /** FLOPs of the node under the convention (1 multiply-add = 2; 0 for every op but a matrix product). */
  readonly flops: number;
  /**
   * Bytes the node reads and writes, as if nothing stayed in cache: every input (weights included, at their stored
   * element size) and every output.
   */
  readonly bytes: number;
  /** Shapes of its inputs, in order (`[]` for an absent optional input). */
  readonly inputShapes: readonly (readonly number[])[];
}

type Shape = number[];

interface State {
  readonly shapes: Map<string, Shape>;
  /** Bytes per element of each known tensor (initializers and graph inputs by their type; outputs by op). */
  readonly elementBytes: Map<string, number>;
  /** Known int64 contents (constants, Shape outputs) of 1-D tensors. */
  readonly values: Map<string, number[]>;
}

function attrInt(node: onnx.INodeProto, name: string, fallback: number): number {
  const a = node.attribute?.find((x) => x.name === name);
  return a?.i === undefined || a.i === null ? fallback : Number(a.i);
}

function attrInts(node: onnx.INodeProto, name: string): number[] | undefined {
  const a = node.attribute?.find((x) => x.name === name);
  return a?.ints ? a.ints.map(Number) : undefined;
}

function broadcast(a: Shape, b: Shape): Shape {
  const n = Math.max(a.length, b.length);
  const out: Shape = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    out.push(x === 1 ? y : x);
  }
  return out;
}

const norm = (axis: number, rank: number): number => (axis < 0 ? axis + rank : axis);

/** Output shapes of one node (the ops the graph builder emits). */
function inferNode(node: onnx.INodeProto, s: State, routedRows: number): Shape[] {
  const inputs = node.input ?? [];
  const shape = (i: number): Shape => s.shapes.get(inputs[i] ?? '') ?? [];
  const value = (i: number): number[] => s.values.get(inputs[i] ?? '') ?? [];
  const x = shape(0);
  switch (node.opType) {
    case 'Gather': {
      const axis = norm(attrInt(node, 'axis', 0), x.length);
      return [[...x.slice(0, axis), ...shape(1), ...x.slice(axis + 1)]];
    }
    case 'Add':
    case 'Mul':
    case 'Div':
    case 'Equal':
    case 'Greater':
      return [broadcast(x, shape(1))];
    case 'MatMul':
    case 'FusedMatMul':
    case 'Gemm':
    case 'DynamicQuantizeMatMul':
    case 'MatMulNBits':
      return [matmulShapes(node, x, shape(1)).out];
    case 'Reshape': {
      const target = value(1);
      const known = target.map((d, i) => (d === 0 ? (x[i] ?? 0) : d));
      const total = x.reduce((p, d) => p * d, 1);
      const rest = known.reduce((p, d) => (d === -1 ? p : p * d), 1);
      return [known.map((d) => (d === -1 ? total / rest : d))];
    }
    case 'Transpose': {
      const perm = attrInts(node, 'perm') ?? x.map((_, i) => x.length - 1 - i);
      return [perm.map((p) => x[p] ?? 0)];
    }
    case 'Concat': {
      const axis = norm(attrInt(node, 'axis', 0), x.length);
      const out = [...x];
      out[axis] = inputs.reduce((sum, _, i) => sum + (shape(i)[axis] ?? 0), 0);
      return [out];
    }
    case 'Slice': {
      const [starts, ends, axes] = [value(1), value(2), value(3)];
      const out = [...x];
      axes.forEach((a, i) => {
        const ax = norm(a, x.length);
        const dim = x[ax] ?? 0;
        const clamp = (v: number): number => Math.min(Math.max(v < 0 ? v + dim : v, 0), dim);
        out[ax] = Math.max(0, clamp(ends[i] ?? dim) - clamp(starts[i] ?? 0));
      });
      return [out];
    }
    case 'Shape': {
      const start = norm(attrInt(node, 'start', 0), x.length);
      const end = norm(attrInt(node, 'end', x.length), x.length);
      return [[end - start]];
    }
    case 'Split': {
      const axis = norm(attrInt(node, 'axis', 0), x.length);
      return value(1).map((size) => x.map((d, i) => (i === axis ? size : d)));
    }
    case 'TopK': {
      const k = value(1)[0] ?? 0;
      const out = [...x];
      out[norm(attrInt(node, 'axis', -1), x.length)] = k;
      return [out, out];
    }
    case 'ReduceSum':
    case 'ReduceMax': {
      const axes = value(1).map((a) => norm(a, x.length));
      const keep = attrInt(node, 'keepdims', 1) === 1;
      return [x.flatMap((d, i) => (axes.includes(i) ? (keep ? [1] : []) : [d]))];
    }
    case 'NonZero':
      return [[x.length, node.docString === MOE_ROUTE_TAG ? routedRows : x.reduce((p, d) => p * d, 1)]];
    case 'Squeeze': {
      const axes = value(1).map((a) => norm(a, x.length));
      return [x.filter((_, i) => !axes.includes(i))];
    }
    case 'Unsqueeze': {
      const out = [...x];
      for (const a of value(1)) out.splice(norm(a, out.length + 1), 0, 1);
      return [out];
    }
    case 'SkipLayerNormalization':
    case 'SkipSimplifiedLayerNormalization':
      return [x, [], [], x];
    case 'RotaryEmbedding':
    case 'SimplifiedLayerNormalization':
    case 'LayerNormalization':
    case 'Softmax':
    case 'Gelu':
    case 'QuickGelu':
    case 'Relu':
    case 'Cast':
    case 'ScatterND':
      return [x];
    default:
      throw new DantinoxError('UNSUPPORTED', `graph FLOPs: no shape rule for op ${node.opType}`);
  }
}

/** Matrix-product ops: float, int8 (`DynamicQuantizeMatMul`) and 4-bit (`MatMulNBits`) weights. */
const MATRIX_PRODUCTS = ['MatMul', 'FusedMatMul', 'Gemm', 'DynamicQuantizeMatMul', 'MatMulNBits'];

/**
 * Shapes of a matrix product: batch dims, M, K, N and the output. `MatMulNBits` stores its weight packed
 * (`[N, K / block, block / 2]`): K and N are its attributes.
 */
function matmulShapes(
  node: onnx.INodeProto,
  a: Shape,
  b0: Shape,
): { batch: number; m: number; k: number; n: number; out: Shape } {
  let b = node.opType === 'MatMulNBits' ? [attrInt(node, 'K', 0), attrInt(node, 'N', 0)] : [...b0];
  if (attrInt(node, 'transBatchB', 0) === 1 && b.length > 2)
    b = [...b.slice(1, -1), b[0] ?? 0, b.at(-1) ?? 0];
  const transA = attrInt(node, 'transA', 0) === 1;
  const transB = attrInt(node, 'transB', 0) === 1;
  const m = (transA ? a.at(-1) : a.at(-2)) ?? 1;
  const k = (transA ? a.at(-2) : a.at(-1)) ?? 1;
  const n = (transB ? b.at(-2) : b.at(-1)) ?? 1;
  const batchDims = broadcast(a.slice(0, -2), b.slice(0, -2));
  const batch = batchDims.reduce((p, d) => p * d, 1);
  return { batch, m, k, n, out: [...batchDims, m, n] };
}

/** (query, key) pairs the convention counts for the past or new key block of a call, per sequence and head. */
function conventionPairs(
  config: ModelConfig,
  seq: number,
  pastLength: number,
  block: 'past' | 'new',
): number {
  const layout = maskLayout(config, seq, pastLength);
  let pairs = 0;
  for (let t = 0; t < seq; t++) {
    const q = pastLength + t;
    if (block === 'past') {
      if (layout.placeholder) continue;
      for (let j = 0; j < layout.pastRows; j++) {
        if (!config.slidingWindow || isVisible(config, q, layout.pastStart + j)) pairs++;
      }
    } else {
      for (let j = 0; j < seq; j++)
        if (!config.slidingWindow || isVisible(config, q, pastLength + j)) pairs++;
    }
  }
  return pairs;
}

/** Bytes per element of an ONNX `TensorProto.DataType` number (float32 when unknown). */
function bytesOfType(onnxType: number | null | undefined): number {
  return Object.values(TENSOR_TYPES).find((t) => t.onnx === onnxType)?.bytes ?? TENSOR_TYPES.float32.bytes;
}

/** Element bytes of output `index` of `node`: index tensors int64, comparisons bool, Cast its `to`, else float32. */
function outputElementBytes(node: onnx.INodeProto, index: number): number {
  switch (node.opType) {
    case 'Shape':
    case 'NonZero':
      return TENSOR_TYPES.int64.bytes;
    case 'TopK':
      return index === 1 ? TENSOR_TYPES.int64.bytes : TENSOR_TYPES.float32.bytes;
    case 'Equal':
    case 'Greater':
      return TENSOR_TYPES.bool.bytes;
    case 'Cast':
      return bytesOfType(attrInt(node, 'to', TENSOR_TYPES.float32.onnx));
    default:
      return TENSOR_TYPES.float32.bytes;
  }
}

/**
 * The nodes in an order where each comes after the producers of its inputs (the written graph may list the LM
 * head first so that ONNX Runtime frees activations early); the graph's own order among ready nodes is kept.
 */
function topological(nodes: readonly onnx.INodeProto[], known: ReadonlySet<string>): onnx.INodeProto[] {
  const ready = new Set(known);
  const pending = [...nodes];
  const out: onnx.INodeProto[] = [];
  while (pending.length > 0) {
    const i = pending.findIndex((n) => (n.input ?? []).every((x) => x === '' || ready.has(x)));
    // A node whose inputs no node produces: keep the graph's order (its shapes come out empty).
    const node = pending.splice(i === -1 ? 0 : i, 1)[0] as onnx.INodeProto;
    for (const o of node.output ?? []) ready.add(o);
    out.push(node);
  }
  return out;
}

/**
 * Counts the FLOPs of one call of the transformer graph `model` (bytes from `buildTransformerGraph`).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the graph has no dantinox config metadata;
 * `UNSUPPORTED` for an op without a shape rule.
 */
export function countGraphFlops(model: Uint8Array, options: GraphFlopsOptions): GraphFlops {
  const proto = onnx.ModelProto.decode(model);
  const meta = proto.metadataProps?.find((p) => p.key === 'dantinox.config')?.value;
  if (!meta)
    throw new DantinoxError('INVALID_INPUT', 'graph FLOPs: the model has no dantinox.config metadata');
  const config = ModelConfig.parse(JSON.parse(meta));
  const { batchSize: batch = 1, seqLen: seq, pastLength = 0, logitPositions = seq } = options;
  const layout = maskLayout(config, seq, pastLength);
  const group = config.nHeads / config.kvHeads;
  const s: State = { shapes: new Map(), elementBytes: new Map(), values: new Map() };
  for (const init of proto.graph?.initializer ?? []) {
    s.shapes.set(init.name ?? '', (init.dims ?? []).map(Number));
    s.elementBytes.set(init.name ?? '', bytesOfType(init.dataType));
    if (init.int64Data && init.int64Data.length > 0)
      s.values.set(init.name ?? '', init.int64Data.map(Number));
  }
  const cache = [layout.pastRows, batch, config.kvHeads, config.headSize];
  for (const input of proto.graph?.input ?? []) {
    const name = input.name ?? '';
    s.elementBytes.set(name, bytesOfType(input.type?.tensorType?.elemType));
    if (name === 'input_ids' || name === 'position_ids') s.shapes.set(name, [batch, seq]);
    else if (name === 'attention_mask') s.shapes.set(name, [1, group * seq, layout.pastRows + seq]);
    else if (name === 'logits_from') {
      s.shapes.set(name, [1]);
      s.values.set(name, [seq - logitPositions]);
    } else s.shapes.set(name, cache);
  }
  const routedRows = (batch * seq * config.topK) / config.nExperts;
  const parts = { attentionProjections: 0, attentionScores: 0, ffn: 0, router: 0, lmHead: 0, executed: 0 };
  const nodes: GraphNodeCost[] = [];
  const tensorBytes = (name: string): number =>
    name === ''
      ? 0
      : (s.shapes.get(name) ?? []).reduce((p, d) => p * d, 1) *
        (s.elementBytes.get(name) ?? TENSOR_TYPES.float32.bytes);
  for (const node of topological(proto.graph?.node ?? [], new Set(s.shapes.keys()))) {
    const outs = inferNode(node, s, routedRows);
    (node.output ?? []).forEach((name, i) => {
      if (!name) return;
      s.shapes.set(name, outs[i] ?? []);
      s.elementBytes.set(name, outputElementBytes(node, i));
    });
    const cost = {
      name: node.name ?? '',
      opType: node.opType ?? '',
      flops: 0,
      bytes: [...(node.input ?? []), ...(node.output ?? [])].reduce((sum, x) => sum + tensorBytes(x), 0),
      inputShapes: (node.input ?? []).map((x) => (x === '' ? [] : [...(s.shapes.get(x) ?? [])])),
    };
    nodes.push(cost);
    if (node.opType === 'Shape') {
      const x = s.shapes.get(node.input?.[0] ?? '') ?? [];
      const start = norm(attrInt(node, 'start', 0), x.length);
      s.values.set(node.output?.[0] ?? '', x.slice(start, norm(attrInt(node, 'end', x.length), x.length)));
    }
    if (!MATRIX_PRODUCTS.includes(node.opType ?? '')) continue;
    const shapes = matmulShapes(
      node,
      s.shapes.get(node.input?.[0] ?? '') ?? [],
      s.shapes.get(node.input?.[1] ?? '') ?? [],
    );
    const flops = 2 * shapes.batch * shapes.m * shapes.k * shapes.n;
    parts.executed += flops;
    const tag = node.docString ?? '';
    if (tag === ATTENTION_TAGS.scores || tag === ATTENTION_TAGS.values) {
      // Scores: [B·kvH, group·T, hs] × [hs, keys]; values: [B·kvH, group·T, keys] × [keys, hs].
      const keys = tag === ATTENTION_TAGS.scores ? shapes.n : shapes.k;
      // The past block is the product whose keys/values input is a `past_*` graph input; 2·B·kvH·hs FLOPs
      // per (query row, key) of the product, times `group` query heads per row block of one key head.
      const block = (node.input?.[1] ?? '').startsWith('past_') ? 'past' : 'new';
      const perPair = flops / (shapes.m * keys);
      cost.flops = perPair * group * conventionPairs(config, seq, pastLength, block);
      parts.attentionScores += cost.flops;
      continue;
    }
    cost.flops = flops;
    if (tag === 'attention:proj') parts.attentionProjections += flops;
    else if (tag === 'router') parts.router += flops;
    else if (tag === 'ffn') parts.ffn += flops;
    else if (tag === 'lm_head') parts.lmHead += flops;
    else throw new DantinoxError('UNSUPPORTED', `graph FLOPs: untagged matrix product ${node.name ?? ''}`);
  }
  const ffn = parts.ffn + parts.router;
  return {
    attentionProjections: parts.attentionProjections,
    attentionScores: parts.attentionScores,
    ffn,
    router: parts.router,
    lmHead: parts.lmHead,
    total: parts.attentionProjections + parts.attentionScores + ffn + parts.lmHead,
    executed: parts.executed,
    nodes,
  };
}
