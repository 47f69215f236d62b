/**
 * Checks one operator's gradient rule against central finite differences: a graph of the operator, a scalar loss
 * Σ out ⊙ R (R a fixed random tensor, so every output element matters), its gradients from the differentiator,
 * all run by ONNX Runtime; the finite differences perturb one input element at a time by ±h through the same
 * session's loss.
 */
import type { Tensor } from 'onnxruntime-node';
import type { TensorType } from '../../../src/dtype.js';
import { loadOrt } from '../../../src/models/engines/ort/index.js';
import { Rng } from '../../../src/rng.js';
import { DiffGraph } from '../../../src/training/autodiff/diff-graph.js';
import { OP_RULES, type OpRule } from '../../../src/training/autodiff/op-rules.js';
import { type Shape, sizeOf } from '../../../src/training/autodiff/shape.js';

/** One input of an operator under test. */
export interface OpInput {
  readonly name: string;
  readonly type: TensorType;
  readonly shape: Shape;
  /** Values (float inputs default to uniform in ±1, pushed away from 0 by `awayFromZero`). */
  readonly values?: Float32Array | Int32Array | BigInt64Array;
  /** Whether the gradient is checked (float inputs only). @default true for float32 */
  readonly differentiate?: boolean;
}

/** An operator case: its inputs and how to build it. */
export interface OpCase {
  readonly name: string;
  readonly inputs: readonly OpInput[];
  readonly build: (d: DiffGraph, inputs: readonly string[]) => string;
  /** Smallest |value| of the random float inputs (kinks such as ReLU's at 0). @default 0 */
  readonly awayFromZero?: number;
}

/** The worst disagreement of a case: |analytic − numeric| / (|numeric| + 0.05), over every checked element. */
export async function checkOpGradient(
  c: OpCase,
  rules: Readonly<Record<string, OpRule>> = OP_RULES,
  seed = 0,
  h = 5e-3,
): Promise<number> {
  const rng = new Rng(seed);
  const d = new DiffGraph(undefined, rules);
  const names = c.inputs.map((i) => d.input(i.name, i.type, i.shape));
  const out = c.build(d, names);
  const r = new Float32Array(sizeOf(d.shape(out)));
  for (let i = 0; i < r.length; i++) r[i] = rng.next() * 2 - 1;
  const weighted = d.op1('Mul', [out, d.constant('R', d.shape(out), r)]);
  const loss = d.op1('ReduceSum', [weighted], { keepdims: { int: 0 } });
  d.output(loss, 'loss');
  const checked = c.inputs.filter((i) => i.type === 'float32' && i.differentiate !== false);
  const grads = d.gradients(
    loss,
    checked.map((i) => i.name),
  );
  for (const [i, g] of grads.entries()) d.output(g, `grad.${checked[i]?.name}`);
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(d.builder.encode(), {
    intraOpNumThreads: 1,
    externalData: d.builder.externalData.map((e) => ({ path: e.path, data: e.data })),
  });
  const values = new Map<string, Float32Array | Int32Array | BigInt64Array>();
  for (const i of c.inputs) {
    if (i.values !== undefined) values.set(i.name, i.values);
    else {
      const v = new Float32Array(sizeOf(i.shape));
      for (let k = 0; k < v.length; k++) {
        const u = rng.next() * 2 - 1;
        const floor = c.awayFromZero ?? 0;
        v[k] = Math.sign(u) * (floor + Math.abs(u) * (1 - floor));
      }
      values.set(i.name, v);
    }
  }
  const feeds = (): Record<string, Tensor> => {
    const f: Record<string, Tensor> = {};
    for (const i of c.inputs) {
      const v = values.get(i.name) as Float32Array | Int32Array | BigInt64Array;
      f[i.name] =
        i.type === 'int64'
          ? new ort.Tensor('int64', v as BigInt64Array, [...i.shape])
          : i.type === 'int32'
            ? new ort.Tensor('int32', v as Int32Array, [...i.shape])
            : new ort.Tensor('float32', v as Float32Array, [...i.shape]);
    }
    return f;
  };
  const all = await session.run(feeds());
  const lossAt = async (): Promise<number> =>
    ((await session.run(feeds(), ['loss']))['loss'] as Tensor).data[0] as number;
  let worst = 0;
  for (const input of checked) {
    const analytic = all[`grad.${input.name}`]?.data as Float32Array;
    const v = values.get(input.name) as Float32Array;
    for (let k = 0; k < v.length; k++) {
      const x = v[k] as number;
      v[k] = x + h;
      const up = await lossAt();
      v[k] = x - h;
      const down = await lossAt();
      v[k] = x;
      const numeric = (up - down) / (2 * h);
      worst = Math.max(worst, Math.abs((analytic[k] as number) - numeric) / (Math.abs(numeric) + 0.05));
    }
  }
  await session.release();
  return worst;
}
