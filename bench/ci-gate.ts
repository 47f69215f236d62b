/**
 * The CI recipe of docs/ci-github-actions.md, run as written on identical code: `pairs` A/A comparisons, each of
 * `rounds` interleaved base/PR bench runs of the same build (the recipe's BENCH_FLAGS), judged by
 * `dantinox compare runs/base -- runs/pr --fail-on-regression`. Prints how many pairs failed the gate (the goal:
 * at most 1 of 6), then slows every timing of the last pair's PR runs by a synthetic 15% and checks the gate
 * catches it.
 *
 *   npm run build && npm run bench:ci-gate -- --pairs 6 --rounds 5
 *
 * Run it on a quiet machine (load average < 1.5): the point is the run-to-run noise of a real machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { SuiteReport } from '../src/benchmarking/report.js';
import type { BenchmarkResult, CellRecord } from '../src/benchmarking/task.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const BIN = join(ROOT, 'dist/cli/main.js');
const { values } = parseArgs({
  options: { pairs: { type: 'string', default: '6' }, rounds: { type: 'string', default: '5' } },
});
const pairs = Number(values.pairs);
const rounds = Number(values.rounds);

/** BENCH_FLAGS of the recipe, as written in docs/ci-github-actions.md. */
function recipeFlags(): string[] {
  const text = readFileSync(join(ROOT, 'docs/ci-github-actions.md'), 'utf8');
  const yaml = /```yaml\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  const doc = parseYaml(yaml) as { jobs: Record<string, { env?: Record<string, string> }> };
  const env = Object.values(doc.jobs).find((j) => j.env?.['BENCH_FLAGS'] !== undefined)?.env;
  return (env?.['BENCH_FLAGS'] ?? '').split(/\s+/).filter(Boolean);
}

function dantinox(args: readonly string[], cwd: string): number {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  if (r.status === 2) throw new Error(`dantinox ${args.join(' ')}: ${r.stderr}`);
  return r.status ?? -1;
}

/** `report` with every timing 15% slower: times × 1.15, rates ÷ 1.15 (by the metric's direction). */
function slower(report: SuiteReport, factor: number): SuiteReport {
  const higher = new Map(report.descriptors.map((d) => [d.key, d.higherIsBetter]));
  const scale = (metrics: Readonly<Record<string, number>>): Record<string, number> =>
    Object.fromEntries(
      Object.entries(metrics).map(([k, v]) => {
        const up = higher.get(k) ?? !k.endsWith('_ms');
        const timing = k.endsWith('_ms') || /tps|tok|gflops/.test(k);
        return [k, !timing ? v : up ? v / factor : v * factor];
      }),
    );
  const cell = (c: CellRecord): CellRecord => ({
    ...c,
    metrics: scale(c.metrics),
    ...(c.samplesMs === undefined ? {} : { samplesMs: c.samplesMs.map((s) => s * factor) }),
    ...(c.metricSamples === undefined
      ? {}
      : {
          metricSamples: Object.fromEntries(
            Object.entries(c.metricSamples).map(([k, s]) => [k, s.map((x) => x * factor)]),
          ),
        }),
  });
  const result = (r: BenchmarkResult): BenchmarkResult => ({
    ...r,
    metrics: scale(r.metrics),
    ...(r.cells === undefined ? {} : { cells: r.cells.map(cell) }),
  });
  return new SuiteReport({
    results: report.results.map(result),
    modelMeta: report.modelMeta,
    totalTimeS: report.totalTimeS,
    ...(report.environment === undefined ? {} : { environment: report.environment }),
    ...(report.runId === undefined ? {} : { runId: report.runId }),
    descriptors: report.descriptors,
  });
}

const flags = recipeFlags();
const dir = mkdtempSync(join(tmpdir(), 'dantinox-ci-gate-'));
console.log(
  `CPU: ${cpus()[0]?.model} × ${cpus().length}; load average at start ${loadavg().map((l) => l.toFixed(2))}`,
);
console.log(`BENCH_FLAGS: ${flags.join(' ')}; ${pairs} A/A pairs of ${rounds} interleaved rounds\n`);
let failed = 0;
let last = '';
for (let p = 1; p <= pairs; p++) {
  const pair = join(dir, `pair-${p}`);
  for (let i = 1; i <= rounds; i++)
    for (const side of ['base', 'pr']) {
      mkdirSync(join(pair, side), { recursive: true });
      dantinox(['bench', ...flags, '--out', join(pair, side, String(i))], pair);
    }
  const code = dantinox(['compare', 'base', '--', 'pr', '--fail-on-regression', '--format', 'json'], pair);
  failed += code === 1 ? 1 : 0;
  console.log(
    `pair ${p}: gate ${code === 1 ? 'FAILED (exit 1)' : 'passed (exit 0)'}; load ${loadavg()[0]?.toFixed(2)}`,
  );
  last = pair;
}
console.log(`\nA/A: ${failed} of ${pairs} pairs of identical code failed the gate (goal: at most 1 of 6)`);

// The last pair's PR runs, every timing 15% slower: the gate must catch it.
for (let i = 1; i <= rounds; i++) {
  const path = join(last, 'pr', String(i), 'results.json');
  mkdirSync(join(last, 'slow', String(i)), { recursive: true });
  slower(SuiteReport.load(path), 1.15).save(join(last, 'slow', String(i), 'results.json'));
}
const caught =
  dantinox(['compare', 'base', '--', 'slow', '--fail-on-regression', '--format', 'json'], last) === 1;
console.log(`synthetic 15% slowdown: ${caught ? 'caught (exit 1)' : 'MISSED (exit 0)'}`);
console.log(`load average at end ${loadavg().map((l) => l.toFixed(2))}`);
