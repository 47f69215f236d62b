/**
 * Quantized-model benchmark, all figures from one process run (`npm run bench:quant [-- --threads N --steps N
 * --rounds N]`):
 *
 * 1. ceilings: the fp32 and int8 GEMM ceilings `dantinox calibrate` measures (`calibrateOrt` in this process, before
 *    the rounds: the best probe per dtype), and the 4-bit GEMV rate (`MatMulNBits`, 1×4096 · 4096×16384, block 32,
 *    accuracy level 4);
 * 2. the kernel forms the q8 / q4 / fp16 choices were made from, at gpt2-small's MLP shape (512×768 · 768×3072):
 *    `DynamicQuantizeMatMul` per-channel and per-tensor, `DynamicQuantizeLinear` + `MatMulInteger`, the QDQ form
 *    (`DynamicQuantizeLinear` → `DequantizeLinear` → `MatMul`), `MatMulNBits` at accuracy levels 0 and 4, float16
 *    `MatMul` vs float16 weights cast (folded) to float32;
 * 3. gpt2-small (seed 0) in fp32, fp16, q8 and q4: prefill B=1 T=512 (tokens/s) and decode at context 512
 *    (tokens/s over `--steps` steps);
 * 4. scoring: the perplexity loss of a 513-token window (forward + in-graph NLL) against a forward of 512, and a
 *    kld batch (q8 model and fp32 reference forwards + in-graph KL) against the two forwards alone.
 *
 * Each round runs every workload once, one after the other, so each ratio is taken between measurements made
 * under the same machine load; the medians of the per-round ratios are printed with the targets.
 */

import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MALLOC_TUNING, respawnWithMallocTuning } from '../src/cli/malloc-tuning.js';
import { TENSOR_TYPES } from '../src/dtype.js';
import { calibrateOrt } from '../src/models/calibration/calibrate-ort.js';
import { loadOrt } from '../src/models/engines/ort/index.js';
import { toFloat16Bits } from '../src/models/float16.js';
import { ModelConfig } from '../src/models/model-config.js';
import { GraphBuilder, MS_DOMAIN } from '../src/models/onnx/graph-builder.js';
import { Q8_MAX_LEVEL } from '../src/models/onnx/linear.js';
import { logitScorer } from '../src/models/onnx/logit-scorer.js';
import { createModel, type OnnxModel } from '../src/models/onnx/onnx-model.js';
import type { BuiltinDtype } from '../src/models/onnx/precision.js';
import { quantizeBlock4, quantizeInt8 } from '../src/models/onnx/quantize.js';
import { ARParadigm } from '../src/models/paradigms/ar-paradigm.js';
import { countFlops } from '../src/profiling/flops.js';
import { Rng } from '../src/rng.js';
import { numberArg } from './bench-args.js';

const WARMUP_MS = 1000;
const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

interface Spread {
  readonly median: number;
  readonly p10: number;
  readonly p90: number;
  readonly n: number;
}

function spread(samples: readonly number[]): Spread {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number): number => {
    const pos = p * (s.length - 1);
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return (s[lo] ?? 0) + ((s[hi] ?? 0) - (s[lo] ?? 0)) * (pos - lo);
  };
  return { median: q(0.5), p10: q(0.1), p90: q(0.9), n: s.length };
}

const fmtSpread = (s: Spread, digits = 2): string =>
  `${s.median.toFixed(digits)} (p10 ${s.p10.toFixed(digits)}, p90 ${s.p90.toFixed(digits)}, n=${s.n})`;

/** A measured workload: `run` does one unit of work and returns its duration in ms; `work` is ops or tokens. */
interface Workload {
  readonly name: string;
  readonly work: number;
  readonly unit: string;
  readonly run: () => Promise<number>;
}

const timed =
  (fn: () => Promise<unknown>): (() => Promise<number>) =>
  async () => {
    const a = nowMs();
    await fn();
    return nowMs() - a;
  };

function randomArray(n: number, scale: number, seed: number): Float32Array {
  return new Rng(seed).fillNormal(new Float32Array(n), scale);
}

/** One product graph `y = op(x, …weights)` over a `[m, k]` input, as a timed workload of 2·m·k·n ops. */
async function productWorkload(
  name: string,
  threads: number,
  [m, k, n]: [number, number, number],
  build: (g: GraphBuilder, x: string) => void,
): Promise<Workload> {
  const ort = await loadOrt();
  const g = new GraphBuilder();
  build(g, g.input('x', 'float32', [m, k]));
  g.output('y');
  const session = await ort.InferenceSession.create(g.encode(), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    externalData: g.externalData.map((e) => ({ path: e.path, data: e.data })),
  });
  const feeds = { x: new ort.Tensor('float32', randomArray(m * k, 1, 7), [m, k]) };
  return { name, work: 2 * m * k * n, unit: 'GOP/s', run: timed(() => session.run(feeds)) };
}

type Shape = [number, number, number];

function int8Weights(g: GraphBuilder, k: number, n: number, perChannel: boolean): [string, string] {
  const q = quantizeInt8(randomArray(k * n, 0.05, 3), k, n, perChannel, Q8_MAX_LEVEL);
  return [
    g.tensorInit('w', [k, n], 'int8', q.values),
    g.tensorInit('s', perChannel ? [n] : [], 'float32', q.scales),
  ];
}

const dqmm =
  (perChannel: boolean) =>
  ([, k, n]: Shape) =>
  (g: GraphBuilder, x: string): void => {
    const [w, s] = int8Weights(g, k, n, perChannel);
    g.op('DynamicQuantizeMatMul', [x, w, s], {}, { domain: MS_DOMAIN, output: 'y' });
  };

const matMulInteger =
  ([, k, n]: Shape) =>
  (g: GraphBuilder, x: string): void => {
    const [w, s] = int8Weights(g, k, n, true);
    const [xq, xs, xz] = g.node('DynamicQuantizeLinear', [x], 3) as [string, string, string];
    const acc = g.op('Cast', [g.op('MatMulInteger', [xq, w, xz])], {
      to: { int: TENSOR_TYPES.float32.onnx },
    });
    g.op('Mul', [acc, g.op('Mul', [xs, s])], {}, { output: 'y' });
  };

const qdq =
  ([, k, n]: Shape) =>
  (g: GraphBuilder, x: string): void => {
    const [w, s] = int8Weights(g, k, n, true);
    const [xq, xs, xz] = g.node('DynamicQuantizeLinear', [x], 3) as [string, string, string];
    const xd = g.op('DequantizeLinear', [xq, xs, xz]);
    const wd = g.op('DequantizeLinear', [w, s], { axis: { int: 1 } });
    g.op('MatMul', [xd, wd], {}, { output: 'y' });
  };

const nbits =
  (accuracyLevel: number) =>
  ([, k, n]: Shape) =>
  (g: GraphBuilder, x: string): void => {
    const q = quantizeBlock4(randomArray(k * n, 0.05, 3), k, n, 32);
    const inputs = [
      x,
      g.tensorInit('b', [n, k / 32, 16], 'uint8', q.packed),
      g.tensorInit('s', [q.scales.length], 'float32', q.scales),
      g.tensorInit('z', [q.zeroPoints.length], 'uint8', q.zeroPoints),
    ];
    const attrs = {
      K: { int: k },
      N: { int: n },
      bits: { int: 4 },
      block_size: { int: 32 },
      accuracy_level: { int: accuracyLevel },
    };
    g.op('MatMulNBits', inputs, attrs, { domain: MS_DOMAIN, output: 'y' });
  };

const fp32MatMul =
  ([, k, n]: Shape) =>
  (g: GraphBuilder, x: string): void => {
    g.op('MatMul', [x, g.floatInit('w', [k, n], randomArray(k * n, 0.05, 3))], {}, { output: 'y' });
  };

const fp16Weights = (g: GraphBuilder, k: number, n: number): string =>
  g.tensorInit('w', [k, n], 'float16', toFloat16Bits(randomArray(k * n, 0.05, 3)));

const fp16MatMul =
  ([, k, n]: Shape) =>
  (g: GraphBuilder, x: string): void => {
    const xh = g.op('Cast', [x], { to: { int: TENSOR_TYPES.float16.onnx } });
    const y = g.op('MatMul', [xh, fp16Weights(g, k, n)]);
    g.op('Cast', [y], { to: { int: TENSOR_TYPES.float32.onnx } }, { output: 'y' });
  };

const fp16CastWeights =
  ([, k, n]: Shape) =>
  (g: GraphBuilder, x: string): void => {
    const w = g.op('Cast', [fp16Weights(g, k, n)], { to: { int: TENSOR_TYPES.float32.onnx } });
    g.op('MatMul', [x, w], {}, { output: 'y' });
  };

async function modelWorkloads(
  model: OnnxModel,
  dtype: BuiltinDtype,
  steps: number,
): Promise<{ prefill: Workload; decode: Workload }> {
  const seq = 512;
  const vocab = model.config.vocabSize;
  const prompt = Int32Array.from({ length: seq }, (_, i) => (i * 7919) % vocab);
  const shape = { batch: 1, seq };
  const token = Int32Array.from([42]);
  return {
    prefill: {
      name: `${dtype} prefill`,
      work: seq,
      unit: 'tok/s',
      run: timed(async () => (await model.prefill(prompt, shape)).state.dispose()),
    },
    decode: {
      name: `${dtype} decode`,
      work: 1,
      unit: 'tok/s',
      run: async () => {
        let state = (await model.prefill(prompt, shape)).state;
        const a = nowMs();
        for (let i = 0; i < steps; i++) state = (await model.decodeStep(token, state)).state;
        const ms = (nowMs() - a) / steps;
        state.dispose();
        return ms;
      },
    },
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: number): number => numberArg(args, name, fallback);
  const threads = arg('threads', availableParallelism());
  const steps = arg('steps', 16);
  const rounds = arg('rounds', 5);
  const load0 = loadavg();
  console.log(
    `dantinox quantization benchmark — ${cpus()[0]?.model ?? 'cpu'}, ${availableParallelism()} cores, ${threads} threads, Node ${process.version}, onnxruntime-node 1.30.0`,
  );
  console.log(`load average at start: ${load0.map((l) => l.toFixed(2)).join(', ')}`);
  console.log(
    `malloc: ${Object.entries(MALLOC_TUNING)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );

  console.log("calibrating (dantinox calibrate's probes, ≈ 20 s)…");
  const { ceilings } = await calibrateOrt({ threads });
  const fp32Ceiling = ceilings.gemmGflops['fp32'] as number;
  const int8Ceiling = ceilings.gemmGflops['q8'] as number;
  const gemv: Shape = [1, 4096, 16384];
  const mlp: Shape = [512, 768, 3072];
  const q4Gemv = await productWorkload(
    '4-bit GEMV MatMulNBits 1×4096·4096×16384',
    threads,
    gemv,
    nbits(4)(gemv),
  );
  const forms: Workload[] = [
    await productWorkload('fp32 MatMul', threads, mlp, fp32MatMul(mlp)),
    await productWorkload('q8 DynamicQuantizeMatMul per-channel', threads, mlp, dqmm(true)(mlp)),
    await productWorkload('q8 DynamicQuantizeMatMul per-tensor', threads, mlp, dqmm(false)(mlp)),
    await productWorkload('q8 DynamicQuantizeLinear + MatMulInteger', threads, mlp, matMulInteger(mlp)),
    await productWorkload('q8 QDQ (DequantizeLinear → MatMul)', threads, mlp, qdq(mlp)),
    await productWorkload('q4 MatMulNBits accuracy_level 0', threads, mlp, nbits(0)(mlp)),
    await productWorkload('q4 MatMulNBits accuracy_level 4', threads, mlp, nbits(4)(mlp)),
    await productWorkload('fp16 MatMul (float16 compute)', threads, mlp, fp16MatMul(mlp)),
    await productWorkload('fp16 weights Cast to float32 (folded)', threads, mlp, fp16CastWeights(mlp)),
  ];

  const config = ModelConfig.preset('gpt2-small');
  const dtypes: BuiltinDtype[] = ['fp32', 'fp16', 'q8', 'q4'];
  const models = new Map<BuiltinDtype, OnnxModel>();
  const runs = new Map<BuiltinDtype, { prefill: Workload; decode: Workload }>();
  for (const dtype of dtypes) {
    const t0 = nowMs();
    const model = await createModel(config, { threads, seed: 0, name: 'gpt2-small', dtype });
    console.log(`gpt2-small ${dtype}: session ready in ${((nowMs() - t0) / 1000).toFixed(1)} s`);
    models.set(dtype, model);
    runs.set(dtype, await modelWorkloads(model, dtype, steps));
  }
  const fp32 = models.get('fp32') as OnnxModel;
  const q8 = models.get('q8') as OnnxModel;
  const scorer = await logitScorer();
  const paradigm = new ARParadigm(config);
  const window = Int32Array.from({ length: 513 }, (_, i) => (i * 7919 + 13) % config.vocabSize);
  const inputs = window.subarray(0, 512);
  const shape = { batch: 1, seq: 512 };
  const targets = BigInt64Array.from(window.subarray(1), BigInt);
  const scoring: Workload[] = [
    { name: 'fp32 forward 512', work: 512, unit: 'tok/s', run: timed(() => fp32.forward(inputs, shape)) },
    {
      name: 'perplexity loss 513-token window',
      work: 512,
      unit: 'tok/s',
      run: timed(() => paradigm.lossFn(fp32, window, { batch: 1, seq: 513 }, new Rng(0))),
    },
    {
      name: 'q8 + fp32 forwards 512',
      work: 512,
      unit: 'tok/s',
      run: timed(async () => {
        await q8.forward(inputs, shape);
        await fp32.forward(inputs, shape);
      }),
    },
    {
      name: 'kld batch (q8 vs fp32) 512',
      work: 512,
      unit: 'tok/s',
      run: timed(async () => {
        const q = await q8.forward(inputs, shape);
        const p = await fp32.forward(inputs, shape);
        await scorer.kl(p.data, q.data, config.vocabSize, targets);
      }),
    },
  ];

  const modelRuns = dtypes.flatMap((d) => {
    const r = runs.get(d) as { prefill: Workload; decode: Workload };
    return [r.prefill, r.decode];
  });
  const all: Workload[] = [q4Gemv, ...forms, ...modelRuns, ...scoring];
  console.log(`\nwarming up ${all.length} workloads (≥ ${WARMUP_MS} ms each)…`);
  for (const w of all) {
    const start = nowMs();
    for (let i = 0; i < 2 || nowMs() - start < WARMUP_MS; i++) await w.run();
  }
  const samples = new Map<string, number[]>(all.map((w) => [w.name, []]));
  const ratios = new Map<string, number[]>();
  const ratio = (name: string, value: number): void => {
    const list = ratios.get(name) ?? [];
    list.push(value);
    ratios.set(name, list);
  };
  const prefillOps = countFlops(config, { seqLen: 512, batchSize: 1, formula: 'exact' }).total;
  for (let r = 0; r < rounds; r++) {
    const t: Record<string, number> = {};
    for (const w of all) {
      t[w.name] = await w.run();
      samples.get(w.name)?.push(t[w.name] as number);
    }
    const rate = (w: Workload): number => w.work / (t[w.name] as number);
    const run = (d: BuiltinDtype) => runs.get(d) as { prefill: Workload; decode: Workload };
    ratio(
      'q8 prefill ÷ fp32 prefill (target ≥ 3 where the int8 ceiling is ≥ 4× the fp32 one)',
      rate(run('q8').prefill) / rate(run('fp32').prefill),
    );
    ratio('q8 decode ÷ fp32 decode (target ≥ 2.5)', rate(run('q8').decode) / rate(run('fp32').decode));
    ratio('q4 decode ÷ fp32 decode (target ≥ 3)', rate(run('q4').decode) / rate(run('fp32').decode));
    ratio('fp16 prefill ÷ fp32 prefill', rate(run('fp16').prefill) / rate(run('fp32').prefill));
    ratio('fp16 decode ÷ fp32 decode', rate(run('fp16').decode) / rate(run('fp32').decode));
    ratio('q4 prefill ÷ fp32 prefill', rate(run('q4').prefill) / rate(run('fp32').prefill));
    ratio(
      'q8 prefill GOP/s (countFlops exact) ÷ int8 GEMM ceiling (target ≥ 0.6)',
      prefillOps / (t[run('q8').prefill.name] as number) / (int8Ceiling * 1e6),
    );
    ratio(
      'perplexity scoring ÷ forward throughput (target ≥ 0.85)',
      rate(scoring[1] as Workload) / rate(scoring[0] as Workload),
    );
    ratio(
      'kld scoring ÷ its two forwards (target ≥ 0.85)',
      rate(scoring[3] as Workload) / rate(scoring[2] as Workload),
    );
  }

  console.log(`\nmedian of ${rounds} rounds (after warm-up), rate = work / time:`);
  const show = (w: Workload): void => {
    const s = spread(samples.get(w.name) ?? []);
    const scale = w.unit === 'GOP/s' ? 1e6 : 1e-3;
    const r = w.work / s.median / scale;
    console.log(`  ${w.name.padEnd(48)} ${r.toFixed(1).padStart(9)} ${w.unit}   ${fmtSpread(s)} ms`);
  };
  console.log('ceilings (calibrated in this process, before the rounds):');
  console.log(`  fp32 GEMM ${fp32Ceiling.toFixed(1)} GFLOP/s, int8 GEMM ${int8Ceiling.toFixed(1)} GFLOP/s`);
  console.log(
    `  int8 ÷ fp32: ${(int8Ceiling / fp32Ceiling).toFixed(2)} (the q8 prefill target of 3× fp32 applies where this is ≥ 4)`,
  );
  show(q4Gemv);
  console.log('kernel forms at gpt2-small MLP shape 512×768·768×3072:');
  for (const w of forms) show(w);
  console.log('gpt2-small (seed 0), prefill B=1 T=512 and decode at context 512:');
  for (const w of modelRuns) show(w);
  console.log('scoring (B=1, T=512):');
  for (const w of scoring) show(w);
  console.log('\nratios (median of per-round ratios):');
  for (const [name, list] of ratios) console.log(`  ${name}: ${fmtSpread(spread(list), 3)}`);
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
  for (const m of models.values()) await m.dispose();
}

if (Object.keys(MALLOC_TUNING).some((k) => process.env[k] === undefined)) {
  process.exitCode = await respawnWithMallocTuning(fileURLToPath(import.meta.url), process.argv.slice(2));
} else {
  await main();
}
