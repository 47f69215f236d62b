/**
 * The operator table of the differentiator: for every ONNX operator a training graph may contain, how to infer
 * its outputs' static shapes and, for the differentiable ones, its gradient rule — the nodes that turn the
 * gradients of its outputs into gradients of its inputs. One table, one entry per operator type; the entries live
 * in the files named after their family.
 *
 * @packageDocumentation
 */
import type { Attribute } from '../../models/onnx/graph-builder.js';
import type { DiffGraph, TapeNode, ValueInfo } from './diff-graph.js';
import { ELEMENTWISE_RULES } from './elementwise-rules.js';
import { LAYOUT_RULES } from './layout-rules.js';
import { MATMUL_RULES } from './matmul-rules.js';
import { REDUCE_RULES } from './reduce-rules.js';
import { TRANSFORMER_RULES } from './transformer-rules.js';

/** What a shape rule sees. */
export interface InferContext {
  /** Type and shape of each input (`undefined` for an omitted optional input). */
  readonly inputs: readonly (ValueInfo | undefined)[];
  /** The node's attributes. */
  readonly attrs: Readonly<Record<string, Attribute>>;
  /** The values of input `i` when it is an int64 constant of the graph (shapes, axes). */
  constant(i: number): readonly number[] | undefined;
}

/** What a gradient rule sees. */
export interface GradientContext {
  /** The graph to append the gradient's nodes to. */
  readonly d: DiffGraph;
  /** The forward node. */
  readonly node: TapeNode;
  /** Gradient of each output (`undefined`: nothing flows back through that output). */
  readonly dy: readonly (string | undefined)[];
  /** Whether each input needs its gradient. */
  readonly needs: readonly boolean[];
}

/** How the differentiator handles one operator type. */
export interface OpRule {
  /** Operator domain (`com.microsoft` for ONNX Runtime's contrib operators). @default '' (ONNX) */
  readonly domain?: string;
  /** Output types and shapes. @throws Error for inputs the operator cannot take. */
  infer(ctx: InferContext): ValueInfo[];
  /**
   * Gradients of the inputs (one entry per input; `undefined` where none is needed or none flows). Absent for
   * operators that only appear in gradients (they are never differentiated).
   */
  readonly grad?: (ctx: GradientContext) => (string | undefined)[];
}

/** Every operator a training graph may contain, by ONNX operator type. */
export const OP_RULES: Readonly<Record<string, OpRule>> = Object.freeze({
  ...ELEMENTWISE_RULES,
  ...LAYOUT_RULES,
  ...MATMUL_RULES,
  ...REDUCE_RULES,
  ...TRANSFORMER_RULES,
});

/** The integer attribute `name` of `attrs`, or `fallback`. */
export function intAttr(attrs: Readonly<Record<string, Attribute>>, name: string, fallback: number): number {
  const a = attrs[name];
  return a !== undefined && 'int' in a ? a.int : fallback;
}

/** The integer-list attribute `name` of `attrs`, or `undefined`. */
export function intsAttr(
  attrs: Readonly<Record<string, Attribute>>,
  name: string,
): readonly number[] | undefined {
  const a = attrs[name];
  return a !== undefined && 'ints' in a ? a.ints : undefined;
}

/** The info of input `i`, which must be present. */
export function inputInfo(ctx: InferContext, i: number): ValueInfo {
  const info = ctx.inputs[i];
  if (info === undefined) throw new Error(`input ${i} is required`);
  return info;
}

/** `axis` made non-negative for a tensor of `rank`. */
export function normaliseAxis(axis: number, rank: number): number {
  return axis < 0 ? axis + rank : axis;
}
