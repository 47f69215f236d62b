/**
 * Elementwise operators (NumPy broadcasting): `Add`, `Sub`, `Mul`, `Div`, `Neg`, `Exp`, `Sigmoid`, `Relu`,
 * `Sum`, `Identity`, and `Erf`, `Sign` (used only inside gradients). A gradient that reaches a broadcast input is
 * summed back to its shape.
 *
 * @packageDocumentation
 */

import type { ValueInfo } from './diff-graph.js';
import type { GradientContext, InferContext, OpRule } from './op-rules.js';
import { inputInfo } from './op-rules.js';
import { broadcastShapes } from './shape.js';

function broadcast(ctx: InferContext): ValueInfo[] {
  const infos = ctx.inputs.map((_, i) => inputInfo(ctx, i));
  const shape = broadcastShapes(infos.map((i) => i.shape));
  if (shape === undefined)
    throw new Error(`shapes ${infos.map((i) => `[${i.shape.join(',')}]`).join(' and ')} do not broadcast`);
  return [{ shape, type: (infos[0] as ValueInfo).type }];
}

const same = (ctx: InferContext): ValueInfo[] => [inputInfo(ctx, 0)];

/** The gradient of a sum: the output's gradient, summed back to each input's shape. */
const passBack = ({ d, node, dy, needs }: GradientContext): (string | undefined)[] =>
  node.inputs.map((x, i) => (needs[i] ? d.sumTo(dy[0] as string, d.shape(x)) : undefined));

/** Elementwise operator rules. */
export const ELEMENTWISE_RULES: Readonly<Record<string, OpRule>> = {
  Identity: { infer: same, grad: ({ dy }) => [dy[0]] },
  Add: { infer: broadcast, grad: passBack },
  Sum: { infer: broadcast, grad: passBack },
  Sub: {
    infer: broadcast,
    grad: ({ d, node, dy, needs }) => {
      const g = dy[0] as string;
      const [a, b] = node.inputs as [string, string];
      return [
        needs[0] ? d.sumTo(g, d.shape(a)) : undefined,
        needs[1] ? d.sumTo(d.op1('Neg', [g]), d.shape(b)) : undefined,
      ];
    },
  },
  Mul: {
    infer: broadcast,
    grad: ({ d, node, dy, needs }) => {
      const g = dy[0] as string;
      const [a, b] = node.inputs as [string, string];
      return [
        needs[0] ? d.sumTo(d.op1('Mul', [g, b]), d.shape(a)) : undefined,
        needs[1] ? d.sumTo(d.op1('Mul', [g, a]), d.shape(b)) : undefined,
      ];
    },
  },
  Div: {
    infer: broadcast,
    grad: ({ d, node, dy, needs }) => {
      const g = dy[0] as string;
      const [a, b] = node.inputs as [string, string];
      const y = node.outputs[0] as string;
      // d(a/b)/da = 1/b; d(a/b)/db = −(a/b)/b.
      return [
        needs[0] ? d.sumTo(d.op1('Div', [g, b]), d.shape(a)) : undefined,
        needs[1] ? d.sumTo(d.op1('Neg', [d.op1('Div', [d.op1('Mul', [g, y]), b])]), d.shape(b)) : undefined,
      ];
    },
  },
  Neg: { infer: same, grad: ({ d, dy }) => [d.op1('Neg', [dy[0] as string])] },
  Exp: {
    infer: same,
    grad: ({ d, node, dy }) => [d.op1('Mul', [dy[0] as string, node.outputs[0] as string])],
  },
  Sigmoid: {
    // σ' = σ(1 − σ).
    infer: same,
    grad: ({ d, node, dy }) => {
      const y = node.outputs[0] as string;
      const oneMinus = d.op1('Sub', [d.float([1]), y]);
      return [d.op1('Mul', [dy[0] as string, d.op1('Mul', [y, oneMinus])])];
    },
  },
  Relu: {
    // The output's sign is 1 where the input was positive, else 0 (ReLU'(0) = 0).
    infer: same,
    grad: ({ d, node, dy }) => [d.op1('Mul', [dy[0] as string, d.op1('Sign', [node.outputs[0] as string])])],
  },
  Erf: { infer: same },
  Sign: { infer: same },
};
