/**
 * Training-step benchmark (`npm run bench:train [-- --threads N --rounds N --shapes tiny,small,medium]`): what the trainer's engine choice
 * rests on, measured side by side in one process, interleaved in rounds, at three shapes — the `tiny` preset and
 * a small model (dim 256, 4 blocks, 8 heads, vocab 4096, context 128), both at batch 16 × 128 tokens, and a
 * larger one (dim 384, 6 blocks, 6 heads, vocab 4096, context 256) at batch 16 × 256:
 *
 * 1. the ONNX Runtime training step: the forward + backward graph `buildTrainingGraph` emits (loss and every
 *    gradient), one `session.run`, tokens/s;
 * 2. a pure-TypeScript step, bounded from below: the matrix products it cannot avoid — each forward product
 *    (`x @ W` of every projection and MLP matrix, the LM head, and the causal half of QKᵀ and PV per sequence and
 *    head) and the two of its backward pass — timed with `reference/tensor-ops.ts`'s `matmul` (the reference
 *    model's kernel) at 128 rows per product and scaled to the step's rows (its cost is linear in the rows). Norms,
 *    softmax, activations and the optimizer are left out, so the real TypeScript step is slower still: the ratio
 *    printed is a lower bound of ONNX Runtime's advantage;
 * 3. the AdamW update of every weight, in JavaScript over the Float32Arrays (`adamwUpdate`) against the same
 *    update as a second ONNX Runtime graph (weights, gradients and moments in, new weights and moments out);
 * 4. the whole trainer step (`Trainer.trainStep`: batch, forward + backward, clipping, AdamW), the figure a run's
 *    length is sized from, and the process's peak RSS beside `trainingMemoryBytes`'s estimate.
 *
 * Each ratio is computed per round and the median printed, with the CPU and the load average at start and end; the
 * step rates are printed as the median and the fastest round (other processes only slow a round down).
 */

import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { readCpuInfo } from '../src/benchmarking/environment.js';
import { MALLOC_TUNING, respawnWithMallocTuning } from '../src/cli/malloc-tuning.js';
import { loadOrt } from '../src/models/engines/ort/index.js';
import { ModelConfig } from '../src/models/model-config.js';
import { GraphBuilder } from '../src/models/onnx/graph-builder.js';
import { collectGarbage } from '../src/models/onnx/model-files.js';
import { matmul } from '../src/models/reference/tensor-ops.js';
import { ByteTokenizer } from '../src/models/tokenizers/byte-tokenizer.js';
import { initWeights, numElements, type WeightTensor } from '../src/models/weights.js';
import { countTrainingFlops } from '../src/profiling/flops.js';
import { readRss, resetPeakRss } from '../src/profiling/process-memory.js';
import { Rng } from '../src/rng.js';
import {
  ADAMW_DEFAULTS,
  type AdamMoments,
  adamwUpdate,
  resolveTrainingOptions,
  Trainer,
  TrainingSession,
  trainingBatch,
  trainingMemoryBytes,
  trainingRng,
  validationSet,
  zeroMoments,
} from '../src/training/index.js';
import { numberArg } from './bench-args.js';

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const fmt = (v: number, digits = 1): string => v.toFixed(digits);

/** The shapes, each trained at batch × seq tokens per step; `--shapes` picks them by key. */
const SHAPES = [
  { key: 'tiny', name: 'tiny', config: ModelConfig.preset('tiny'), batch: 16, seq: 128 },
  {
    key: 'small',
    name: 'small (dim 256, 4 blocks, vocab 4096, context 128)',
    config: ModelConfig.parse({ dim: 256, nHeads: 8, numBlocks: 4, vocabSize: 4096, maxContext: 128 }),
    batch: 16,
    seq: 128,
  },
  {
    key: 'medium',
    name: 'medium (dim 384, 6 blocks, vocab 4096, context 256)',
    config: ModelConfig.parse({ dim: 384, nHeads: 6, numBlocks: 6, vocabSize: 4096, maxContext: 256 }),
    batch: 16,
    seq: 256,
  },
] as const;

/** Sequences per batch and tokens per sequence of a measurement. */
interface Shape {
  readonly batch: number;
  readonly seq: number;
}

/** Milliseconds of `fn`'s median run after `warmup` runs. */
async function medianMs(fn: () => Promise<unknown> | unknown, runs: number, warmup = 2): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = nowMs();
    await fn();
    samples.push(nowMs() - t0);
  }
  return median(samples);
}

/** The matrix products of one forward pass: rows M, inner K, columns N, how many. */
function forwardProducts(
  config: ModelConfig,
  { batch, seq }: Shape,
): { m: number; k: number; n: number; count: number }[] {
  const { dim: d, nHeads: h, kvHeads, headSize: hs, numBlocks: l, vocabSize: v } = config;
  const f = Math.round(config.expansion * d);
  const rows = batch * seq;
  return [
    { m: rows, k: d, n: h * hs, count: l },
    { m: rows, k: d, n: kvHeads * hs, count: 2 * l },
    { m: rows, k: h * hs, n: d, count: l },
    { m: rows, k: d, n: f, count: (config.useSwiglu ? 2 : 1) * l },
    { m: rows, k: f, n: d, count: l },
    { m: rows, k: d, n: v, count: 1 },
    // QKᵀ and PV per sequence and head, causal: half of each T × T product.
    { m: seq, k: hs, n: seq, count: (batch * h * l) / 2 },
    { m: seq, k: seq, n: hs, count: (batch * h * l) / 2 },
  ];
}

/** Lower bound of a TypeScript step in ms: 3 × the forward products, each timed at 128 rows and scaled. */
function typescriptStepMs(config: ModelConfig, shape: Shape): number {
  const rows = 128;
  let total = 0;
  const perRow = new Map<string, number>();
  for (const p of forwardProducts(config, shape)) {
    const key = `${p.k}x${p.n}`;
    let ms = perRow.get(key);
    if (ms === undefined) {
      const x = new Float64Array(rows * p.k).map((_, i) => Math.sin(i));
      const w = new Rng(1).fillNormal(new Float32Array(p.k * p.n), 0.02);
      const reps = Math.max(1, Math.ceil(2e7 / (rows * p.k * p.n)));
      const t0 = nowMs();
      for (let r = 0; r < reps; r++) matmul(x, rows, w, p.k, p.n);
      ms = (nowMs() - t0) / reps / rows;
      perRow.set(key, ms);
    }
    total += ms * p.m * p.count;
  }
  return 3 * total;
}

/** The AdamW update of every weight as one ONNX Runtime graph. */
async function ortOptimizer(weights: ReadonlyMap<string, WeightTensor>, threads: number) {
  const g = new GraphBuilder();
  const { beta1, beta2, eps, weightDecay } = ADAMW_DEFAULTS;
  const lr = g.input('lr', 'float32', []);
  const c1 = g.input('c1', 'float32', []);
  const c2 = g.input('c2', 'float32', []);
  const decayed = g.op('Sub', [g.float([1]), g.op('Mul', [lr, g.float([weightDecay])])]);
  let i = 0;
  for (const [, w] of weights) {
    const n = numElements(w.dims);
    const [wi, gi, mi, vi] = ['w', 'g', 'm', 'v'].map((k) => g.input(`${k}${i}`, 'float32', [n])) as [
      string,
      string,
      string,
      string,
    ];
    const m = g.op(
      'Add',
      [g.op('Mul', [mi, g.float([beta1])]), g.op('Mul', [gi, g.float([1 - beta1])])],
      {},
      { output: `m_out${i}` },
    );
    const v = g.op(
      'Add',
      [g.op('Mul', [vi, g.float([beta2])]), g.op('Mul', [g.op('Mul', [gi, gi]), g.float([1 - beta2])])],
      {},
      { output: `v_out${i}` },
    );
    const stepSize = g.op('Div', [
      g.op('Mul', [lr, g.op('Div', [m, c1])]),
      g.op('Add', [g.op('Sqrt', [g.op('Div', [v, c2])]), g.float([eps])]),
    ]);
    g.op(
      'Sub',
      [w.dims.length >= 2 ? g.op('Mul', [wi, decayed]) : wi, stepSize],
      {},
      { output: `w_out${i}` },
    );
    for (const o of [`w_out${i}`, `m_out${i}`, `v_out${i}`]) g.output(o);
    i++;
  }
  const ort = await loadOrt();
  const session: InferenceSession = await ort.InferenceSession.create(g.encode(), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const state: { w: Float32Array; g: Float32Array; m: Float32Array; v: Float32Array }[] = [
    ...weights.values(),
  ].map((w) => ({
    w: w.data,
    g: new Float32Array(w.data.length).fill(1e-3),
    m: new Float32Array(w.data.length),
    v: new Float32Array(w.data.length),
  }));
  return async (t: number): Promise<void> => {
    const feeds: Record<string, Tensor> = {
      lr: new ort.Tensor('float32', Float32Array.of(1e-3), []),
      c1: new ort.Tensor('float32', Float32Array.of(1 - beta1 ** t), []),
      c2: new ort.Tensor('float32', Float32Array.of(1 - beta2 ** t), []),
    };
    state.forEach((s, k) => {
      for (const [name, data] of [
        ['w', s.w],
        ['g', s.g],
        ['m', s.m],
        ['v', s.v],
      ] as const)
        feeds[`${name}${k}`] = new ort.Tensor('float32', data, [data.length]);
    });
    const out = await session.run(feeds);
    state.forEach((s, k) => {
      s.w = out[`w_out${k}`]?.data as Float32Array;
      s.m = out[`m_out${k}`]?.data as Float32Array;
      s.v = out[`v_out${k}`]?.data as Float32Array;
    });
  };
}

/** `cpu family` and `model` of `/proc/cpuinfo` (`?` where absent). */
function cpuFamilyModel(): string {
  let info = '';
  try {
    info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    // not Linux
  }
  const field = (k: string): string => new RegExp(`^${k}\\s*:\\s*(.*)$`, 'm').exec(info)?.[1] ?? '?';
  return `family ${field('cpu family')}, model ${field('model')}`;
}

/** Measures one shape in `rounds` interleaved rounds and prints its lines. */
async function measureShape(
  name: string,
  config: ModelConfig,
  shape: Shape,
  threads: number,
  rounds: number,
): Promise<void> {
  const { batch: b, seq } = shape;
  const options = resolveTrainingOptions(config, { steps: 1000, batchSize: b, seqLen: seq });
  const text = Int32Array.from({ length: 200_000 }, (_, i) => (i * 7919 + 13) % config.vocabSize);
  const validation = validationSet(text.subarray(0, 10_000), {
    shape,
    maxBatches: 1,
    paradigm: 'ar',
    tokenizer: new ByteTokenizer(),
    seed: 0,
    maskTokenId: config.maskTokenId,
  });
  // The trainer first, alone, for its peak memory beside the estimate.
  collectGarbage();
  const base = readRss().rssBytes;
  resetPeakRss();
  const trainer = await Trainer.create({ config, options, train: text, validation, threads });
  for (let i = 0; i < 3; i++) await trainer.trainStep();
  const trainerPeak = readRss().peakRssBytes - base;
  const weights = new Map(initWeights(config, 0));
  const params = [...weights.values()].reduce((sum, w) => sum + w.data.length, 0);
  const flops = countTrainingFlops(config, { seqLen: seq, batchSize: b }).total;
  const session = await TrainingSession.create(config, { ...shape, threads });
  const batch = trainingBatch(text, shape, 'ar', trainingRng(0, 'batch', 0), config.maskTokenId);
  const moments = new Map([...weights].map(([n, w]) => [n, zeroMoments(w.data.length)]));
  const grads = new Map([...weights].map(([n, w]) => [n, new Float32Array(w.data.length).fill(1e-3)]));
  const optimizer = await ortOptimizer(initWeights(config, 0), threads);
  console.log(
    `\n${name}, batch ${b} × ${seq} tokens: ${params.toLocaleString('en-US')} parameters, ${fmt(flops / 1e9, 2)} GFLOP per training step (3 × forward), ${session.engine}`,
  );
  const ratios = { engine: [] as number[], optimizer: [] as number[] };
  const keep = { ort: [] as number[], ts: [] as number[], trainer: [] as number[] };
  let t = 0;
  for (let r = 0; r < rounds; r++) {
    const ort = await medianMs(() => session.step(weights, batch), 8);
    const ts = typescriptStepMs(config, shape);
    const adamJs = await medianMs(() => {
      t++;
      for (const [n, w] of weights)
        adamwUpdate(w, grads.get(n) as Float32Array, moments.get(n) as AdamMoments, t, 1e-3);
    }, 8);
    const adamOrt = await medianMs(() => optimizer(++t), 8);
    const step = await medianMs(() => trainer.trainStep(), 8);
    keep.ort.push(ort);
    keep.ts.push(ts);
    keep.trainer.push(step);
    ratios.engine.push(ts / ort);
    ratios.optimizer.push(adamOrt / adamJs);
    console.log(
      `  round ${r + 1}: ORT step ${fmt(ort)} ms, TS step ≥ ${fmt(ts)} ms, AdamW JS ${fmt(adamJs, 2)} ms / ORT graph ${fmt(adamOrt, 2)} ms, trainer step ${fmt(step)} ms`,
    );
  }
  const tokens = b * seq;
  const tps = (ms: number): string => fmt(tokens / (ms / 1000), 0);
  // Other processes only slow a round down: the fastest round is the closest to a quiet machine.
  const best = (xs: readonly number[]): number => Math.min(...xs);
  console.log(
    `  ORT forward + backward: ${tps(median(keep.ort))} tok/s median, ${tps(best(keep.ort))} fastest round (${fmt(flops / 1e9 / (best(keep.ort) / 1000), 1)} GFLOP/s)`,
  );
  console.log(`  TypeScript step: ≤ ${tps(median(keep.ts))} tok/s (its matrix products alone)`);
  console.log(
    `  whole trainer step (batch, forward + backward, clip, AdamW): ${tps(median(keep.trainer))} tok/s median (${fmt(median(keep.trainer))} ms), ${tps(best(keep.trainer))} tok/s fastest round (${fmt(best(keep.trainer))} ms)`,
  );
  console.log(
    `  ratio TypeScript ÷ ORT step time: ≥ ${fmt(median(ratios.engine), 0)}× (median of ${rounds} rounds; > 1: ORT is faster)`,
  );
  console.log(
    `  ratio AdamW ORT graph ÷ JavaScript: ${fmt(median(ratios.optimizer), 2)}× (median of ${rounds} rounds; > 1: JavaScript is faster)`,
  );
  console.log(
    `  trainer memory (peak RSS above the process before it): ${fmt(trainerPeak / 2 ** 20, 0)} MiB; trainingMemoryBytes estimate ${fmt(trainingMemoryBytes(config, shape) / 2 ** 20, 0)} MiB`,
  );
  await session.dispose();
  await trainer.dispose();
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const threads = numberArg(args, 'threads', availableParallelism());
  const rounds = numberArg(args, 'rounds', 3);
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(', ');
  console.log(
    `dantinox training-step benchmark — ${readCpuInfo().model} (${cpuFamilyModel()}), ${availableParallelism()} cores, ${threads} threads, Node ${process.version}`,
  );
  console.log(`load average at start: ${load()}`);
  const i = args.indexOf('--shapes');
  const keys = i >= 0 ? (args[i + 1] ?? '').split(',') : SHAPES.map((s) => s.key);
  const unknown = keys.filter((k) => !SHAPES.some((s) => s.key === k));
  if (unknown.length > 0) throw new Error(`unknown --shapes ${unknown.join(',')}: tiny, small, medium`);
  for (const { name, config, batch, seq } of SHAPES.filter((s) => keys.includes(s.key)))
    await measureShape(name, config, { batch, seq }, threads, rounds);
  console.log(`\nload average at end: ${load()}`);
}

if (Object.keys(MALLOC_TUNING).some((k) => process.env[k] === undefined)) {
  process.exitCode = await respawnWithMallocTuning(fileURLToPath(import.meta.url), process.argv.slice(2));
} else {
  await main();
}
