/**
 * Runtime benchmark of the built-in ONNX transformer, all figures from one process run:
 *
 * 1. GEMM ceiling: ONNX Runtime `MatMul` of 2048×2048 by a 2048×2048 initializer (prepacked like model
 *    weights), four chained products per run, at the model's thread count;
 * 2. memory bandwidth: the best of (a) an ORT `ReduceSum` streaming a 256 MiB input (bytes read), (b) an ORT
 *    `Add` of two 256 MiB inputs into a third tensor reduced afterwards (bytes read + written), (c) an ORT
 *    matrix–vector `MatMul` over a 256 MiB weight (bytes read), (d) a JS `Float32Array.set` copy of 256 MiB
 *    (bytes read + written, one thread);
 * 3. gpt2-small prefill, B=1, T=512, fp32: exact FLOPs (`countFlops`) / median time, and its ratio to (1);
 * 4. gpt2-small decode at context 512…: tokens/s, and its ratio to the bandwidth roofline
 *    `(weights read + KV cache read per step) / (2)`.
 *
 * Run with `npm run bench:runtime [-- --threads N --steps N --rounds N]` (defaults: all cores, 32 decode steps,
 * 7 rounds). The process re-executes itself with the glibc malloc settings of `src/cli/malloc-tuning.ts` when they are not
 * set and warms every workload up for ≥ 1 s. Then each round runs every workload once, one after the other, so
 * that a ratio is taken between measurements made under the same machine load; it prints the medians (with the
 * 10th–90th percentile spread) and the median of the per-round ratios.
 */

import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MALLOC_TUNING, respawnWithMallocTuning } from '../src/cli/malloc-tuning.js';
import { loadOrt } from '../src/models/engines/ort/index.js';
import { ModelConfig } from '../src/models/model-config.js';
import { GraphBuilder } from '../src/models/onnx/graph-builder.js';
import { createModel } from '../src/models/onnx/onnx-model.js';
import { countFlops } from '../src/profiling/flops.js';
import { memoryFootprint } from '../src/profiling/memory.js';
import { countParameters } from '../src/profiling/parameters.js';
import { numberArg } from './bench-args.js';

const WARMUP_MS = 1000;

interface Spread {
  readonly median: number;
  readonly p10: number;
  readonly p90: number;
  readonly n: number;
}

function spread(samples: number[]): Spread {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number): number => {
    const pos = p * (s.length - 1);
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return (s[lo] ?? 0) + ((s[hi] ?? 0) - (s[lo] ?? 0)) * (pos - lo);
  };
  return { median: q(0.5), p10: q(0.1), p90: q(0.9), n: s.length };
}

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

function randomArray(n: number, scale: number, seed = 1): Float32Array {
  const out = new Float32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    out[i] = ((x >>> 8) / 16777216 - 0.5) * scale;
  }
  return out;
}

const fmt = (s: Spread, unit = 'ms', digits = 2): string =>
  `${s.median.toFixed(digits)} ${unit} (p10 ${s.p10.toFixed(digits)}, p90 ${s.p90.toFixed(digits)}, n=${s.n})`;

/** A measured workload: `run` does one timed unit of work and returns its duration in ms. */
interface Workload {
  readonly name: string;
  readonly run: () => Promise<number>;
}

const timed =
  (fn: () => Promise<unknown>): (() => Promise<number>) =>
  async () => {
    const a = nowMs();
    await fn();
    return nowMs() - a;
  };

async function gemmWorkload(
  threads: number,
): Promise<Workload & { flops: number; release: () => Promise<void> }> {
  const ort = await loadOrt();
  const n = 2048;
  const chain = 4;
  const g = new GraphBuilder();
  const a = g.input('a', 'float32', [n, n]);
  const w = g.floatInit('w', [n, n], randomArray(n * n, 2 / Math.sqrt(n)));
  let x = a;
  for (let i = 0; i < chain; i++) x = g.op('MatMul', [x, w]);
  g.op('ReduceSum', [x], { keepdims: { int: 0 } }, { output: 'y' });
  g.output('y');
  const session = await ort.InferenceSession.create(g.encode(), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    externalData: g.externalData.map((e) => ({ path: e.path, data: e.data })),
  });
  const feeds = { a: new ort.Tensor('float32', randomArray(n * n, 1, 7), [n, n]) };
  return {
    name: `ORT MatMul ${n}³ ×${chain}`,
    flops: 2 * n * n * n * chain,
    run: timed(() => session.run(feeds)),
    release: () => session.release(),
  };
}

async function bandwidthWorkloads(threads: number): Promise<(Workload & { bytes: number })[]> {
  const ort = await loadOrt();
  const n = 64 * 1024 * 1024;
  const a = randomArray(n, 1, 3);
  const b = randomArray(n, 1, 5);
  const out: (Workload & { bytes: number })[] = [];
  for (const kind of ['reduce', 'add'] as const) {
    // Row sums of a [65536, 1024] view parallelise over rows (a full reduction to a scalar does not).
    const g = new GraphBuilder();
    const x = g.input('a', 'float32', [n / 1024, 1024]);
    const y = kind === 'add' ? g.op('Add', [x, g.input('b', 'float32', [n / 1024, 1024])]) : x;
    g.op('ReduceSum', [y, g.int64([1])], { keepdims: { int: 0 } }, { output: 'r' });
    g.output('r');
    const session = await ort.InferenceSession.create(g.encode(), { intraOpNumThreads: threads });
    const rows = {
      a: new ort.Tensor('float32', a, [n / 1024, 1024]),
      b: new ort.Tensor('float32', b, [n / 1024, 1024]),
    };
    const f = kind === 'add' ? rows : { a: rows.a };
    // reduce: reads 4n bytes; add: reads a and b (8n), writes the sum (4n), reads it back to reduce it (4n).
    out.push(
      kind === 'reduce'
        ? { name: 'ORT ReduceSum over rows (read)', bytes: 4 * n, run: timed(() => session.run(f)) }
        : { name: 'ORT Add + ReduceSum (read+write)', bytes: 16 * n, run: timed(() => session.run(f)) },
    );
  }
  {
    // A matrix–vector product streams its 256 MiB weight once per call: the rate at which ORT's own GEMV
    // kernel reads memory (the roofline must not be lower than what the engine is seen to reach).
    const k = 8192;
    const g = new GraphBuilder();
    const x = g.input('x', 'float32', [1, k]);
    g.op('MatMul', [x, g.floatInit('w', [k, k], a.subarray(0, k * k))], {}, { output: 'y' });
    g.output('y');
    const session = await ort.InferenceSession.create(g.encode(), {
      intraOpNumThreads: threads,
      externalData: g.externalData.map((e) => ({ path: e.path, data: e.data })),
    });
    const f = { x: new ort.Tensor('float32', randomArray(k, 1, 9), [1, k]) };
    out.push({
      name: `ORT MatMul GEMV 1×${k}·${k}×${k} (read)`,
      bytes: 4 * k * k,
      run: timed(() => session.run(f)),
    });
  }
  const dst = new Float32Array(n);
  out.push({ name: 'JS Float32Array copy (1 thread)', bytes: 8 * n, run: timed(async () => dst.set(a)) });
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: number): number => numberArg(args, name, fallback);
  const threads = arg('threads', availableParallelism());
  const steps = arg('steps', 32);
  const rounds = arg('rounds', 7);
  console.log(
    `dantinox runtime benchmark — ${cpus()[0]?.model ?? 'cpu'}, ${availableParallelism()} cores, ${threads} threads, Node ${process.version}, onnxruntime-node 1.30.0`,
  );
  console.log(
    `malloc: ${Object.entries(MALLOC_TUNING)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  console.log(
    `${rounds} rounds after a ≥ 1 s warm-up of each workload; each round runs every workload once, side by side, so the ratios see the same machine load.\n`,
  );

  const gemm = await gemmWorkload(threads);
  const bws = await bandwidthWorkloads(threads);
  const config = ModelConfig.preset('gpt2-small');
  const t0 = nowMs();
  const model = await createModel(config, { threads, seed: 0, name: 'gpt2-small' });
  const ready = (nowMs() - t0) / 1000;
  const seq = 512;
  const prompt = Int32Array.from({ length: seq }, (_, i) => (i * 7919) % config.vocabSize);
  const shape = { batch: 1, seq };
  const prefill: Workload = {
    name: 'prefill',
    run: timed(async () => (await model.prefill(prompt, shape)).state.dispose()),
  };
  const token = Int32Array.from([42]);
  const decode: Workload = {
    name: 'decode',
    run: async () => {
      let state = (await model.prefill(prompt, shape)).state;
      const a = nowMs();
      for (let i = 0; i < steps; i++) state = (await model.decodeStep(token, state)).state;
      const ms = (nowMs() - a) / steps;
      state.dispose();
      return ms;
    },
  };
  const all: Workload[] = [gemm, ...bws, prefill, decode];
  for (const w of all) {
    const start = nowMs();
    for (let i = 0; i < 2 || nowMs() - start < WARMUP_MS; i++) await w.run();
  }
  const samples = new Map<string, number[]>(all.map((w) => [w.name, []]));
  const prefillRatios: number[] = [];
  const decodeRatios: number[] = [];

  const flops = countFlops(config, { seqLen: seq, batchSize: 1, formula: 'exact' }).total;
  const mem = memoryFootprint(config);
  const params = countParameters(config);
  // A decode step reads every weight except the position table, of which it reads one row.
  const unreadPositions = config.posEncoding === 'learned' ? (config.maxContext - 1) * config.dim : 0;
  const weightBytes = (params.active - unreadPositions) * mem.bytesPerElement;
  let stepBytes = 0;
  for (let c = seq; c < seq + steps; c++) stepBytes += weightBytes + c * mem.kvBytesPerToken;
  stepBytes /= steps;

  for (let r = 0; r < rounds; r++) {
    const t: Record<string, number> = {};
    for (const w of all) {
      t[w.name] = await w.run();
      samples.get(w.name)?.push(t[w.name] as number);
    }
    const gemmRate = gemm.flops / (t[gemm.name] as number);
    const bw = Math.max(...bws.map((b) => b.bytes / (t[b.name] as number)));
    prefillRatios.push(flops / (t[prefill.name] as number) / gemmRate);
    decodeRatios.push(stepBytes / bw / (t[decode.name] as number));
  }

  const med = (name: string): Spread => spread(samples.get(name) ?? []);
  const best = (name: string): number => Math.min(...(samples.get(name) ?? []));
  const g = med(gemm.name);
  const gemmGflops = gemm.flops / g.median / 1e6;
  console.log(
    `GEMM ceiling (${gemm.name}, ${threads} threads): ${gemmGflops.toFixed(1)} GFLOP/s — ${fmt(g)}`,
  );
  let bestBw = 0;
  let bestName = '';
  for (const b of bws) {
    const s = med(b.name);
    const gbs = b.bytes / s.median / 1e6;
    if (gbs > bestBw) [bestBw, bestName] = [gbs, b.name];
    console.log(`  bandwidth, ${b.name}: ${gbs.toFixed(1)} GB/s — ${fmt(s)}`);
  }
  const peakBw = Math.max(...bws.map((b) => b.bytes / best(b.name) / 1e6));
  const peakGemm = gemm.flops / best(gemm.name) / 1e6;
  console.log(
    `Memory bandwidth (best median of the above, the roofline): ${bestBw.toFixed(1)} GB/s (${bestName})`,
  );
  console.log(
    `Peak single samples (for the conservative ratios): GEMM ${peakGemm.toFixed(1)} GFLOP/s, bandwidth ${peakBw.toFixed(1)} GB/s\n`,
  );
  console.log(
    `gpt2-small: ${model.numParameters().toLocaleString('en')} parameters, fp32, session ready in ${ready.toFixed(1)} s`,
  );
  const p = med(prefill.name);
  const achieved = flops / p.median / 1e6;
  const pr = spread(prefillRatios);
  console.log(
    `prefill B=1 T=${seq}: ${fmt(p)}; ${(flops / 1e9).toFixed(1)} GFLOP (countFlops exact) → ${achieved.toFixed(1)} GFLOP/s`,
  );
  console.log(
    `  = ${pr.median.toFixed(3)} × GEMM ceiling (median of per-round ratios, p10 ${pr.p10.toFixed(3)}, p90 ${pr.p90.toFixed(3)}; target ≥ 0.8)`,
  );
  console.log(`  = ${(achieved / peakGemm).toFixed(3)} × the peak GEMM sample (conservative)`);
  const d = med(decode.name);
  const dr = spread(decodeRatios);
  console.log(
    `decode B=1 at context ${seq}…${seq + steps - 1}: ${fmt(d, 'ms/token')} → ${(1000 / d.median).toFixed(1)} tok/s`,
  );
  console.log(
    `  roofline: ${(stepBytes / 1e6).toFixed(1)} MB read per step (weights ${(weightBytes / 1e6).toFixed(1)} MB + mean KV ${((stepBytes - weightBytes) / 1e6).toFixed(1)} MB) / ${bestBw.toFixed(1)} GB/s → ${((bestBw * 1e9) / stepBytes).toFixed(1)} tok/s`,
  );
  console.log(
    `  = ${dr.median.toFixed(3)} × bandwidth roofline (median of per-round ratios, p10 ${dr.p10.toFixed(3)}, p90 ${dr.p90.toFixed(3)}; target ≥ 0.7)`,
  );
  console.log(
    `  = ${(stepBytes / (peakBw * 1e6) / d.median).toFixed(3)} × the roofline at the peak bandwidth sample (conservative)`,
  );
  await model.dispose();
  await gemm.release();
}

if (Object.keys(MALLOC_TUNING).some((k) => process.env[k] === undefined)) {
  process.exitCode = await respawnWithMallocTuning(fileURLToPath(import.meta.url), process.argv.slice(2));
} else {
  await main();
}
