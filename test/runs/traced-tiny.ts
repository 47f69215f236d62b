/**
 * The traced run the `bench --trace` tests share: the tiny preset on ONNX Runtime (1 thread, profiler on) through
 * the latency task at prompt 16 and depths 0 and 32, its trace written to a temporary folder.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import { LatencyTask } from '../../src/benchmarking/tasks/latency-task.js';
import { createModel, ModelConfig, type OnnxModel } from '../../src/models/index.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import type { ChromeTrace } from '../../src/profiling/chrome-trace.js';
import { hrtimeClock } from '../../src/profiling/clock.js';
import { tracedModel } from '../../src/runs/traced-model.js';
import { startVariantTrace } from '../../src/runs/variant-trace.js';

/** The traced tiny run: its (disposed) engine, its config and the trace written. */
export async function traceTinyLatency(): Promise<{
  readonly engine: OnnxModel;
  readonly config: ModelConfig;
  readonly written: { readonly path: string; readonly trace: ChromeTrace };
}> {
  const trace = startVariantTrace('ort');
  const config = ModelConfig.preset('tiny');
  const engine = await createModel(config, {
    seed: 1,
    threads: 1,
    profileFilePrefix: trace.profileFilePrefix as string,
  });
  const model = tracedModel(engine, trace.recorder);
  const bench = BenchmarkConfig.parse({
    seqLens: [16],
    depths: [0, 32],
    nWarmup: 1,
    nMeasure: 2,
    minWarmupMs: 0,
    genTokens: 2,
  });
  try {
    await new BenchmarkSuite({ tasks: [new LatencyTask()], config: bench }).run(
      new ARParadigm(config),
      model,
      {
        jsonl: false,
        clock: hrtimeClock,
        tracer: trace.recorder,
      },
    );
  } finally {
    await model.dispose();
  }
  const written = trace.write(mkdtempSync(join(tmpdir(), 'dantinox-trace-test-')), 'tiny');
  return { engine, config, written };
}
