/**
 * `DiffGraph`: an ONNX graph under construction (a {@link GraphBuilder}) that remembers every node it emits, with
 * the static shape of every value, and differentiates it: {@link DiffGraph.gradients} walks the recorded nodes in
 * reverse and appends, for each, the nodes of its gradient rule (one rule per operator type, `op-rules.ts`) — a
 * small reverse-mode differentiator over standard ONNX operators, as ONNX Runtime's own training builds do with
 * their gradient graph builder, except that every gradient here is made of operators the inference build runs.
 *
 * @packageDocumentation
 */
import type { TensorType } from '../../dtype.js';
import { type Attribute, GraphBuilder } from '../../models/onnx/graph-builder.js';
import { OP_RULES, type OpRule } from './op-rules.js';
import { reductionAxes, type Shape, sameShape } from './shape.js';

/** Element type and static shape of a graph value. */
export interface ValueInfo {
  /** Shape, outermost first. */
  readonly shape: Shape;
  /** Element type. */
  readonly type: TensorType;
}

/** One node as the differentiator sees it. */
export interface TapeNode {
  /** ONNX operator type, e.g. `MatMul`. */
  readonly opType: string;
  /** Input value names (`''` for an omitted optional input). */
  readonly inputs: readonly string[];
  /** Output value names (`''` for an omitted optional output). */
  readonly outputs: readonly string[];
  /** Attributes as emitted. */
  readonly attrs: Readonly<Record<string, Attribute>>;
}

/** Options of {@link DiffGraph.op}. */
export interface OpOptions {
  /** Output names (`''` omits an optional output), or how many to generate. @default 1 */
  readonly outputs?: number | readonly string[];
}

/**
 * A graph builder that records shapes and nodes and can append the gradient of a scalar value with respect to
 * some of its inputs. Every operator it emits must have a rule in `OP_RULES` (shape inference, and a gradient
 * when a value that needs one flows through it).
 */
export class DiffGraph {
  /** The underlying ONNX graph. */
  readonly builder: GraphBuilder;
  readonly #info = new Map<string, ValueInfo>();
  readonly #constants = new Map<string, readonly number[]>();
  readonly #tape: TapeNode[] = [];
  readonly #rules: Readonly<Record<string, OpRule>>;

  /**
   * @param builder - the ONNX graph to emit into. @default a new one
   * @param rules - the operator table. @default {@link OP_RULES}
   */
  constructor(
    builder: GraphBuilder = new GraphBuilder(),
    rules: Readonly<Record<string, OpRule>> = OP_RULES,
  ) {
    this.builder = builder;
    this.#rules = rules;
  }

  /** Declares a graph input of static `shape`. */
  input(name: string, type: TensorType, shape: Shape): string {
    this.builder.input(name, type, shape);
    this.#info.set(name, { shape: [...shape], type });
    return name;
  }

  /** Declares `value` a graph output (its type and shape are known). */
  output(value: string, name = value): string {
    const out = name === value ? value : this.op('Identity', [value], {}, { outputs: [name] })[0];
    const info = this.info(out as string);
    this.builder.output(out as string, info.type, info.shape);
    return out as string;
  }

  /** A float32 initializer holding `data` (a constant of the graph, never differentiated). */
  constant(name: string, shape: Shape, data: Float32Array): string {
    this.builder.floatInit(name, shape, data);
    this.#info.set(name, { shape: [...shape], type: 'float32' });
    return name;
  }

  /** An int64 constant (deduplicated by value); its values are known to shape inference. */
  int64(values: readonly number[], shape: Shape = [values.length]): string {
    const name = this.builder.int64(values, shape);
    this.#info.set(name, { shape: [...shape], type: 'int64' });
    this.#constants.set(name, [...values]);
    return name;
  }

  /** A float32 constant (deduplicated by value), a scalar unless `shape` says otherwise. */
  float(values: readonly number[], shape: Shape = []): string {
    const name = this.builder.float(values, shape);
    this.#info.set(name, { shape: [...shape], type: 'float32' });
    return name;
  }

  /** Type and shape of `value`. @throws Error for a value this graph does not know. */
  info(value: string): ValueInfo {
    const info = this.#info.get(value);
    if (info === undefined) throw new Error(`DiffGraph: unknown value "${value}"`);
    return info;
  }

  /** Whether the graph has a value named `value`. */
  has(value: string): boolean {
    return this.#info.has(value);
  }

  /** Shape of `value`. */
  shape(value: string): Shape {
    return this.info(value).shape;
  }

  /** The values of an int64 constant made by {@link DiffGraph.int64}, or `undefined` for any other value. */
  constantValues(value: string): readonly number[] | undefined {
    return this.#constants.get(value);
  }

  /**
   * Emits `opType` over `inputs` and records it; returns its output names.
   *
   * @throws Error for an operator without a rule, or inputs its shape rule refuses.
   */
  op(
    opType: string,
    inputs: readonly string[],
    attrs: Readonly<Record<string, Attribute>> = {},
    options: OpOptions = {},
  ): string[] {
    const rule = this.#rule(opType);
    const shapes = rule.infer({
      inputs: inputs.map((i) => (i === '' ? undefined : this.info(i))),
      attrs,
      constant: (i) => {
        const name = inputs[i];
        return name === undefined ? undefined : this.#constants.get(name);
      },
    });
    const wanted = options.outputs ?? 1;
    const outputs = this.builder.node(
      opType,
      inputs,
      wanted,
      attrs,
      rule.domain ? { domain: rule.domain } : {},
    );
    outputs.forEach((name, i) => {
      if (name === '') return;
      const info = shapes[i];
      if (info === undefined) throw new Error(`DiffGraph: ${opType} has no output ${i}`);
      this.#info.set(name, info);
    });
    this.#tape.push({ opType, inputs: [...inputs], outputs, attrs });
    return outputs;
  }

  /** {@link DiffGraph.op} of a single-output operator; returns its output. */
  op1(opType: string, inputs: readonly string[], attrs: Readonly<Record<string, Attribute>> = {}): string {
    return this.op(opType, inputs, attrs)[0] as string;
  }

  /** `x` reshaped to the static `shape` (no node when it already has it). */
  reshape(x: string, shape: Shape): string {
    if (sameShape(this.shape(x), shape)) return x;
    return this.op1('Reshape', [x, this.int64(shape)]);
  }

  /** `x` with its axes permuted by `perm`. */
  transpose(x: string, perm: readonly number[]): string {
    return this.op1('Transpose', [x], { perm: { ints: perm } });
  }

  /** `x` summed over the broadcast axes that turn it into `shape` (one of its broadcast inputs' shapes). */
  sumTo(x: string, shape: Shape): string {
    const axes = reductionAxes(this.shape(x), shape);
    if (axes.length === 0) return x;
    const summed = this.op1('ReduceSum', [x, this.int64(axes)], { keepdims: { int: 1 } });
    return this.reshape(summed, shape);
  }

  /** A float32 tensor of zeros of the static `shape`. */
  zeros(shape: Shape): string {
    return this.op1('ConstantOfShape', [this.int64(shape)]);
  }

  /**
   * Appends the gradient of the scalar `loss` with respect to each of `wrt` (graph inputs or values of the graph)
   * and returns their value names, in the order of `wrt`. A value `loss` does not depend on gets zeros.
   *
   * Values that reach `loss` along several paths accumulate their contributions with one `Sum` node.
   *
   * @throws Error when `loss` is not a scalar, or an operator on a path from `wrt` to `loss` has no gradient rule.
   */
  gradients(loss: string, wrt: readonly string[]): string[] {
    if (this.shape(loss).length !== 0) throw new Error(`DiffGraph: the loss "${loss}" is not a scalar`);
    const forward = [...this.#tape];
    // Values whose gradient is wanted: the wrt values and everything computed from them.
    const needs = new Set(wrt);
    for (const node of forward) {
      if (node.inputs.some((i) => needs.has(i))) for (const o of node.outputs) if (o !== '') needs.add(o);
    }
    const parts = new Map<string, string[]>([[loss, [this.float([1])]]]);
    const total = (value: string): string | undefined => {
      const list = parts.get(value);
      if (list === undefined) return undefined;
      if (list.length === 1) return list[0];
      const sum = this.op1('Sum', list);
      parts.set(value, [sum]);
      return sum;
    };
    for (let n = forward.length - 1; n >= 0; n--) {
      const node = forward[n] as TapeNode;
      const inputNeeds = node.inputs.map((i) => i !== '' && needs.has(i));
      if (!inputNeeds.some(Boolean)) continue;
      const dy = node.outputs.map((o) => (o === '' ? undefined : total(o)));
      if (dy.every((g) => g === undefined)) continue;
      const rule = this.#rule(node.opType);
      if (rule.grad === undefined) throw new Error(`DiffGraph: ${node.opType} has no gradient rule`);
      const dx = rule.grad({ d: this, node, dy, needs: inputNeeds });
      node.inputs.forEach((input, i) => {
        const g = dx[i];
        if (!inputNeeds[i] || g === undefined) return;
        const list = parts.get(input);
        if (list === undefined) parts.set(input, [g]);
        else list.push(g);
      });
    }
    return wrt.map((w) => total(w) ?? this.zeros(this.shape(w)));
  }

  #rule(opType: string): OpRule {
    const rule = this.#rules[opType];
    if (rule === undefined) throw new Error(`DiffGraph: no rule for operator ${opType}`);
    return rule;
  }
}
