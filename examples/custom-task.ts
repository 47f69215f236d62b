/**
 * Write your own benchmark task and run it in a suite next to a built-in one. A task is a `name` and an async
 * `run(paradigm, model, config, rng)` returning `{ task, metrics }`; the suite times it, records a failed row if
 * it throws, and puts its metrics in the CSV/JSON report.
 *
 * In your own project import from the package instead: `dantinox/benchmarking`, `dantinox/models`,
 * `dantinox/profiling`.
 */

import type { BenchmarkConfig, BenchmarkResult } from '../src/benchmarking/index.js';
import { BenchmarkSuite, type BenchmarkTask, ThroughputTask } from '../src/benchmarking/index.js';
import { createModel, type Model, Paradigm } from '../src/models/index.js';
import { LatencyTracker } from '../src/profiling/index.js';
import type { Rng } from '../src/rng.js';

/** Greedy-generation speed: tokens per second of `paradigm.generate` from a random prompt. */
export class GenerationSpeedTask implements BenchmarkTask {
  readonly name = 'generation_speed';
  readonly metrics = [
    {
      key: 'gen_tps',
      unit: 'tok/s',
      description: 'New tokens per second of greedy generation.',
      higherIsBetter: true,
    },
  ];

  async run(paradigm: Paradigm, model: Model, config: BenchmarkConfig, rng: Rng): Promise<BenchmarkResult> {
    const promptLen = 8;
    const prompt = Int32Array.from(rng.integers(model.config.vocabSize, promptLen));
    const tracker = new LatencyTracker({ barrier: () => model.barrier() });
    for (let i = 0; i < config.nMeasure; i++) {
      await tracker.measure(config.genTokens, () =>
        paradigm.generate(model, prompt, { batch: 1, seq: promptLen }, rng, {
          maxNewTokens: config.genTokens,
          greedy: true,
        }),
      );
    }
    return {
      task: this.name,
      metrics: { gen_tps: tracker.result().throughputTps },
      profiling: tracker.result(),
    };
  }
}

/** Runs throughput plus the custom task on the `tiny` preset and prints the seed-style summary. */
export async function main(log: (line: string) => void = console.log): Promise<void> {
  const model = await createModel('tiny', { seed: 0, threads: 1 }); // random weights; or loadModel/loadHfModel
  try {
    const suite = new BenchmarkSuite({
      tasks: [new ThroughputTask(), new GenerationSpeedTask()],
      config: {
        seq_lens: [16, 32],
        batch_sizes: [1],
        n_warmup: 1,
        n_measure: 3,
        min_warmup_ms: 0,
        gen_tokens: 8,
      },
    });
    const report = await suite.run(Paradigm.for(model.config), model, { jsonl: false }); // add saveCsv: 'out.csv'
    log(report.summary());
  } finally {
    await model.dispose();
  }
}
