/**
 * Overhead of `LatencyTracker.measure()` around an empty function, beside tinybench's per-iteration overhead
 * for an empty task, measured in the same process and run.
 *
 * Two numbers per harness, both in ns per sample, each the median over `ROUNDS` rounds of `SAMPLES` samples:
 * - **wall**: wall time of the whole loop / samples — what one timed call costs the caller (timer reads,
 *   bookkeeping, the promise and its `await`).
 * - **recorded**: the latency the harness itself reports for the empty function (mean and p50) — the bias
 *   every sample carries (about one timer read); the mean also catches GC pauses and preemptions.
 *
 * Run: `npm run bench:tracker` (compiles with tsconfig.bench.json into dist-bench/, then runs with node).
 */
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { calibrateTimer, hrtimeClock, LatencyTracker, quantileSorted } from '../src/profiling/index.js';

const SAMPLES = 100_000;
const ROUNDS = 7;
const noop = (): void => {};

interface Round {
  wallNs: number;
  recordedNs: number;
  recordedP50Ns: number;
}

async function trackerRound(barrier: boolean): Promise<Round> {
  const tracker = new LatencyTracker(barrier ? { window: SAMPLES, barrier: noop } : { window: SAMPLES });
  const start = process.hrtime.bigint();
  for (let i = 0; i < SAMPLES; i++) await tracker.measure(0, noop);
  const wallNs = Number(process.hrtime.bigint() - start) / SAMPLES;
  const result = tracker.result();
  return { wallNs, recordedNs: result.meanMs * 1e6, recordedP50Ns: result.p50Ms * 1e6 };
}

async function plainAwaitRound(): Promise<Round> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < SAMPLES; i++) await Promise.resolve(noop());
  return {
    wallNs: Number(process.hrtime.bigint() - start) / SAMPLES,
    recordedNs: Number.NaN,
    recordedP50Ns: Number.NaN,
  };
}

async function tinybenchRound(): Promise<Round> {
  const bench = new Bench({
    time: 0,
    iterations: SAMPLES,
    warmup: false,
    timestampProvider: 'hrtimeNow',
    throws: true,
  });
  bench.add('empty', noop);
  const start = process.hrtime.bigint();
  await bench.run();
  const elapsed = Number(process.hrtime.bigint() - start);
  const task = bench.tasks[0];
  const result = task?.result;
  if (task === undefined || result === undefined || !('latency' in result))
    throw new Error('tinybench did not complete');
  return {
    wallNs: elapsed / task.runs,
    recordedNs: result.latency.mean * 1e6,
    recordedP50Ns: result.latency.p50 * 1e6,
  };
}

async function median(run: () => Promise<Round>): Promise<Round> {
  await run(); // warm-up round (JIT)
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await run());
  const med = (xs: number[]) =>
    quantileSorted(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  return {
    wallNs: med(rounds.map((r) => r.wallNs)),
    recordedNs: med(rounds.map((r) => r.recordedNs)),
    recordedP50Ns: med(rounds.map((r) => r.recordedP50Ns)),
  };
}

const timer = calibrateTimer(hrtimeClock);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}`);
console.log(
  `timer ${timer.clockName}: overhead ${timer.overheadNs} ns (median back-to-back), resolution ≤ ${timer.resolutionNs} ns`,
);
console.log(
  `${ROUNDS} rounds × ${SAMPLES.toLocaleString('en-US')} samples of an empty function; medians over rounds\n`,
);

const rows: [string, Round][] = [
  ['plain `await` loop (floor)', await median(plainAwaitRound)],
  ['LatencyTracker.measure', await median(() => trackerRound(false))],
  ['LatencyTracker.measure + barrier', await median(() => trackerRound(true))],
  ['tinybench 6 Bench.run', await median(tinybenchRound)],
];
const pad = (s: string, n: number) => s.padEnd(n);
const ns = (v: number) => (Number.isNaN(v) ? '—' : v.toFixed(0));
console.log(`${pad('harness', 34)}${pad('wall ns/sample', 16)}${pad('recorded mean', 15)}recorded p50 (ns)`);
for (const [name, r] of rows) {
  console.log(`${pad(name, 34)}${pad(ns(r.wallNs), 16)}${pad(ns(r.recordedNs), 15)}${ns(r.recordedP50Ns)}`);
}
const ours = rows[1]?.[1];
const theirs = rows[3]?.[1];
if (ours !== undefined && theirs !== undefined) {
  console.log(
    `\nratio LatencyTracker / tinybench: wall ${(ours.wallNs / theirs.wallNs).toFixed(2)}, recorded mean ${(ours.recordedNs / theirs.recordedNs).toFixed(2)}, recorded p50 ${(ours.recordedP50Ns / theirs.recordedP50Ns).toFixed(2)}`,
  );
  const ok = ours.wallNs <= 1000 && ours.wallNs <= theirs.wallNs;
  console.log(`target (≤ 1 µs per sample and no worse than tinybench): ${ok ? 'met' : 'NOT met'}`);
}
