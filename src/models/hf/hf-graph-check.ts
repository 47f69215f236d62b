/**
 * Checks a Hugging Face folder's `config.json` against the shapes of its ONNX graph, so a config that lies
 * about the architecture is refused at load instead of giving wrong FLOPs, memory estimates or a raw ONNX
 * Runtime error in every cell.
 *
 * What is read from the graph (top-level nodes, initializers and inputs; no weight data):
 * - the token embedding: the initializer a `Gather` takes rows of (directly or through a `Cast` or
 *   `DequantizeLinear`) at `input_ids` (directly or reshaped/cast) → `vocab_size` (rows) and the hidden size
 *   (columns);
 * - position tables: the other initializers a `Gather` takes rows of at `position_ids`, or that are named like
 *   rotary tables (`cos`, `sin`, `rope`) → the largest position a table holds;
 * - the KV-cache inputs `past_key_values.{i}.key` → layers, key/value heads (dimension 1), head size (dimension 3);
 * - the weight matrices: every 2-D weight-typed initializer, and the `K × N` attributes of each `MatMulNBits`
 *   node (whose packed 4-bit initializers are 3-D) → the MLP width (`intermediate_size`), and whether an untied
 *   config (`tie_word_embeddings: false`) has an LM head matrix besides the embedding.
 *
 * A check whose evidence the graph does not carry (no embedding `Gather` in the top-level graph, symbolic cache
 * dimensions, no position table, no block matrix of the hidden size) is skipped, never guessed.
 *
 * @packageDocumentation
 */
import { TENSOR_TYPES, WEIGHT_TENSOR_TYPES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { type HfGraphMismatch, messages } from '../../messages.js';
import type { HfConfig } from './hf-config.js';
import type { OnnxGraphInfo, OnnxInitializerInfo, OnnxNodeInfo } from './onnx-file-info.js';

const WEIGHT_TYPES: ReadonlySet<number> = new Set(WEIGHT_TENSOR_TYPES.map((t) => TENSOR_TYPES[t].onnx));
/** Names of rotary cos/sin tables: `rope.cos` (dantinox), `…rotary_emb.cos_cached` (transformers' exports). */
const ROTARY_NAME = /rope|rotary|(^|[._/])(cos|sin)([._]|$)/i;
/** Nodes that pass token or position ids through unchanged in value on their way to a `Gather`. */
const INDEX_PASS_THROUGH = new Set(['Cast', 'Reshape', 'Unsqueeze', 'Squeeze', 'Flatten', 'Identity']);
/** Nodes that pass a weight through unchanged in shape on its way to a `Gather`. */
const PASS_THROUGH = new Set(['Cast', 'DequantizeLinear', 'Identity']);

/** The config.json keys of each checked field, per model type, in the order {@link readHfConfig} reads them. */
const KEYS = {
  gpt2: {
    hidden: ['n_embd', 'hidden_size'],
    vocab: ['vocab_size'],
    layers: ['n_layer', 'num_hidden_layers'],
    heads: ['n_head', 'num_attention_heads'],
    kvHeads: ['n_head', 'num_attention_heads'],
    positions: ['n_positions', 'n_ctx', 'max_position_embeddings'],
    inner: ['n_inner'],
    tying: ['tie_word_embeddings'],
  },
  llama: {
    hidden: ['hidden_size'],
    vocab: ['vocab_size'],
    layers: ['num_hidden_layers'],
    heads: ['num_attention_heads'],
    kvHeads: ['num_key_value_heads', 'num_attention_heads'],
    positions: ['max_position_embeddings'],
    inner: ['intermediate_size'],
    tying: ['tie_word_embeddings'],
  },
} as const;

type Field = keyof (typeof KEYS)['gpt2'];

/** The graph facts the checks use. */
interface GraphFacts {
  readonly embedding?: readonly number[];
  readonly positionRows?: number;
  readonly layers?: number;
  readonly kvHeads?: number | undefined;
  readonly headSize?: number | undefined;
  /** Every weight matrix but the tables read by row, as `[in, out]` (or `[out, in]`: checks use both orders). */
  readonly matrices: readonly (readonly [number, number])[];
}

/** Follows `name` back through shape-preserving nodes to an initializer. */
function initializerBehind(
  name: string,
  inits: ReadonlyMap<string, OnnxInitializerInfo>,
  producers: ReadonlyMap<string, OnnxNodeInfo>,
): OnnxInitializerInfo | undefined {
  let current = name;
  for (let hops = 0; hops < 4; hops++) {
    const init = inits.get(current);
    if (init !== undefined) return init;
    const node = producers.get(current);
    if (node === undefined || !PASS_THROUGH.has(node.opType)) return undefined;
    current = node.inputs[0] ?? '';
  }
  return undefined;
}

/** Whether `name` is graph input `input`, or it reshaped or cast (a few nodes deep). */
function isInput(name: string, input: string, producers: ReadonlyMap<string, OnnxNodeInfo>): boolean {
  let current = name;
  for (let hops = 0; hops < 4; hops++) {
    if (current === input) return true;
    const node = producers.get(current);
    if (node === undefined || !INDEX_PASS_THROUGH.has(node.opType)) return false;
    current = node.inputs[0] ?? '';
  }
  return false;
}

function graphFacts(graph: OnnxGraphInfo): GraphFacts {
  const inits = new Map(graph.initializers.map((t) => [t.name, t]));
  const producers = new Map<string, OnnxNodeInfo>();
  for (const node of graph.nodes) for (const out of node.outputs) producers.set(out, node);
  let embedding: readonly number[] | undefined;
  const tables: number[] = [];
  // Tables read by row (embedding, positions) are not weight matrices of the blocks or the head.
  const gathered = new Set<string>();
  for (const node of graph.nodes) {
    if (node.opType !== 'Gather' || (node.ints['axis'] ?? 0) !== 0) continue;
    const data = initializerBehind(node.inputs[0] ?? '', inits, producers);
    if (data === undefined || data.dims.length !== 2) continue;
    const indices = node.inputs[1] ?? '';
    if (isInput(indices, 'input_ids', producers)) {
      embedding ??= data.dims;
      gathered.add(data.name);
    } else if (isInput(indices, 'position_ids', producers) || ROTARY_NAME.test(data.name)) {
      tables.push(data.dims[0] ?? 0);
      gathered.add(data.name);
    }
  }
  const matrices: [number, number][] = [];
  for (const t of graph.initializers) {
    const [a, b] = t.dims;
    if (gathered.has(t.name)) continue;
    if (t.dims.length === 2 && WEIGHT_TYPES.has(t.dataType) && a !== undefined && b !== undefined) {
      matrices.push([a, b]);
    }
  }
  for (const node of graph.nodes) {
    const { K, N } = node.ints;
    if (node.opType === 'MatMulNBits' && K !== undefined && N !== undefined) matrices.push([K, N]);
  }
  const keys = graph.inputs.filter((i) => /^past_key_values\.\d+\.key$/.test(i.name));
  const fixed = (d: number | string | undefined): number | undefined =>
    typeof d === 'number' ? d : undefined;
  const first = keys[0];
  return {
    ...(embedding === undefined ? {} : { embedding }),
    ...(tables.length === 0 ? {} : { positionRows: Math.min(...tables) }),
    ...(keys.length === 0 ? {} : { layers: keys.length }),
    kvHeads: fixed(first?.dims[1]),
    headSize: fixed(first?.dims[3]),
    matrices,
  };
}

/** How many matrices have one dimension `dim` and the other `width`. */
function countMatrices(matrices: GraphFacts['matrices'], dim: number, width: number): number {
  return matrices.filter(([a, b]) => (a === dim && b === width) || (a === width && b === dim)).length;
}

/**
 * The MLP mismatch, if any: the gated MLP has 3 matrices of width `intermediate_size` per layer (gate, up,
 * down; phi3 fuses gate and up into one of twice the width), the plain MLP 2; attention matrices of the same
 * width are needed on top (the output projection is `hidden × hidden`; unfused q, k, v as their widths say; a
 * fused QKV, as gpt2's `c_attn`, is one matrix of width hidden + 2 × key/value width).
 */
function mlpWidthMismatch(hf: HfConfig, facts: GraphFacts): { graph: string } | undefined {
  const { dim, numBlocks: layers, useSwiglu, kvHeads, headSize, vocabSize } = hf.config;
  const width = Math.round(dim * hf.config.expansion);
  const kvWidth = kvHeads * headSize;
  const qkvWidth = dim + 2 * kvWidth;
  const fusedQkv = countMatrices(facts.matrices, dim, qkvWidth) >= layers;
  const attention = (w: number): number =>
    (w === dim ? layers : 0) +
    (!fusedQkv && w === dim ? layers : 0) +
    (!fusedQkv && w === kvWidth ? 2 * layers : 0) +
    (fusedQkv && w === qkvWidth ? layers : 0);
  const fusedUp = hf.modelType === 'phi3' ? 2 * countMatrices(facts.matrices, dim, 2 * width) : 0;
  // A graph with no weight matrix of the hidden size besides the embedding and head keeps its weights in a form
  // this check does not read (e.g. constants): no evidence, no verdict.
  const blocks = facts.matrices.filter(
    ([a, b]) => (a === dim) !== (b === dim) && a !== vocabSize && b !== vocabSize,
  );
  if (blocks.length === 0) return undefined;
  const need = (useSwiglu ? 3 : 2) * layers + attention(width);
  if (countMatrices(facts.matrices, dim, width) + fusedUp >= need) return undefined;
  // The graph's MLP width: a width seen once per layer or more that attention and the head do not explain.
  const explained = new Set([dim, kvWidth, vocabSize, ...(fusedQkv ? [qkvWidth] : [])]);
  const counts = new Map<number, number>();
  for (const [a, b] of facts.matrices) {
    const other = a === dim ? b : b === dim ? a : undefined;
    if (other !== undefined && !explained.has(other)) counts.set(other, (counts.get(other) ?? 0) + 1);
  }
  const widths = [...counts].filter(([, n]) => n >= layers).map(([w]) => w);
  if (widths.length === 0) return { graph: `no ${dim} × ${width} MLP matrices` };
  return { graph: `MLP matrices ${dim} × ${Math.min(...widths)}` };
}

/** The config.json key a field was read from (the first present), or the first candidate with "(default)". */
function keyOf(hf: HfConfig, field: Field): string {
  const candidates: readonly string[] = KEYS[hf.modelType === 'gpt2' ? 'gpt2' : 'llama'][field];
  const present = candidates.find((k) => hf.raw[k] !== undefined && hf.raw[k] !== null);
  return present ?? `${candidates[0]} (default)`;
}

/** Every disagreement between `hf` (a parsed config.json) and `graph`; empty when they agree. */
export function hfGraphMismatches(hf: HfConfig, graph: OnnxGraphInfo): HfGraphMismatch[] {
  const facts = graphFacts(graph);
  const c = hf.config;
  const out: HfGraphMismatch[] = [];
  const add = (field: Field, config: number | string, graphValue: string): void => {
    const key = keyOf(hf, field);
    // gpt2's n_head is both the query and the key/value head count: report it once.
    if (!out.some((m) => m.key === key)) out.push({ key, config: String(config), graph: graphValue });
  };
  const [rows, cols] = facts.embedding ?? [];
  if (cols !== undefined && cols !== c.dim) add('hidden', c.dim, `token embedding ${rows} × ${cols}`);
  if (rows !== undefined && rows !== c.vocabSize)
    add('vocab', c.vocabSize, `token embedding ${rows} × ${cols}`);
  if (facts.layers !== undefined && facts.layers !== c.numBlocks) {
    add('layers', c.numBlocks, `${facts.layers} past_key_values layers`);
  }
  if (facts.kvHeads !== undefined && facts.kvHeads !== c.kvHeads) {
    add('kvHeads', c.kvHeads, `${facts.kvHeads} key/value heads in past_key_values`);
  }
  if (facts.headSize !== undefined && facts.headSize !== c.headSize && cols === c.dim) {
    add('heads', `${c.nHeads} (head size ${c.headSize})`, `head size ${facts.headSize} in past_key_values`);
  }
  if (facts.positionRows !== undefined && facts.positionRows < c.maxContext) {
    add('positions', c.maxContext, `a position table of ${facts.positionRows} rows`);
  }
  // An untied head is a vocabulary × hidden matrix of its own; without one the graph reuses the embedding, and the
  // parameter and memory counts of an untied config would count a head that does not exist.
  if (!c.weightTying && rows === c.vocabSize && cols === c.dim) {
    if (countMatrices(facts.matrices, c.dim, c.vocabSize) === 0) {
      add('tying', 'false', 'no LM head matrix of its own (it reuses the token embedding)');
    }
  }
  // The MLP check needs the hidden size the matrices are measured against to be right.
  const mlp = cols === undefined || cols === c.dim ? mlpWidthMismatch(hf, facts) : undefined;
  if (mlp !== undefined) add('inner', Math.round(c.dim * c.expansion), mlp.graph);
  return out;
}

/**
 * Refuses a folder whose `config.json` disagrees with its ONNX graph (see the module notes for what is compared).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` naming each disagreeing field, its config.json value and what the
 *   graph holds.
 */
export function checkHfGraph(hf: HfConfig, graph: OnnxGraphInfo, configPath: string, onnxPath: string): void {
  const mismatches = hfGraphMismatches(hf, graph);
  if (mismatches.length > 0) {
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.hfConfigGraphMismatch(configPath, onnxPath, mismatches),
    );
  }
}
