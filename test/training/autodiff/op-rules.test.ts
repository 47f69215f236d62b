/**
 * Every gradient rule of the differentiator against central finite differences, one operator at a time, on small
 * random inputs (including the broadcasts and batched forms the training graph uses), run by ONNX Runtime in
 * float32. Tolerance: |analytic − numeric| ≤ 2% of (|numeric| + 0.05) — float32 central differences with
 * h = 5·10⁻³ on losses of order 1 carry about 10⁻⁴ of rounding and h²-order truncation, so a wrong rule (a missed
 * transpose, a sign, a factor) fails by orders of magnitude more.
 */
import { describe, expect, it } from 'vitest';
import { MS_DOMAIN } from '../../../src/models/onnx/graph-builder.js';
import { OP_RULES, type OpRule } from '../../../src/training/autodiff/op-rules.js';
import { checkOpGradient, type OpCase } from './op-gradient-check.js';

const f = (name: string, shape: number[]) => ({ name, type: 'float32' as const, shape });

const CASES: readonly OpCase[] = [
  { name: 'Identity', inputs: [f('x', [3, 4])], build: (d, [x]) => d.op1('Identity', [x as string]) },
  {
    name: 'Add',
    inputs: [f('a', [2, 3, 4]), f('b', [4])],
    build: (d, [a, b]) => d.op1('Add', [a as string, b as string]),
  },
  {
    name: 'Add (both broadcast)',
    inputs: [f('a', [2, 1, 4]), f('b', [3, 1])],
    build: (d, [a, b]) => d.op1('Add', [a as string, b as string]),
  },
  {
    name: 'Sum',
    inputs: [f('a', [2, 3]), f('b', [3]), f('c', [2, 3])],
    build: (d, [a, b, c]) => d.op1('Sum', [a as string, b as string, c as string]),
  },
  {
    name: 'Sub',
    inputs: [f('a', [2, 3]), f('b', [2, 1])],
    build: (d, [a, b]) => d.op1('Sub', [a as string, b as string]),
  },
  {
    name: 'Mul',
    inputs: [f('a', [2, 3, 4]), f('b', [3, 4])],
    build: (d, [a, b]) => d.op1('Mul', [a as string, b as string]),
  },
  {
    name: 'Mul (a value times itself)',
    inputs: [f('a', [5])],
    build: (d, [a]) => d.op1('Mul', [a as string, a as string]),
  },
  {
    name: 'Div',
    inputs: [f('a', [2, 3]), f('b', [3])],
    awayFromZero: 0.5,
    build: (d, [a, b]) => d.op1('Div', [a as string, b as string]),
  },
  { name: 'Neg', inputs: [f('x', [6])], build: (d, [x]) => d.op1('Neg', [x as string]) },
  { name: 'Exp', inputs: [f('x', [6])], build: (d, [x]) => d.op1('Exp', [x as string]) },
  { name: 'Sigmoid', inputs: [f('x', [2, 5])], build: (d, [x]) => d.op1('Sigmoid', [x as string]) },
  {
    name: 'Relu',
    inputs: [f('x', [2, 5])],
    awayFromZero: 0.1,
    build: (d, [x]) => d.op1('Relu', [x as string]),
  },
  {
    name: 'Gelu',
    inputs: [f('x', [3, 4])],
    build: (d, [x]) =>
      d.op1('Gelu', [d.op1('Mul', [x as string, d.float([3])])], { approximate: { string: 'none' } }),
  },
  { name: 'Reshape', inputs: [f('x', [2, 6])], build: (d, [x]) => d.reshape(x as string, [3, 4]) },
  { name: 'Transpose', inputs: [f('x', [2, 3, 4])], build: (d, [x]) => d.transpose(x as string, [2, 0, 1]) },
  {
    name: 'Cast',
    inputs: [f('x', [4])],
    build: (d, [x]) => d.op1('Cast', [x as string], { to: { int: 1 } }),
  },
  {
    name: 'Gather (embedding rows, a repeated id)',
    inputs: [
      f('table', [5, 3]),
      { name: 'ids', type: 'int32', shape: [2, 3], values: Int32Array.of(0, 4, 2, 4, 1, 4) },
    ],
    build: (d, [table, ids]) => d.op1('Gather', [table as string, ids as string], { axis: { int: 0 } }),
  },
  {
    name: 'GatherElements',
    inputs: [
      f('x', [3, 5]),
      { name: 'i', type: 'int64', shape: [3, 1], values: BigInt64Array.of(4n, 0n, 2n) },
    ],
    build: (d, [x, i]) => d.op1('GatherElements', [x as string, i as string], { axis: { int: 1 } }),
  },
  {
    name: 'MatMul (activations × weight matrix)',
    inputs: [f('x', [2, 3, 4]), f('w', [4, 5])],
    build: (d, [x, w]) => d.op1('MatMul', [x as string, w as string]),
  },
  {
    name: 'MatMul (batched, as attention)',
    inputs: [f('q', [2, 2, 3, 4]), f('k', [2, 2, 4, 3])],
    build: (d, [q, k]) => d.op1('MatMul', [q as string, k as string]),
  },
  {
    name: 'MatMul (broadcast batch)',
    inputs: [f('a', [2, 3, 4]), f('b', [1, 4, 2])],
    build: (d, [a, b]) => d.op1('MatMul', [a as string, b as string]),
  },
  {
    name: 'ReduceSum',
    inputs: [f('x', [2, 3, 4])],
    build: (d, [x]) => d.op1('ReduceSum', [x as string, d.int64([1])], { keepdims: { int: 0 } }),
  },
  {
    name: 'ReduceMean',
    inputs: [f('x', [2, 3, 4])],
    build: (d, [x]) => d.op1('ReduceMean', [x as string, d.int64([-1])], { keepdims: { int: 1 } }),
  },
  {
    name: 'Softmax',
    inputs: [f('x', [2, 3, 5])],
    build: (d, [x]) => d.op1('Softmax', [d.op1('Mul', [x as string, d.float([2])])], { axis: { int: -1 } }),
  },
  {
    name: 'LogSoftmax',
    inputs: [f('x', [3, 5])],
    build: (d, [x]) => d.op1('LogSoftmax', [x as string], { axis: { int: -1 } }),
  },
  {
    name: 'SimplifiedLayerNormalization (RMSNorm)',
    inputs: [f('x', [2, 3, 6]), f('w', [6])],
    build: (d, [x, w]) =>
      d.op(
        'SimplifiedLayerNormalization',
        [x as string, w as string],
        { axis: { int: -1 }, epsilon: { float: 1e-5 } },
        { outputs: 2 },
      )[0] as string,
  },
  {
    name: 'LayerNormalization',
    inputs: [f('x', [2, 3, 6]), f('w', [6]), f('b', [6])],
    build: (d, [x, w, b]) =>
      d.op(
        'LayerNormalization',
        [x as string, w as string, b as string],
        { axis: { int: -1 }, epsilon: { float: 1e-5 } },
        { outputs: 3 },
      )[0] as string,
  },
  {
    name: 'RotaryEmbedding',
    inputs: [
      f('x', [2, 3, 8]),
      { name: 'pos', type: 'int64', shape: [2, 3], values: BigInt64Array.of(0n, 1n, 2n, 3n, 5n, 7n) },
      { ...f('cos', [8, 2]), differentiate: false },
      { ...f('sin', [8, 2]), differentiate: false },
    ],
    build: (d, [x, pos, cos, sin]) =>
      d.op1('RotaryEmbedding', [x as string, pos as string, cos as string, sin as string], {
        num_heads: { int: 2 },
        interleaved: { int: 0 },
      }),
  },
];

describe('gradient rules against central finite differences', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    expect(await checkOpGradient(c)).toBeLessThan(0.02);
  });

  it('cover every operator that has a gradient rule', () => {
    const tested = new Set(CASES.map((c) => c.name.split(' ')[0]));
    const differentiable = Object.entries(OP_RULES)
      .filter(([, rule]) => rule.grad !== undefined)
      .map(([op]) => op);
    expect(differentiable.filter((op) => !tested.has(op))).toEqual([]);
    expect(OP_RULES['RotaryEmbedding']?.domain).toBe(MS_DOMAIN);
  });
});

describe('the check catches a wrong rule', () => {
  it.each([
    ['Sigmoid without its (1 − σ) factor', 'Sigmoid', 'Exp'],
    ['RotaryEmbedding rotating forward again', 'RotaryEmbedding', 'Identity'],
    ['LayerNormalization without its mean term', 'LayerNormalization', 'SimplifiedLayerNormalization'],
  ] as const)('%s', async (_name, op, borrowed) => {
    const c = CASES.find((k) => k.name.startsWith(op)) as OpCase;
    const wrong = { ...OP_RULES, [op]: { ...OP_RULES[op], grad: wrongGrad(op, borrowed) } } as Record<
      string,
      OpRule
    >;
    expect(await checkOpGradient(c, wrong)).toBeGreaterThan(0.1);
  });
});

/** A gradient rule for `op` that is wrong in the way its name says. */
function wrongGrad(op: string, borrowed: string): OpRule['grad'] {
  if (op === 'RotaryEmbedding')
    return ({ d, node, dy }) => [
      d.op1('RotaryEmbedding', [dy[0] as string, ...(node.inputs.slice(1) as string[])], node.attrs),
      undefined,
      undefined,
      undefined,
    ];
  if (op === 'LayerNormalization')
    // RMSNorm's rule, fed the inverse standard deviation: it forgets the centring.
    return (ctx) => {
      const [x, w] = ctx.node.inputs as [string, string];
      const rms = OP_RULES[borrowed]?.grad as NonNullable<OpRule['grad']>;
      const out = rms({
        ...ctx,
        node: {
          ...ctx.node,
          inputs: [x, w],
          outputs: [ctx.node.outputs[0] as string, ctx.node.outputs[2] as string],
        },
      });
      return [out[0], out[1], ctx.d.sumTo(ctx.dy[0] as string, [6])];
    };
  return OP_RULES[borrowed]?.grad;
}
