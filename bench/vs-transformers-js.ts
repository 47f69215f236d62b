/**
 * dantinox's Hugging Face loader vs `@huggingface/transformers` 4.3.2 on the same exported ONNX model, in one
 * process: prefill latency (one forward over a T-token prompt, KV cache returned) and greedy decode throughput
 * (tokens per second over the decode steps of a generation, prefill excluded).
 *
 * The model is a GPT-2-small-shaped export (124 M parameters, fp32, seeded weights, external data) written to
 * a temp dir. Both engines use the same onnxruntime-node 1.30 build and the same intra-op thread count. Rounds
 * alternate the order of the two engines (other processes share the CPU); medians are reported with min–max.
 *
 * Usage: `npm run bench:vs-tjs -- [--threads 2] [--prompt 128] [--new-tokens 64] [--rounds 7] [--model <dir>]`
 *
 * The script re-executes itself with the glibc malloc settings of `src/cli/malloc-tuning.ts` (mmap/trim thresholds) so page
 * faults do not dominate the timings.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { exportHfModel } from '../src/models/hf/hf-export.js';
import { loadHfModel } from '../src/models/hf/hf-model.js';
import { ModelConfig } from '../src/models/model-config.js';
import { ARParadigm } from '../src/models/paradigms/ar-paradigm.js';
import { initWeights } from '../src/models/weights.js';
import { Rng } from '../src/rng.js';

const MALLOC_ENV = {
  MALLOC_MMAP_THRESHOLD_: '2000000000',
  MALLOC_TRIM_THRESHOLD_: '4000000000',
  MALLOC_TOP_PAD_: '268435456',
};

if (process.env['MALLOC_MMAP_THRESHOLD_'] === undefined) {
  const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...MALLOC_ENV },
  });
  process.exit(child.status ?? 1);
}

const { values: args } = parseArgs({
  options: {
    threads: { type: 'string', default: '2' },
    prompt: { type: 'string', default: '128' },
    'new-tokens': { type: 'string', default: '64' },
    rounds: { type: 'string', default: '7' },
    model: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const threads = Number(args.threads);
const promptLen = Number(args.prompt);
const newTokens = Number(args['new-tokens']);
const rounds = Number(args.rounds);

const now = (): number => Number(process.hrtime.bigint()) / 1e6;
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] ?? Number.NaN) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const spread = (xs: readonly number[]): string =>
  `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;

// ── the model folder ──────────────────────────────────────────────────────────
let dir = args.model;
let tempRoot: string | undefined;
if (dir === undefined || !existsSync(join(dir, 'config.json'))) {
  tempRoot = mkdtempSync(join(tmpdir(), 'dantinox-vs-tjs-'));
  dir = join(tempRoot, 'gpt2-small-seeded');
  const config = ModelConfig.preset('gpt2-small');
  const t0 = now();
  const result = exportHfModel(config, initWeights(config, 0), dir, {
    externalData: true,
    tokenizer: 'gpt2',
  });
  console.log(
    `exported gpt2-small (seed 0) to ${dir}: ${(result.onnxBytes / 2 ** 20).toFixed(0)} MiB in ${((now() - t0) / 1000).toFixed(1)} s`,
  );
}

// ── dantinox ─────────────────────────────────────────────────────────────────
const model = await loadHfModel(dir, { threads });
const paradigm = new ARParadigm(model.config);
const prompt = Int32Array.from(new Rng(1n).integers(model.config.vocabSize, promptLen));
const shape = { batch: 1, seq: promptLen };

async function dantinoxPrefillMs(): Promise<number> {
  const t0 = now();
  const { state } = await model.prefill(prompt, shape);
  const ms = now() - t0;
  state.dispose();
  return ms;
}

async function dantinoxDecodeTps(): Promise<{ tps: number; tokens: Int32Array }> {
  const stamps: number[] = [];
  const out = await paradigm.generate(model, prompt, shape, new Rng(0n), {
    maxNewTokens: newTokens,
    greedy: true,
    onStep: () => stamps.push(now()),
  });
  const decodeMs = (stamps.at(-1) ?? 0) - (stamps[0] ?? 0);
  return { tps: ((newTokens - 1) * 1000) / decodeMs, tokens: out.tokens.subarray(promptLen) };
}

// ── transformers.js ──────────────────────────────────────────────────────────
const tjs = await import('@huggingface/transformers');
tjs.env.allowRemoteModels = false;
tjs.env.allowLocalModels = true;
tjs.env.localModelPath = `${dirname(dir)}/`;
const tjsModel = await tjs.AutoModelForCausalLM.from_pretrained(basename(dir), {
  device: 'cpu',
  dtype: 'fp32',
  session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
});
const ids = new tjs.Tensor(
  'int64',
  BigInt64Array.from(prompt, (v) => BigInt(v)),
  [1, promptLen],
);
const mask = new tjs.Tensor('int64', new BigInt64Array(promptLen).fill(1n), [1, promptLen]);

async function tjsPrefillMs(): Promise<number> {
  const t0 = now();
  await tjsModel({ input_ids: ids, attention_mask: mask });
  return now() - t0;
}

async function tjsDecodeTps(): Promise<{ tps: number; tokens: Int32Array }> {
  const stamps: number[] = [];
  const streamer = {
    calls: 0,
    put(): void {
      if (this.calls++ > 0) stamps.push(now()); // the first put is the prompt
    },
    end(): void {},
  };
  const out = (await tjsModel.generate({
    inputs: ids,
    attention_mask: mask,
    max_new_tokens: newTokens,
    min_new_tokens: newTokens,
    do_sample: false,
    streamer: streamer as never,
  })) as { tolist(): bigint[][] };
  const decodeMs = (stamps.at(-1) ?? 0) - (stamps[0] ?? 0);
  const row = out.tolist()[0] ?? [];
  return { tps: ((newTokens - 1) * 1000) / decodeMs, tokens: Int32Array.from(row.slice(promptLen), Number) };
}

// ── warm-up (≥ 1 s each), same greedy tokens check ──────────────────────────
for (const [name, fn] of [
  ['dantinox', dantinoxPrefillMs],
  ['transformers.js', tjsPrefillMs],
] as const) {
  const t0 = now();
  let n = 0;
  while (now() - t0 < 1000 || n < 2) {
    await fn();
    n++;
  }
  console.log(`warm-up ${name}: ${n} prefills`);
}
const a = await dantinoxDecodeTps();
const b = await tjsDecodeTps();
const same = a.tokens.every((t, i) => t === b.tokens[i]);
console.log(`greedy tokens identical across engines: ${same}`);

// ── measured rounds, alternating order ──────────────────────────────────────
const loadAvgStart = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const dPrefill: number[] = [];
const tPrefill: number[] = [];
const dDecode: number[] = [];
const tDecode: number[] = [];
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['d', 't'] : ['t', 'd'];
  for (const who of order) {
    if (who === 'd') {
      for (let i = 0; i < 3; i++) dPrefill.push(await dantinoxPrefillMs());
      dDecode.push((await dantinoxDecodeTps()).tps);
    } else {
      for (let i = 0; i < 3; i++) tPrefill.push(await tjsPrefillMs());
      tDecode.push((await tjsDecodeTps()).tps);
    }
  }
  console.log(
    `round ${r + 1}/${rounds}: prefill ${dPrefill.at(-1)?.toFixed(1)} vs ${tPrefill.at(-1)?.toFixed(1)} ms, decode ${dDecode.at(-1)?.toFixed(1)} vs ${tDecode.at(-1)?.toFixed(1)} tok/s`,
  );
}

console.log(
  `\n${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, load average during the run ${loadAvgStart} → ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} (other processes share the CPU: compare ratios, not absolute numbers)`,
);
console.log(
  `model gpt2-small shape (${(model.numParameters() / 1e6).toFixed(1)} M params, fp32), threads ${threads}, prompt ${promptLen}, ${newTokens} new tokens, ${rounds} rounds`,
);
console.log('engine            prefill ms (median, min–max)   decode tok/s (median, min–max)');
console.log(
  `dantinox          ${median(dPrefill).toFixed(1).padStart(8)} (${spread(dPrefill)})`.padEnd(48) +
    `${median(dDecode).toFixed(1).padStart(7)} (${spread(dDecode)})`,
);
console.log(
  `transformers.js   ${median(tPrefill).toFixed(1).padStart(8)} (${spread(tPrefill)})`.padEnd(48) +
    `${median(tDecode).toFixed(1).padStart(7)} (${spread(tDecode)})`,
);
// Ratios paired per round (both engines ran back to back under the same load), then the median over rounds.
const decodeRatios = dDecode.map((d, i) => d / (tDecode[i] ?? Number.NaN));
const prefillRatios = Array.from({ length: rounds }, (_, r) => {
  const t = median(tPrefill.slice(3 * r, 3 * r + 3));
  return t / median(dPrefill.slice(3 * r, 3 * r + 3));
});
const fmt = (xs: readonly number[]): string =>
  `${median(xs).toFixed(2)}× (per round ${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
console.log(
  `\ndecode speed-up  dantinox tok/s ÷ transformers.js tok/s: ${fmt(decodeRatios)}; target ≥ 1.20×`,
);
console.log(`prefill speed-up transformers.js ms ÷ dantinox ms:       ${fmt(prefillRatios)}; target ≥ 1.00×`);
console.log(
  `ratio of the medians: decode ${(median(dDecode) / median(tDecode)).toFixed(2)}×, prefill ${(median(tPrefill) / median(dPrefill)).toFixed(2)}×`,
);

await model.dispose();
await tjsModel.dispose();
if (tempRoot !== undefined && !args.keep) rmSync(tempRoot, { recursive: true, force: true });
else console.log(`model kept in ${dir}`);
