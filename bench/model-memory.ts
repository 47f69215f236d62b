/**
 * Memory of model creation: for the built-in gpt2-small (seeded weights) and for the same model loaded back from a
 * Hugging Face ONNX folder, the process's peak RSS while the model is created and the RSS it settles at once the
 * model exists, each in a fresh child process (so every peak is that case's own), with the glibc malloc settings
 * the CLI uses (which keep freed memory in the process) and with glibc's defaults. Prints peak ÷ settled (the goal is ≤ 1.15) and both against the model's weight bytes.
 *
 * Run with `npm run bench:memory [-- --config gpt2-small --threads 2 --dtype fp32]` (`--dtype` is the built-in
 * model's; the Hugging Face folder is always the fp32 export).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MALLOC_TUNING } from '../src/cli/malloc-tuning.js';
import { ModelConfig } from '../src/models/model-config.js';
import type { BuiltinDtype } from '../src/models/onnx/precision.js';
import { memoryFootprint } from '../src/profiling/memory.js';

const MB = 1024 * 1024;

/** VmRSS and VmHWM of this process, in bytes. */
function rss(): { rss: number; peak: number } {
  const status = execFileSync('cat', [`/proc/${process.pid}/status`], { encoding: 'utf8' });
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
}

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};

async function child(
  kind: string,
  preset: string,
  threads: number,
  folder: string,
  dtype: BuiltinDtype,
): Promise<void> {
  const { createModel, exportHfModel, initWeights, loadHfModel } = await import('../src/models/index.js');
  const { loadOrt } = await import('../src/models/engines/ort/index.js');
  if (kind === 'export') {
    const config = ModelConfig.resolve(preset);
    exportHfModel(config, initWeights(config, 0), folder, { externalData: true });
    return;
  }
  await loadOrt();
  const before = rss();
  const t0 = performance.now();
  const model =
    kind === 'builtin'
      ? await createModel(preset, { threads, seed: 0, dtype })
      : await loadHfModel(folder, { threads });
  const loadMs = performance.now() - t0;
  // Let the process settle (freed JS buffers are collected, allocator trims) before reading the settled RSS.
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 200));
  const after = rss();
  await model.forward(Int32Array.from([1, 2, 3]), { batch: 1, seq: 3 });
  process.stdout.write(
    `${JSON.stringify({ kind, baseline: before.rss, peak: after.peak, settled: after.rss, loadMs })}\n`,
  );
  await model.dispose();
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    await child(
      process.argv[3] as string,
      process.argv[4] as string,
      Number(process.argv[5]),
      process.argv[6] as string,
      process.argv[7] as BuiltinDtype,
    );
    return;
  }
  const preset = arg('config', 'gpt2-small');
  const threads = Number(arg('threads', '2'));
  const dtype = arg('dtype', 'fp32');
  const script = fileURLToPath(import.meta.url);
  const folder = mkdtempSync(join(tmpdir(), 'dantinox-memory-'));
  const untuned = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !Object.hasOwn(MALLOC_TUNING, k)),
  );
  const run = (kind: string, tuned = true): Record<string, number> =>
    JSON.parse(
      execFileSync(process.execPath, [script, '--child', kind, preset, String(threads), folder, dtype], {
        encoding: 'utf8',
        env: tuned ? { ...process.env, ...MALLOC_TUNING } : untuned,
        maxBuffer: 1 << 20,
      }).trim() || '{}',
    );
  try {
    run('export');
    const weights = memoryFootprint(ModelConfig.resolve(preset)).weightBytes;
    console.log(
      `${preset}: ${(weights / MB).toFixed(0)} MiB of fp32 weights, ${threads} threads, built-in model in ${dtype}`,
    );
    for (const [kind, tuned] of [
      ['builtin', true],
      ['builtin', false],
      ['hf-folder', true],
      ['hf-folder', false],
    ] as const) {
      const r = run(kind, tuned) as { baseline: number; peak: number; settled: number; loadMs: number };
      console.log(
        `${kind.padEnd(9)} ${tuned ? 'malloc tuned' : 'default malloc'}: load ${r.loadMs.toFixed(0)} ms; RSS before ${(r.baseline / MB).toFixed(0)} MiB, ` +
          `peak ${(r.peak / MB).toFixed(0)} MiB (${(r.peak / weights).toFixed(2)}× weights), settled ${(r.settled / MB).toFixed(0)} MiB; ` +
          `peak ÷ settled = ${(r.peak / r.settled).toFixed(2)} (goal ≤ 1.15)`,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

await main();
