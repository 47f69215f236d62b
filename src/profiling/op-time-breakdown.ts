/**
 * "Where the time goes": ONNX Runtime's profiler trace (the Chrome-trace JSON its `enableProfiling` session option
 * writes) parsed into the kernel time of each `model_run`, and that time summed per operator category through one
 * frozen table ({@link OP_CATEGORY_TABLE}). Pure data: this module never loads a runtime.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';

/** The operator categories of a breakdown, in display order. */
export const OP_CATEGORIES = ['matmul', 'attention', 'norm', 'softmax', 'other'] as const;

/** One operator category: see {@link OP_CATEGORY_TABLE}. */
export type OpCategory = (typeof OP_CATEGORIES)[number];

/**
 * The category of each operator type (ONNX and `com.microsoft` ops); every type not listed is `other` (element-wise
 * ops, activations, Gather, Reshape/Transpose/Concat/Split/Slice, Cast…).
 *
 * - `matmul`: products with a weight or between activations — `MatMul`, `FusedMatMul`, `Gemm`, `FusedGemm`, the
 *   quantized `MatMulNBits`, `DynamicQuantizeMatMul`, `MatMulInteger(ToFloat)`, `QLinearMatMul`, `QGemm`,
 *   `MatMulBnb4`, `MatMulFpQ4`. In a graph that spells attention out in plain ops (the built-in one), the QKᵀ and
 *   AV products are here.
 * - `attention`: fused attention kernels — `Attention`, `MultiHeadAttention`, `GroupQueryAttention`,
 *   `SparseAttention`, `PackedAttention`, `PackedMultiHeadAttention`, `DecoderMaskedMultiHeadAttention`,
 *   `DecoderMaskedSelfAttention`, `QAttention` — and `RotaryEmbedding`.
 * - `norm`: `LayerNormalization`, `SimplifiedLayerNormalization`, `SkipLayerNormalization`,
 *   `SkipSimplifiedLayerNormalization`, `RMSNormalization`, `EmbedLayerNormalization`, `GroupNorm`.
 * - `softmax`: `Softmax`, `LogSoftmax` (in the built-in graph: the attention scores' softmax).
 */
export const OP_CATEGORY_TABLE: Readonly<Record<string, OpCategory>> = Object.freeze({
  MatMul: 'matmul',
  FusedMatMul: 'matmul',
  Gemm: 'matmul',
  FusedGemm: 'matmul',
  MatMulNBits: 'matmul',
  DynamicQuantizeMatMul: 'matmul',
  MatMulInteger: 'matmul',
  MatMulIntegerToFloat: 'matmul',
  QLinearMatMul: 'matmul',
  QGemm: 'matmul',
  MatMulBnb4: 'matmul',
  MatMulFpQ4: 'matmul',
  Attention: 'attention',
  MultiHeadAttention: 'attention',
  GroupQueryAttention: 'attention',
  SparseAttention: 'attention',
  PackedAttention: 'attention',
  PackedMultiHeadAttention: 'attention',
  DecoderMaskedMultiHeadAttention: 'attention',
  DecoderMaskedSelfAttention: 'attention',
  QAttention: 'attention',
  RotaryEmbedding: 'attention',
  LayerNormalization: 'norm',
  SimplifiedLayerNormalization: 'norm',
  SkipLayerNormalization: 'norm',
  SkipSimplifiedLayerNormalization: 'norm',
  RMSNormalization: 'norm',
  EmbedLayerNormalization: 'norm',
  GroupNorm: 'norm',
  Softmax: 'softmax',
  LogSoftmax: 'softmax',
});

/** The category of operator type `opType` ({@link OP_CATEGORY_TABLE}; `other` when it is not listed). */
export function opCategory(opType: string): OpCategory {
  return Object.hasOwn(OP_CATEGORY_TABLE, opType) ? (OP_CATEGORY_TABLE[opType] as OpCategory) : 'other';
}

/** One `model_run` (one `session.run`) of a trace. */
export interface OrtRunProfile {
  /** Wall time of the run in milliseconds (the `model_run` event: kernels plus the framework between them). */
  readonly runMs: number;
  /** Milliseconds of kernel time per operator type (`op_name`), summed over the run's nodes. */
  readonly opMs: Readonly<Record<string, number>>;
}

/** One complete event of a Chrome trace, as ONNX Runtime writes them (times in microseconds). */
interface TraceEvent {
  readonly cat: string;
  readonly name: string;
  readonly ts: number;
  readonly dur: number;
  readonly op: string | undefined;
}

function traceEvents(trace: unknown): TraceEvent[] {
  const list = Array.isArray(trace) ? trace : (trace as { traceEvents?: unknown } | null)?.traceEvents;
  if (!Array.isArray(list))
    throw new DantinoxError('INVALID_INPUT', messages.badOrtTrace('not an event list'));
  const out: TraceEvent[] = [];
  for (const e of list as unknown[]) {
    if (e === null || typeof e !== 'object') continue;
    const { cat, name, ts, dur, args } = e as Record<string, unknown>;
    if (typeof cat !== 'string' || typeof name !== 'string') continue;
    if (typeof ts !== 'number' || typeof dur !== 'number' || !(dur >= 0)) continue;
    const op = (args as { op_name?: unknown } | undefined)?.op_name;
    out.push({ cat, name, ts, dur, op: typeof op === 'string' ? op : undefined });
  }
  return out;
}

/**
 * The runs of an ONNX Runtime profile, in call order: each `model_run` event with the kernel time per operator
 * type of the `Node` events (`*_kernel_time`, with their `op_name`) that start within it. Session set-up events
 * and fence events are ignored. Accepts the event array or `{ traceEvents: [...] }`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when `trace` is not an event list or holds no `model_run` event.
 */
export function parseOrtProfile(trace: unknown): OrtRunProfile[] {
  const events = traceEvents(trace);
  const runs = events
    .filter((e) => e.cat === 'Session' && e.name === 'model_run')
    .sort((a, b) => a.ts - b.ts)
    .map((e) => ({ start: e.ts, end: e.ts + e.dur, opUs: new Map<string, number>() }));
  if (runs.length === 0)
    throw new DantinoxError('INVALID_INPUT', messages.badOrtTrace('no model_run event (no session.run)'));
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.op === undefined) continue;
    const run = runs.find((r) => e.ts >= r.start && e.ts <= r.end);
    if (run !== undefined) run.opUs.set(e.op, (run.opUs.get(e.op) ?? 0) + e.dur);
  }
  return runs.map((r) => ({
    runMs: (r.end - r.start) / 1000,
    opMs: Object.fromEntries([...r.opUs].map(([op, us]) => [op, us / 1000])),
  }));
}

/** Kernel time of one call per {@link OpCategory}. */
export interface TimeBreakdown {
  /** Wall time of the call in milliseconds. */
  readonly runMs: number;
  /** Sum of its kernel times in milliseconds (the categories add up to it). */
  readonly kernelMs: number;
  /** Milliseconds of kernel time per category. */
  readonly categoryMs: Readonly<Record<OpCategory, number>>;
}

/** The kernel time of `run` per operator category ({@link opCategory}). */
export function timeBreakdown(run: OrtRunProfile): TimeBreakdown {
  const categoryMs = Object.fromEntries(OP_CATEGORIES.map((c) => [c, 0])) as Record<OpCategory, number>;
  let kernelMs = 0;
  for (const [op, ms] of Object.entries(run.opMs)) {
    categoryMs[opCategory(op)] += ms;
    kernelMs += ms;
  }
  return { runMs: run.runMs, kernelMs, categoryMs };
}

/**
 * A plain-text table of breakdowns: one row per labelled call (e.g. `small · prefill`), per category its
 * milliseconds and share of the kernel time, then the kernel and wall totals.
 */
export function formatTimeBreakdown(rows: readonly { label: string; breakdown: TimeBreakdown }[]): string {
  const head = ['', ...OP_CATEGORIES, 'kernels', 'run'];
  const body = rows.map(({ label, breakdown: b }) => [
    label,
    ...OP_CATEGORIES.map((c) => {
      const share = b.kernelMs > 0 ? (100 * b.categoryMs[c]) / b.kernelMs : 0;
      return `${formatMs(b.categoryMs[c])} (${share.toFixed(0)}%)`;
    }),
    formatMs(b.kernelMs),
    formatMs(b.runMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

/** `12.3 ms`, `0.042 ms`. */
function formatMs(ms: number): string {
  return `${ms >= 10 ? ms.toFixed(1) : ms >= 0.1 ? ms.toFixed(2) : ms.toFixed(3)} ms`;
}
