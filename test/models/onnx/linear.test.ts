import { describe, expect, it } from 'vitest';
import { loadOrt } from '../../../src/models/engines/ort/index.js';
import { halfToFloat, toFloat16Bits } from '../../../src/models/float16.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { GraphBuilder } from '../../../src/models/onnx/graph-builder.js';
import { GraphContext } from '../../../src/models/onnx/graph-context.js';
import { addLinear, Q8_MAX_LEVEL } from '../../../src/models/onnx/linear.js';
import { type BuiltinDtype, resolvePrecision } from '../../../src/models/onnx/precision.js';
import { dequantizeBlock4, quantizeBlock4, quantizeInt8 } from '../../../src/models/onnx/quantize.js';
import { Rng } from '../../../src/rng.js';

const [M, K, N] = [5, 64, 24];
const rng = new Rng(7);
const x = rng.fillNormal(new Float32Array(M * K));
const w = rng.fillNormal(new Float32Array(K * N), 0.1);

/** Runs `x @ w` through one `addLinear` product of `dtype`; returns the output and the graph's op types. */
async function product(dtype: BuiltinDtype, accuracyLevel = 4): Promise<{ y: Float32Array; ops: string[] }> {
  const g = new GraphBuilder();
  const input = g.input('x', 'float32', [M, K]);
  const config = ModelConfig.preset('tiny');
  const precision = resolvePrecision(config, { dtype, accuracyLevel });
  const ctx = new GraphContext(
    g,
    config,
    new Map(),
    { inputIds: 'ids', attentionMask: 'mask' },
    { precision },
  );
  addLinear(ctx, input, { name: 'w', k: K, n: N, data: () => w }, 'ffn', 'y');
  g.output('y');
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(g.encode(), {
    intraOpNumThreads: 1,
    externalData: g.externalData.map((e) => ({ path: e.path, data: e.data })),
  });
  const out = await session.run({ x: new ort.Tensor('float32', x, [M, K]) });
  await session.release();
  return { y: out['y']?.data as Float32Array, ops: [...ctx.quantized.keys()] };
}

function matmul(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const out = new Float64Array(M * N);
  for (let m = 0; m < M; m++)
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += (a[m * K + k] as number) * (b[k * N + n] as number);
      out[m * N + n] = s;
    }
  return out;
}

function expectClose(got: Float32Array, want: Float64Array, tol: number): void {
  for (let i = 0; i < want.length; i++)
    expect(Math.abs((got[i] as number) - (want[i] as number))).toBeLessThanOrEqual(
      tol * (1 + Math.abs(want[i] as number)),
    );
}

describe('addLinear runs the product of each dtype as the quantizer defines it', () => {
  it('fp32: exact MatMul, nothing recorded as quantized', async () => {
    const { y, ops } = await product('fp32');
    expectClose(y, matmul(x, w), 1e-5);
    expect(ops).toEqual([]);
  });

  it('fp16: the product with float16-rounded weights', async () => {
    const { y, ops } = await product('fp16');
    const half = Array.from(toFloat16Bits(w), halfToFloat);
    expectClose(y, matmul(x, half), 1e-5);
    expect(ops).toEqual(['w']);
  });

  it('q4 (accuracy level 1, float32 compute): the product with the dequantized 4-bit weights', async () => {
    const { y } = await product('q4', 1);
    expectClose(y, matmul(x, dequantizeBlock4(quantizeBlock4(w, K, N, 32), K, N)), 1e-4);
  });

  it('q4 (accuracy level 4, int8 compute): close to the dequantized product', async () => {
    const { y } = await product('q4', 4);
    expectClose(y, matmul(x, dequantizeBlock4(quantizeBlock4(w, K, N, 32), K, N)), 3e-2);
  });

  it('q8: uint8 dynamic activations (ONNX DynamicQuantizeLinear) times per-channel int8 weights', async () => {
    const { y } = await product('q8');
    const q = quantizeInt8(w, K, N, true, Q8_MAX_LEVEL);
    const lo = Math.min(0, ...x);
    const hi = Math.max(0, ...x);
    const scale = Math.fround((hi - lo) / 255);
    const zp = Math.max(0, Math.min(255, Math.round(-lo / scale)));
    const xq = Array.from(x, (v) => Math.max(0, Math.min(255, Math.round(v / scale) + zp)) - zp);
    const acc = matmul(xq, q.values);
    const want = acc.map((v, i) => v * scale * (q.scales[i % N] as number));
    expectClose(y, want, 1e-5);
  });
});
