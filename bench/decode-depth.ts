/**
 * Where an ONNX Runtime decode step's time goes, measured without ONNX Runtime's profiler. dantinox's graph of the
 * 124 M llama shape of `bench:engines` (dim 768, 12 heads, 12 blocks, SwiGLU 2048, vocab 50,257, seeded weights)
 * is timed per dtype at several cache depths, in rounds that interleave dtypes and depths (the depth order
 * alternating); the least-squares line through the per-depth medians splits a step in two: its slope is the
 * attention over the cache (µs per cached position), its value at depth 0 everything else (weight products, LM
 * head, norms, the framework between the nodes). Then, per dtype, the same steps at the deepest depth on a model
 * opened with the profiler on: the step's wall time and the sum of its kernel times under the profiler, against the
 * unprofiled step, and the profiler's cost per node. Last, what a node costs the framework without the profiler:
 * a chain of 101 `Add` nodes on 768 floats against a chain of 1, per extra node.
 *
 * With `llama-bench` in `--engines` (the default), llama.cpp's own `llama-bench` (built by llama-cpp-build.ts) decodes
 * the same weights, exported as GGUF (F32, Q8_0, Q4_0; F16 KV cache, llama.cpp's default) at the same depths in the
 * same rounds, `-p 0 -n <steps> -d <depth>` (its timed steps include the first after the depth is filled, which
 * dantinox's two untimed steps leave out), and its line is fitted the same way: the two engines' attention over
 * the cache and their rest side by side, and their ratios.
 *
 * Run: `npm run bench:decode [-- --engines ort,llama-bench --dtypes fp32,q8,q4 --depths 16,512,960 --rounds 6
 * --steps 32 --threads 2]` (not in CI).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MALLOC_TUNING, respawnWithMallocTuning } from '../src/cli/malloc-tuning.js';
import { loadOrt } from '../src/models/engines/ort/index.js';
import { exportGguf } from '../src/models/gguf/gguf-export.js';
import { createModel, initWeights, type Model } from '../src/models/index.js';
import { GraphBuilder } from '../src/models/onnx/graph-builder.js';
import { BUILTIN_DTYPES, type BuiltinDtype } from '../src/models/onnx/precision.js';
import { fitLine, parseOrtProfile, quantileSorted } from '../src/profiling/index.js';
import { Rng } from '../src/rng.js';
import { LLAMA_124M, LLAMA_124M_LABEL } from './llama-124m.js';
import { llamaBenchTps } from './llama-bench-run.js';
import { buildLlamaCpp } from './llama-cpp-build.js';
import { startSpawner } from './spawner.js';

const { values: args } = parseArgs({
  options: {
    engines: { type: 'string', default: 'ort,llama-bench' },
    dtypes: { type: 'string', default: 'fp32,q8,q4' },
    depths: { type: 'string', default: '16,512,960' },
    rounds: { type: 'string', default: '6' },
    steps: { type: 'string', default: '32' },
    threads: { type: 'string', default: '2' },
  },
});
/** The engines this script times: dantinox's ONNX Runtime graph, and llama.cpp's own llama-bench. */
const ENGINES = ['ort', 'llama-bench'] as const;
const engines = args.engines.split(',');
const unknownEngine = engines.find((e) => !(ENGINES as readonly string[]).includes(e));
if (unknownEngine !== undefined || !engines.includes('ort')) {
  console.error(
    `--engines takes ort and optionally llama-bench, received ${args.engines}: pass --engines ort or --engines ort,llama-bench.`,
  );
  process.exit(2);
}
const dtypes = args.dtypes.split(',') as BuiltinDtype[];
const unknownDtype = dtypes.find((d) => !(BUILTIN_DTYPES as readonly string[]).includes(d));
if (unknownDtype !== undefined) {
  console.error(
    `--dtypes takes ${BUILTIN_DTYPES.join(', ')} (comma-separated), received ${unknownDtype}: pass e.g. --dtypes fp32,q4.`,
  );
  process.exit(2);
}
const depths = args.depths.split(',').map(Number);
const rounds = Number(args.rounds);
/** Timed steps per measurement, after two untimed ones. */
const steps = Number(args.steps);
const threads = Number(args.threads);
const UNTIMED_STEPS = 2;

const config = LLAMA_124M;
if (new Set(depths).size < 2) {
  console.error(
    `--depths needs at least two different depths to fit a line through, received ${args.depths}.`,
  );
  process.exit(2);
}
const deepest = Math.max(...depths);
if (deepest + UNTIMED_STEPS + steps > config.maxContext) {
  console.error(
    `--depths up to ${deepest} plus ${UNTIMED_STEPS + steps} steps exceed the model's context of ${config.maxContext}; pass smaller --depths or --steps.`,
  );
  process.exit(2);
}
const tokens = Int32Array.from(new Rng(1n).integers(config.vocabSize, config.maxContext));
const none = { logits: false };

/** A fitted line of step times: the per-depth medians, ms per step per cached position, ms per step at depth 0. */
interface Line {
  readonly ys: readonly number[];
  readonly slope: number;
  readonly intercept: number;
}

const median = (xs: readonly number[]): number =>
  quantileSorted(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

/** Milliseconds per decode step at `depth` cached positions: mean of `steps` steps after the untimed ones. */
async function stepMs(model: Model, depth: number): Promise<number> {
  let { state } = await model.prefill(tokens.subarray(0, depth), { batch: 1, seq: depth }, none);
  const step = async (i: number): Promise<void> => {
    ({ state } = await model.decodeStep(tokens.subarray(depth + i, depth + i + 1), state, none));
  };
  for (let i = 0; i < UNTIMED_STEPS; i++) await step(i);
  const t0 = performance.now();
  for (let i = UNTIMED_STEPS; i < UNTIMED_STEPS + steps; i++) await step(i);
  const ms = (performance.now() - t0) / steps;
  state.dispose();
  return ms;
}

/** Steps at the deepest depth on a profiled model: wall ms per step, kernel ms per step, kernels per step. */
async function profiledSteps(
  dtype: BuiltinDtype,
  weights: ReturnType<typeof initWeights>,
): Promise<{ runMs: number; kernelMs: number; nodes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-decode-depth-'));
  try {
    const model = await createModel(config, {
      weights,
      threads,
      dtype,
      name: `profiled-${dtype}`,
      profileFilePrefix: join(dir, 'ort'),
    });
    await stepMs(model, deepest);
    await model.dispose();
    const file = readdirSync(dir).find((f) => f.endsWith('.json')) as string;
    const trace = JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
    // Calls: the prefill, then the decode steps; the timed ones are the last `steps`.
    const runs = parseOrtProfile(trace).slice(-steps);
    const nodes = kernelEvents(trace) / (UNTIMED_STEPS + steps + 1);
    return {
      runMs: median(runs.map((r) => r.runMs)),
      kernelMs: median(runs.map((r) => Object.values(r.opMs).reduce((s, ms) => s + ms, 0))),
      nodes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Kernel events in a trace (every node of every call). */
function kernelEvents(trace: unknown): number {
  const events = Array.isArray(trace) ? (trace as { cat?: string; name?: string }[]) : [];
  return events.filter((e) => e.cat === 'Node' && e.name?.endsWith('_kernel_time') === true).length;
}

/** µs a node costs the framework: `runs` calls of a 101-node `Add` chain less those of a 1-node one, per extra node. */
async function nodeCostUs(runs = 200, rounds = 15): Promise<number> {
  const ort = await loadOrt();
  const chain = async (count: number) => {
    const g = new GraphBuilder();
    const x = g.input('x', 'float32', [1, 1, 768]);
    let y = x;
    for (let i = 0; i < count; i++) y = g.op('Add', [y, x], {}, i === count - 1 ? { output: 'y' } : {});
    g.output('y');
    return ort.InferenceSession.create(g.encode(), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
  };
  const [one, many] = [await chain(1), await chain(101)];
  const feeds = { x: new ort.Tensor('float32', new Float32Array(768).fill(1e-3), [1, 1, 768]) };
  const time = async (session: typeof one): Promise<number> => {
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) await session.run(feeds);
    return (1000 * (performance.now() - t0)) / runs;
  };
  await time(one);
  await time(many);
  const perNode: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which chain goes first, so drift falls on both.
    let oneUs: number;
    let manyUs: number;
    if (r % 2 === 0) {
      oneUs = await time(one);
      manyUs = await time(many);
    } else {
      manyUs = await time(many);
      oneUs = await time(one);
    }
    perNode.push((manyUs - oneUs) / 100);
  }
  await one.release();
  await many.release();
  return median(perNode);
}

async function main(): Promise<void> {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const load = (): string =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(
    `bench:decode — ${cpu}, ${cpus().length} logical CPUs, ${threads} threads, load average ${load()}`,
  );
  console.log(
    `model: ${LLAMA_124M_LABEL}; ${steps} timed steps after ${UNTIMED_STEPS} untimed, ${rounds} rounds`,
  );
  // The build check and the spawner fork this process: both come before any model is built (see spawner.ts).
  const native = engines.includes('llama-bench')
    ? { build: buildLlamaCpp(['llama-bench']), spawner: startSpawner() }
    : undefined;
  const weights = initWeights(config, 0);
  const models = new Map<BuiltinDtype, Model>();
  for (const dtype of dtypes)
    models.set(dtype, await createModel(config, { weights, threads, dtype, name: `decode-${dtype}` }));
  /** ms per decode step of `engine` in `dtype` at `depth`. */
  const measures = new Map<string, (depth: number) => Promise<number>>();
  for (const [dtype, model] of models) measures.set(`ort ${dtype}`, (depth) => stepMs(model, depth));
  const dir = native === undefined ? undefined : mkdtempSync(join(tmpdir(), 'dantinox-decode-depth-gguf-'));
  if (native !== undefined && dir !== undefined) {
    console.log(`llama-bench: llama.cpp ${native.build.commit.slice(0, 12)}, F16 KV cache`);
    for (const dtype of dtypes) {
      const model = join(dir, `model-${dtype}.gguf`);
      exportGguf({ config, weights }, model, { dtype });
      const run = { bin: join(native.build.binDir, 'llama-bench'), model, threads, kv: 'f16' };
      measures.set(`llama-bench ${dtype}`, async (depth) => {
        const tps = await llamaBenchTps(native.spawner, run, [
          '-p',
          '0',
          '-n',
          String(steps),
          '-d',
          String(depth),
        ]);
        return 1000 / tps;
      });
    }
  }
  const samples = new Map<string, number[]>();
  for (const measure of measures.values()) await measure(depths[0] as number); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [variant, measure] of measures) {
      for (const depth of r % 2 === 0 ? depths : [...depths].reverse()) {
        const key = `${variant}@${depth}`;
        samples.set(key, [...(samples.get(key) ?? []), await measure(depth)]);
      }
    }
    console.log(`round ${r + 1}/${rounds} done, load ${loadavg()[0]?.toFixed(2)}`);
  }
  native?.spawner.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  /** The line through a variant's per-depth medians: ms per step at each depth, its slope and its intercept. */
  const lines = new Map<string, Line>();
  for (const variant of measures.keys()) {
    const ys = depths.map((d) => median(samples.get(`${variant}@${d}`) as number[]));
    // Two different depths at least (checked above): the line exists.
    const { intercept, slope } = fitLine(depths, ys) as { intercept: number; slope: number };
    lines.set(variant, { ys, slope, intercept });
  }
  console.log(
    `\n| engine | dtype | ${depths.map((d) => `ms/step at depth ${d}`).join(' | ')} | attention µs per cached position | rest (depth 0) ms | attention share at depth ${deepest} |`,
  );
  console.log(`|---|---|${depths.map(() => '---|').join('')}---|---|---|`);
  for (const [variant, { ys, slope, intercept }] of lines) {
    const atDeepest = ys[depths.indexOf(deepest)] as number;
    console.log(
      `| ${variant.replace(' ', ' | ')} | ${ys.map((y) => y.toFixed(2)).join(' | ')} | ${(slope * 1000).toFixed(2)} | ${intercept.toFixed(2)} | ${((100 * slope * deepest) / atDeepest).toFixed(0)}% |`,
    );
  }
  if (native !== undefined) {
    console.log("\nort ÷ llama-bench, time per step (> 1: ONNX Runtime slower; from the lines' medians):");
    for (const dtype of dtypes) {
      const [o, l] = [lines.get(`ort ${dtype}`), lines.get(`llama-bench ${dtype}`)] as [Line, Line];
      const perDepth = depths.map(
        (d, i) => `${((o.ys[i] as number) / (l.ys[i] as number)).toFixed(2)} at depth ${d}`,
      );
      console.log(
        `  ${dtype}: ${perDepth.join(', ')}; attention per cached position ${(o.slope / l.slope).toFixed(2)}, rest ${(o.intercept / l.intercept).toFixed(2)}`,
      );
    }
  }
  for (const model of models.values()) await model.dispose();

  console.log(`\nthe profiler, at depth ${deepest} (median step; the unprofiled step from the table above):`);
  for (const dtype of dtypes) {
    const p = await profiledSteps(dtype, weights);
    const plain = (lines.get(`ort ${dtype}`) as Line).ys[depths.indexOf(deepest)] as number;
    console.log(
      `  ${dtype}: ${p.runMs.toFixed(2)} ms per step profiled (its ${p.nodes.toFixed(0)} kernels sum to ${p.kernelMs.toFixed(2)} ms) vs ${plain.toFixed(2)} ms unprofiled: ${(p.runMs / plain).toFixed(2)}×, ${((1000 * (p.runMs - plain)) / p.nodes).toFixed(1)} µs per node`,
    );
  }
  console.log(
    `\nwithout the profiler, a node costs the framework ${(await nodeCostUs()).toFixed(2)} µs (101 chained Add on 768 floats vs 1, median of 15 alternating rounds of 200 calls)`,
  );
  console.log(`load average at end: ${load()}`);
}

if (Object.keys(MALLOC_TUNING).some((k) => process.env[k] === undefined)) {
  process.exitCode = await respawnWithMallocTuning(fileURLToPath(import.meta.url), process.argv.slice(2));
} else {
  await main();
}
