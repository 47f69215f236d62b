/**
 * Where a traced call's latency goes beyond its kernels, per phase: what `bench --trace` measures for its
 * `operators` row, printed as one block per phase — kernels, ONNX Runtime's session (an `Identity` graph of the
 * call's node, feed and fetch counts), the binding's output copy (timed alone), dantinox's JavaScript (engine span −
 * `session.run` span), the profiler (latency × (1 − 1/overhead)) and the unexplained rest — with whether the named
 * parts explain ≥ 95% of the latency, the CPU, and the load average at start and end.
 *
 * The built-in model of `--config` (seeded weights) runs the latency task at `--seq-lens` (and `--depths`) with ONNX
 * Runtime's profiler on, as `bench --trace --tasks latency` does; the profiler's overhead is measured on a second
 * instance without it (5 interleaved rounds), then the trace is written to `--out` and the parts are measured.
 *
 * Run: `npm run bench:latency-parts [-- --config small --seq-lens 128 --depths 0,128,256,384 --threads 2
 * --n-measure 10 --out <folder for trace.json, default $TMPDIR/dantinox-latency-parts>]` (not in CI; on a quiet machine).
 */
import { mkdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BenchmarkConfig } from '../src/benchmarking/config.js';
import { BenchmarkSuite } from '../src/benchmarking/suite.js';
import { LatencyTask } from '../src/benchmarking/tasks/latency-task.js';
import { MALLOC_TUNING, respawnWithMallocTuning } from '../src/cli/malloc-tuning.js';
import { createModel, ModelConfig } from '../src/models/index.js';
import { ARParadigm } from '../src/models/paradigms/ar-paradigm.js';
import { formatLatencyParts, hrtimeClock } from '../src/profiling/index.js';
import { measureLatencyParts } from '../src/runs/latency-parts-step.js';
import { profilerOverheadOf } from '../src/runs/trace-operators.js';
import { tracedModel } from '../src/runs/traced-model.js';
import { startVariantTrace } from '../src/runs/variant-trace.js';

const { values: args } = parseArgs({
  options: {
    config: { type: 'string', default: 'small' },
    'seq-lens': { type: 'string', default: '128' },
    depths: { type: 'string', default: '0,128,256,384' },
    threads: { type: 'string', default: '2' },
    'n-measure': { type: 'string', default: '10' },
    out: { type: 'string', default: join(tmpdir(), 'dantinox-latency-parts') },
  },
});

const list = (text: string): number[] => text.split(',').map(Number);

async function main(): Promise<void> {
  const threads = Number(args.threads);
  const load = (): string =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(
    `bench:latency-parts — ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} logical CPUs, ${threads} threads, load average ${load()}`,
  );
  const config = ModelConfig.resolve(args.config);
  const bench = BenchmarkConfig.parse({
    seqLens: list(args['seq-lens']),
    depths: list(args.depths),
    nMeasure: Number(args['n-measure']),
  });
  console.log(
    `model: ${args.config} (seeded), latency task at --seq-lens ${args['seq-lens']} --depths ${args.depths}, ${bench.nMeasure} timed calls per cell`,
  );
  const trace = startVariantTrace('ort');
  const open = (profileFilePrefix?: string) =>
    createModel(config, {
      seed: 0,
      threads,
      name: args.config,
      ...(profileFilePrefix === undefined ? {} : { profileFilePrefix }),
    });
  const engine = await open(trace.profileFilePrefix);
  const model = tracedModel(engine, trace.recorder);
  const paradigm = new ARParadigm(config);
  let overhead: Awaited<ReturnType<typeof profilerOverheadOf>>;
  try {
    await new BenchmarkSuite({ tasks: [new LatencyTask()], config: bench }).run(paradigm, model, {
      jsonl: false,
      clock: hrtimeClock,
      tracer: trace.recorder,
    });
    overhead = await profilerOverheadOf(model, paradigm, bench, () => open());
  } finally {
    await model.dispose();
  }
  mkdirSync(args.out, { recursive: true });
  const written = trace.write(
    args.out,
    args.config,
    overhead === undefined ? undefined : { profiler_overhead: overhead },
  );
  console.log(`trace: ${written.path}`);
  console.log(
    `profiler overhead: prefill ×${overhead?.prefill.toFixed(3) ?? '—'}, decode ×${overhead?.decode?.toFixed(3) ?? '—'} (${overhead?.rounds ?? 0} interleaved rounds)`,
  );
  const parts = await measureLatencyParts(written.trace.traceEvents, { threads });
  console.log(formatLatencyParts(parts));
  console.log(`load average at end: ${load()}`);
}

if (Object.keys(MALLOC_TUNING).some((k) => process.env[k] === undefined)) {
  process.exitCode = await respawnWithMallocTuning(fileURLToPath(import.meta.url), process.argv.slice(2));
} else {
  await main();
}
