/**
 * `npm run train:builtin [-- --preset brown --out <dir> --steps N]`: reproduces a trained preset's shipped files
 * from a clean clone and says whether they came out bit for bit. With the built binary (`dist/cli/main.js`,
 * which the npm script builds first) it trains the preset's BPE (`dantinox tokenizer train` with the preset's
 * `tokenizerArgs`), then the model (`dantinox train --config presets/<name>/model.yaml --tokenizer …` with its
 * `trainArgs`) into a scratch folder (`--out`, default a new temporary one), and compares the SHA-256 of the
 * trained `model.safetensors` and `tokenizer.json` with the shipped `SHA256SUMS`, printing equal/different, the
 * time taken, the CPU and the load average at start and end. Exit 0 when both are equal, 1 otherwise.
 *
 * The full `brown` run is 7,000 steps (81 minutes on a 2-core Intel Xeon with AVX-512 and AMX, 71 on a 2-core AMD
 * Zen 5, both `equal`). `--steps N` is a smoke test of the script only: it overrides the step count, so the weights
 * (not the tokenizer) are expected to differ.
 * Bit-for-bit equality is guaranteed only with 2 threads and the same ONNX Runtime on a CPU whose kernels add in the
 * same order: floating-point sums in another order give other weights.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCpuInfo } from '../src/benchmarking/environment.js';
import {
  isTrainedPreset,
  readSha256Sums,
  TRAINED_PRESET_FILES,
  TRAINED_PRESET_HASHED_FILES,
  TRAINED_PRESETS,
} from '../src/models/trained-presets.js';
import { filesSha256 } from '../src/models/weight-file-bytes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** The value after `--name` in `args`, or `undefined`. */
function stringArg(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Runs the built CLI with `args`, its output on this terminal; exits when it fails. */
function dantinox(args: readonly string[]): void {
  console.log(`$ dantinox ${args.join(' ')}`);
  const run = spawnSync(process.execPath, [CLI, ...args], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`dantinox ${args[0]} failed (exit ${String(run.status ?? run.signal)})`);
    process.exit(1);
  }
}

/** `args` with the value of `--steps` replaced by `steps` (when given). */
function withSteps(args: readonly string[], steps: string | undefined): string[] {
  if (steps === undefined) return [...args];
  const out = [...args];
  out[out.indexOf('--steps') + 1] = steps;
  return out;
}

const args = process.argv.slice(2);
const name = stringArg(args, 'preset') ?? 'brown';
if (!isTrainedPreset(name)) {
  console.error(`unknown trained preset "${name}": ${Object.keys(TRAINED_PRESETS).join(', ')}`);
  process.exit(2);
}
const steps = stringArg(args, 'steps');
const scratch = stringArg(args, 'out') ?? mkdtempSync(join(tmpdir(), `dantinox-train-${name}-`));
const shipped = join(ROOT, 'presets', name);
const preset = TRAINED_PRESETS[name];
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadStart = load();
const start = process.hrtime.bigint();

console.log(
  `train:builtin ${name} (${preset.description}) — ${readCpuInfo().model}, ${availableParallelism()} cores, Node ${process.version}; load average ${loadStart}`,
);
if (steps !== undefined)
  console.log(
    `--steps ${steps} overrides the shipped run's step count: a smoke test, the weights will differ.`,
  );
const tokenizerDir = join(scratch, 'tokenizer');
dantinox(['tokenizer', 'train', ...preset.tokenizerArgs, '--out', tokenizerDir]);
const runDir = join(scratch, 'run');
dantinox([
  'train',
  '--config',
  join(shipped, TRAINED_PRESET_FILES.config),
  '--tokenizer',
  join(tokenizerDir, TRAINED_PRESET_FILES.tokenizer),
  ...withSteps(preset.trainArgs, steps),
  '--out',
  runDir,
]);

const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const sums = readSha256Sums(join(shipped, TRAINED_PRESET_FILES.sums));
let allEqual = true;
for (const file of TRAINED_PRESET_HASHED_FILES) {
  const actual = filesSha256([join(runDir, 'model', file)]);
  const equal = actual === sums.get(file);
  allEqual &&= equal;
  console.log(
    `${file}: ${equal ? 'equal' : 'different'} (trained ${actual}, shipped ${sums.get(file) ?? 'not listed'})`,
  );
}
console.log(
  `${allEqual ? 'equal' : 'different'}: ${(seconds / 60).toFixed(1)} min; load average ${loadStart} at the start, ${load()} at the end; the run is in ${scratch}`,
);
process.exitCode = allEqual ? 0 : 1;
