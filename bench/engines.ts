/**
 * The same weights on three engines, side by side: dantinox's ONNX graph on onnxruntime-node (`ort`), llama.cpp
 * through its Node binding node-llama-cpp on GGUF exports (F32, Q8_0, Q4_0; rows `node-llama-cpp`), llama.cpp's own
 * `llama-bench` on the same files (rows `llama-bench`: native llama.cpp, built by llama-cpp-build.ts from the source
 * release node-llama-cpp ships, run as a child process per measurement — from a helper process forked before any
 * model is built, since a fork of the measuring process slows its engines up to 5×: see spawner.ts), and transformers.js on the
 * Hugging Face export (model.onnx, model_quantized.onnx, model_q4.onnx) — each in fp32, q8 and q4 quantized by
 * dantinox from the same weights. Model: a GPT-2-small-sized llama shape (dim 768, 12 heads, 12 blocks, SwiGLU width 2048,
 * vocab 50,257, tied head; 124 M parameters, seeded random weights).
 *
 * Measures, per engine and dtype, at the same thread count:
 * - prefill: one 512-token prompt, tokens/s (ort's graph runs the LM head over the last position only when no
 *   logits are asked for, as llama.cpp's own prefill does; transformers.js returns logits for all 512 positions —
 *   its graph has no other output);
 * - decode: 16 KV-cache steps at context 512..527 after an untimed 512-token prefill, tokens/s (greedy).
 * node-llama-cpp is timed directly (its own prefill and greedy step, no distribution copied to JavaScript); the
 * `llama.cpp/Model` row times dantinox's `LlamaCppModel` as the timing tasks call it (`{ logits: false }`: every
 * position's logits computed and the greedy token picked natively, nothing copied to JavaScript). Decode feeds
 * the same fixed token ids to every engine (no logits are read back). `llama-bench` reports its own tokens/s: `-p 512 -n 0` for prefill, `-p 0 -n <steps> -d 512` for
 * decode at depth 512 (the depth filled untimed). node-llama-cpp and llama-bench hold the same KV cache type,
 * llama.cpp's default F16 (`--native-kv bf16` for BF16; llama-bench has no F32 cache), and so does the llama.cpp/Model
 * row (`kvCacheType`; `LlamaCppModel`'s default is F32, like ORT's), so its ratio to node-llama-cpp is the wrapper's.
 *
 * Rounds interleave the variants (rotating the order); ratios are medians of per-round ratios. The binding's own
 * cost is printed on its own: node-llama-cpp's time per call less llama-bench's on the same file, per round.
 * `npm run bench:llama-native` is this script on `ort,node-llama-cpp,llama-bench`: dantinox ÷ native llama.cpp and
 * dantinox ÷ node-llama-cpp per dtype, in one run.
 *
 * Usage: `npm run bench:engines -- [--threads 2] [--rounds 5] [--steps 16] [--prompt 512]
 *   [--engines ort,node-llama-cpp,llama-bench,llama.cpp/Model,transformers.js] [--native-kv f16|bf16]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MALLOC_TUNING, respawnWithMallocTuning } from '../src/cli/malloc-tuning.js';
import { createLlamaCppModel } from '../src/models/engines/llama-cpp/create-llama-cpp-model.js';
import {
  LLAMA_KV_CACHE_TYPES,
  type LlamaKvCacheType,
} from '../src/models/engines/llama-cpp/llama-cpp-model.js';
import { loadNodeLlamaCpp } from '../src/models/engines/llama-cpp/node-llama-cpp-loader.js';
import { createTransformersJsModel } from '../src/models/engines/transformers-js/create-transformers-js-model.js';
import { exportGguf } from '../src/models/gguf/gguf-export.js';
import { countParameters, createModel, initWeights, type Model } from '../src/models/index.js';
import type { BuiltinDtype } from '../src/models/onnx/precision.js';
import { resolvePrecision } from '../src/models/onnx/precision.js';
import { Rng } from '../src/rng.js';
import { LLAMA_124M, LLAMA_124M_LABEL } from './llama-124m.js';
import { llamaBenchTps } from './llama-bench-run.js';
import { buildLlamaCpp } from './llama-cpp-build.js';
import { type Spawner, startSpawner } from './spawner.js';

const { values: args } = parseArgs({
  options: {
    threads: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    steps: { type: 'string', default: '16' },
    prompt: { type: 'string', default: '512' },
    engines: { type: 'string', default: 'ort,node-llama-cpp,llama-bench,llama.cpp/Model,transformers.js' },
    'native-kv': { type: 'string', default: 'f16' },
  },
});
const engines = new Set((args.engines as string).split(','));
/** The KV cache types llama-bench has (no f32), which both llama.cpp rows that measure llama.cpp itself hold. */
const NATIVE_KV = ['f16', 'bf16'] as const satisfies readonly LlamaKvCacheType[];
const nativeKv = NATIVE_KV.find((type) => type === args['native-kv']) ?? refuseNativeKv(args['native-kv']);
function refuseNativeKv(received: unknown): never {
  console.error(
    `--native-kv must be f16 or bf16, received ${received}: llama-bench (llama.cpp's own tool) has no f32 KV cache, and node-llama-cpp takes the same type so the two compare like with like.`,
  );
  process.exit(2);
}
/** The same type by llama.cpp's name, as node-llama-cpp takes it. */
const nativeKvType = LLAMA_KV_CACHE_TYPES[nativeKv].ggml;
const threads = Number(args.threads);
/** The dtypes every engine runs, by dantinox's names (llama.cpp: F32, Q8_0, Q4_0). */
const DTYPES = ['fp32', 'q8', 'q4'] as const;
const rounds = Number(args.rounds);
const steps = Number(args.steps);
const promptLen = Number(args.prompt);

const now = (): number => Number(process.hrtime.bigint()) / 1e6;
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** One engine × dtype under test: a prefill and a decode measurement, in tokens/s. */
interface Variant {
  readonly engine: string;
  readonly dtype: BuiltinDtype;
  prefillTps(prompt: Int32Array): Promise<number>;
  decodeTps(prompt: Int32Array): Promise<number>;
  dispose(): Promise<void>;
}

/** Prefill and decode through dantinox's Model contract (ort, transformers.js, llama.cpp/Model). */
function modelVariant(engine: string, dtype: BuiltinDtype, model: Model): Variant {
  const shape = { batch: 1, seq: promptLen };
  const none = { logits: false };
  return {
    engine,
    dtype,
    async prefillTps(prompt) {
      const t0 = now();
      const { state } = await model.prefill(prompt, shape, none);
      const ms = now() - t0;
      state.dispose();
      return (promptLen * 1000) / ms;
    },
    async decodeTps(prompt) {
      let { state } = await model.prefill(prompt, shape, none);
      const t0 = now();
      for (let i = 0; i < steps; i++) {
        ({ state } = await model.decodeStep(prompt.subarray(i, i + 1), state, none));
      }
      const ms = now() - t0;
      state.dispose();
      return (steps * 1000) / ms;
    },
    dispose: () => model.dispose(),
  };
}

/** llama.cpp through node-llama-cpp itself: last-token prefill and greedy steps, llama-bench's KV type, exact threads. */
async function nativeLlamaVariant(path: string, dtype: BuiltinDtype, contextSize: number): Promise<Variant> {
  const { llama } = await loadNodeLlamaCpp();
  const model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
  const context = await model.createContext({
    contextSize,
    sequences: 1,
    batchSize: promptLen,
    threads,
    experimentalKvCacheKeyType: nativeKvType,
    experimentalKvCacheValueType: nativeKvType,
  });
  type Input = Parameters<ReturnType<typeof context.getSequence>['controlledEvaluate']>[0];
  const withNext = (ids: Int32Array): Input =>
    Array.from(ids, (id, i) =>
      i === ids.length - 1 ? [id, { generateNext: { token: true } }] : id,
    ) as Input;
  return {
    engine: 'node-llama-cpp',
    dtype,
    async prefillTps(prompt) {
      const seq = context.getSequence();
      const t0 = now();
      await seq.controlledEvaluate(withNext(prompt));
      const ms = now() - t0;
      await seq.dispose();
      return (promptLen * 1000) / ms;
    },
    async decodeTps(prompt) {
      const seq = context.getSequence();
      let out = await seq.controlledEvaluate(withNext(prompt));
      let next = out[promptLen - 1]?.next?.token ?? 0;
      const t0 = now();
      for (let i = 0; i < steps; i++) {
        out = await seq.controlledEvaluate(withNext(Int32Array.of(next)));
        next = out[0]?.next?.token ?? 0;
      }
      const ms = now() - t0;
      await seq.dispose();
      return (steps * 1000) / ms;
    },
    async dispose() {
      await context.dispose();
      await model.dispose();
    },
  };
}

/**
 * llama.cpp's own llama-bench on `path`, run from `spawner` (never forked from this process): its reported tokens/s for
 * a 512-token prefill, and decode at depth 512.
 */
function llamaBenchVariant(spawner: Spawner, bin: string, path: string, dtype: BuiltinDtype): Variant {
  const run = { bin, model: path, threads, kv: nativeKv };
  return {
    engine: 'llama-bench',
    dtype,
    prefillTps: () => llamaBenchTps(spawner, run, ['-p', String(promptLen), '-n', '0']),
    decodeTps: () => llamaBenchTps(spawner, run, ['-p', '0', '-n', String(steps), '-d', String(promptLen)]),
    dispose: async () => {},
  };
}

async function main(): Promise<void> {
  const config = LLAMA_124M;
  const weights = initWeights(config, 0);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`bench:engines — ${cpu}, ${cpus().length} logical CPUs, ${threads} threads on every engine`);
  console.log(`engines: ${[...engines].join(', ')}`);
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `model: ${LLAMA_124M_LABEL} (${(countParameters(config) / 1e6).toFixed(0)} M params), prompt ${promptLen}, ${steps} decode steps, ${rounds} rounds`,
  );
  // Everything that forks this process comes first, while it is small: the llama.cpp build check, the spawner that
  // runs llama-bench, node-llama-cpp's loader (it tests its binding in a child process). A fork after a model is
  // built slows that model's next calls up to 5× (see spawner.ts).
  const native = engines.has('llama-bench')
    ? { build: buildLlamaCpp(['llama-bench']), spawner: startSpawner() }
    : undefined;
  if (engines.has('node-llama-cpp') || engines.has('llama.cpp/Model')) await loadNodeLlamaCpp();
  const variants: Variant[] = [];
  // Every engine quantizes the same fp32 weights with dantinox's quantizers (LM head included, as llama.cpp's pure
  // GGUF types): ort as DynamicQuantizeMatMul / MatMulNBits graphs, transformers.js as the files exportHfModel writes.
  for (const dtype of DTYPES) {
    if (!engines.has('ort')) break;
    const ort = await createModel(config, { weights, threads, dtype, name: `engines-${dtype}` });
    variants.push(modelVariant('ort', dtype, ort));
  }
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-engines-'));
  if (native !== undefined)
    console.log(
      `llama-bench: llama.cpp ${native.build.commit.slice(0, 12)}, KV cache ${nativeKv} (node-llama-cpp too)`,
    );
  for (const dtype of DTYPES) {
    const path = join(dir, `model-${dtype}.gguf`);
    exportGguf({ config, weights }, path, { dtype });
    if (engines.has('node-llama-cpp'))
      variants.push(await nativeLlamaVariant(path, dtype, config.maxContext));
    if (native !== undefined)
      variants.push(llamaBenchVariant(native.spawner, join(native.build.binDir, 'llama-bench'), path, dtype));
  }
  if (engines.has('llama.cpp/Model'))
    variants.push(
      modelVariant(
        'llama.cpp/Model',
        'fp32',
        await createLlamaCppModel({ config, weights }, { threads, kvCacheType: nativeKv }),
      ),
    );
  for (const dtype of DTYPES) {
    if (!engines.has('transformers.js')) break;
    const precision = resolvePrecision(config, { dtype });
    const tjs = await createTransformersJsModel({ config, weights }, { threads, precision });
    variants.push(modelVariant('transformers.js', dtype, tjs));
  }

  const prompt = Int32Array.from(new Rng(1n).integers(config.vocabSize, promptLen));
  // Warm-up: one prefill and one decode per variant.
  for (const v of variants) {
    await v.prefillTps(prompt);
    await v.decodeTps(prompt);
  }
  const results = new Map<string, { prefill: number[]; decode: number[] }>();
  const key = (v: Pick<Variant, 'engine' | 'dtype'>): string => `${v.engine} ${v.dtype}`;
  for (const v of variants) results.set(key(v), { prefill: [], decode: [] });
  for (let r = 0; r < rounds; r++) {
    const order = variants.map((_, i) => variants[(i + r) % variants.length] as Variant);
    for (const v of order) {
      const slot = results.get(key(v)) as { prefill: number[]; decode: number[] };
      slot.prefill.push(await v.prefillTps(prompt));
      slot.decode.push(await v.decodeTps(prompt));
    }
    console.log(`round ${r + 1}/${rounds} done, load ${loadavg()[0]?.toFixed(2)}`);
  }

  console.log(
    '\n| engine | dtype | prefill tok/s (T=512), median [min–max] | decode tok/s (ctx 512), median [min–max] |',
  );
  console.log('|---|---|---|---|');
  for (const [name, s] of results) {
    const [engine, dtype] = name.split(' ');
    const fmt = (xs: number[]): string =>
      `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`;
    console.log(`| ${engine} | ${dtype} | ${fmt(s.prefill)} | ${fmt(s.decode)} |`);
  }
  const ratio = (a: string, b: string, what: 'prefill' | 'decode'): string => {
    const x = results.get(a)?.[what];
    const y = results.get(b)?.[what];
    if (x === undefined || y === undefined) return 'skipped (no such variant)';
    const per = x.map((v, i) => v / (y[i] as number));
    return `${median(per).toFixed(2)}× (per round ${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)})`;
  };
  console.log('\nratios (medians of per-round ratios; > 1 means the first engine is faster):');
  if (!engines.has('ort'))
    console.log('  none: every ratio is ort against another engine, and --engines has no ort');
  for (const dtype of engines.has('ort') ? DTYPES : []) {
    for (const other of ['llama-bench', 'node-llama-cpp'].filter((e) => engines.has(e))) {
      console.log(
        `  ort ${dtype} ÷ ${other} ${dtype} decode : ${ratio(`ort ${dtype}`, `${other} ${dtype}`, 'decode')}`,
      );
      console.log(
        `  ort ${dtype} ÷ ${other} ${dtype} prefill: ${ratio(`ort ${dtype}`, `${other} ${dtype}`, 'prefill')}`,
      );
    }
    if (engines.has('transformers.js'))
      console.log(
        `  ort ${dtype} ÷ transformers.js ${dtype} decode: ${ratio(`ort ${dtype}`, `transformers.js ${dtype}`, 'decode')}`,
      );
  }
  if (engines.has('llama.cpp/Model') && engines.has('node-llama-cpp'))
    console.log(
      `  llama.cpp/Model fp32 ÷ node-llama-cpp fp32 decode: ${ratio('llama.cpp/Model fp32', 'node-llama-cpp fp32', 'decode')}`,
    );
  // The binding's own cost: node-llama-cpp's time per call less native llama.cpp's on the same file, per round.
  const overhead = (dtype: BuiltinDtype, what: 'prefill' | 'decode'): string => {
    // Called only when both engines ran, so both rows exist.
    const binding = results.get(`node-llama-cpp ${dtype}`)?.[what] as number[];
    const native = results.get(`llama-bench ${dtype}`)?.[what] as number[];
    const tokens = what === 'prefill' ? promptLen : 1;
    const ms = binding.map((tps, i) => (1000 * tokens) / tps - (1000 * tokens) / (native[i] as number));
    return `${median(ms).toFixed(2)} ms per call (per round ${Math.min(...ms).toFixed(2)} to ${Math.max(...ms).toFixed(2)})`;
  };
  if (engines.has('node-llama-cpp') && engines.has('llama-bench')) {
    console.log(
      "\nthe binding's overhead (node-llama-cpp time per call − llama-bench time per call, same GGUF):",
    );
    for (const dtype of DTYPES) {
      console.log(`  ${dtype} decode step: ${overhead(dtype, 'decode')}`);
      console.log(`  ${dtype} prefill of ${promptLen}: ${overhead(dtype, 'prefill')}`);
    }
  }
  console.log(
    `load average at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const v of variants) await v.dispose();
  native?.spawner.close();
  rmSync(dir, { recursive: true, force: true });
}

if (Object.keys(MALLOC_TUNING).some((k) => process.env[k] === undefined)) {
  process.exitCode = await respawnWithMallocTuning(fileURLToPath(import.meta.url), process.argv.slice(2));
} else {
  await main();
}
