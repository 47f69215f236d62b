/**
 * Soak test of the model lifecycle: 1,000 create → forward → dispose cycles of the `tiny` preset and 30 of
 * `small`, with the process's resident memory (RSS) sampled as it goes. A model, session or buffer kept alive by
 * mistake shows up as RSS that keeps growing with the cycle count. Prints the start, end and largest RSS and the
 * growth of each phase, and exits 1 when a phase grows by more than its bound.
 *
 * The start is sampled after a few warm-up cycles (ONNX Runtime's and the allocator's first-use memory is not a
 * leak), with a garbage collection before every sample. Bounds: {@link TINY_BOUND_MIB} for `tiny` (a leak of
 * 64 KiB a cycle crosses it over 1,000 cycles) and {@link SMALL_BOUND_MIB} for `small` (a leak of 3 MiB a cycle
 * crosses it over 30 cycles); the weights each preset allocates per cycle are printed beside them.
 *
 * Run with `npm run soak [-- --tiny 1000 --small 30 --every 50]` (not part of `npm test`: it takes minutes).
 */
import { createModel } from '../src/models/index.js';
import { ModelConfig } from '../src/models/model-config.js';
import { memoryFootprint } from '../src/profiling/memory.js';

const MiB = 1024 * 1024;

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer`);
  return value;
};

/** Runs a full garbage collection when node was started with --expose-gc (npm run soak does). */
function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
}

/** RSS in bytes after a garbage collection and a turn of the event loop (freed native buffers are released). */
async function sampleRss(): Promise<number> {
  collect();
  await new Promise((resolve) => setTimeout(resolve, 20));
  return process.memoryUsage().rss;
}

interface PhaseResult {
  readonly preset: string;
  readonly cycles: number;
  readonly startMiB: number;
  readonly endMiB: number;
  readonly maxMiB: number;
  readonly growthMiB: number;
  readonly boundMiB: number;
  readonly seconds: number;
}

/** `cycles` create/forward/dispose cycles of `preset` after `warmup` unsampled ones, sampling RSS every `every`. */
async function phase(
  preset: string,
  cycles: number,
  warmup: number,
  every: number,
  boundMiB: number,
): Promise<PhaseResult> {
  const config = ModelConfig.preset(preset);
  const seq = Math.min(32, config.maxContext);
  const tokens = Int32Array.from({ length: seq }, (_, i) => (i * 7) % config.vocabSize);
  const cycle = async (seed: number): Promise<void> => {
    const model = await createModel(preset, { threads: 1, seed });
    const logits = await model.forward(tokens, { batch: 1, seq });
    if (logits.data.length !== seq * config.vocabSize) throw new Error('unexpected logits size');
    await model.dispose();
  };
  for (let i = 0; i < warmup; i++) await cycle(i);
  const t0 = performance.now();
  const start = await sampleRss();
  let max = start;
  let end = start;
  for (let i = 1; i <= cycles; i++) {
    await cycle(warmup + i);
    if (i % every === 0 || i === cycles) {
      end = await sampleRss();
      max = Math.max(max, end);
      process.stderr.write(`${preset}: cycle ${i}/${cycles}, RSS ${(end / MiB).toFixed(1)} MiB\n`);
    }
  }
  return {
    preset,
    cycles,
    startMiB: start / MiB,
    endMiB: end / MiB,
    maxMiB: max / MiB,
    growthMiB: (end - start) / MiB,
    boundMiB,
    seconds: (performance.now() - t0) / 1000,
  };
}

/** Weight bytes of a preset in MiB (float32), to put the bounds in proportion. */
const weightsMiB = (preset: string): number =>
  memoryFootprint(ModelConfig.preset(preset), { dtype: 'fp32' }).weightBytes / MiB;

/** Growth bound of the `tiny` phase: a leak of 64 KiB per cycle over 1,000 cycles crosses it. */
const TINY_BOUND_MIB = 64;
/** Growth bound of the `small` phase: a leak of 3 MiB per cycle over 30 cycles crosses it. */
const SMALL_BOUND_MIB = 96;

async function main(): Promise<void> {
  const every = arg('every', 50);
  const phases = [
    await phase('tiny', arg('tiny', 1000), 10, every, TINY_BOUND_MIB),
    await phase('small', arg('small', 30), 2, Math.max(1, Math.floor(every / 10)), SMALL_BOUND_MIB),
  ];
  let failed = false;
  for (const p of phases) {
    const ok = p.growthMiB <= p.boundMiB;
    failed ||= !ok;
    process.stdout.write(
      `${p.preset} (${weightsMiB(p.preset).toFixed(1)} MiB of weights): ${p.cycles} cycles in ${p.seconds.toFixed(1)} s; RSS start ${p.startMiB.toFixed(1)} MiB, end ${p.endMiB.toFixed(1)} MiB, max ${p.maxMiB.toFixed(1)} MiB, growth ${p.growthMiB.toFixed(1)} MiB (bound ${p.boundMiB} MiB): ${ok ? 'ok' : 'TOO MUCH GROWTH'}\n`,
    );
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
