/**
 * A real run with a CPU hog beside it: one spinning process per logical CPU, the model on one thread. The hogs get
 * about N²/(N + 1) of the N CPUs (1.33 of 2), above the half that makes a machine busy, so the run must say so —
 * in its environment (`othersCpus`), its noise warnings and the summary under the table.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { BUSY_LOAD_PER_CPU } from '../../src/benchmarking/environment.js';
import { noiseWarnings } from '../../src/benchmarking/noise-warnings.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { createModel } from '../../src/models/index.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';

const hogs: ChildProcess[] = [];

afterEach(() => {
  for (const hog of hogs.splice(0)) hog.kill('SIGKILL');
});

describe('a run beside a CPU hog', () => {
  it('measures the CPUs the hog took and warns that the machine was busy', async () => {
    const cpus = os.cpus().length;
    for (let i = 0; i < cpus; i++)
      hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the hogs are spinning
    const model = await createModel('tiny', { threads: 1 });
    try {
      const suite = new BenchmarkSuite({
        tasks: [new ThroughputTask()],
        config: BenchmarkConfig.parse({
          seqLens: [32],
          batchSizes: [1],
          nWarmup: 1,
          nMeasure: 5,
          minWarmupMs: 0,
          minMeasureMs: 2000,
        }),
      });
      const report = await suite.run(new ARParadigm(model.config), model, { jsonl: false });
      const others = report.environment?.othersCpus;
      expect(others).toBeGreaterThan(BUSY_LOAD_PER_CPU * cpus);
      expect(noiseWarnings([report]).map((w) => w.kind)).toContain('busy');
      expect(report.summary()).toMatch(
        new RegExp(
          `Warnings \\(timings to read with care\\):\\n {2}- the machine was busy: other processes kept ${(others ?? 0).toFixed(1)} of its ${cpus} logical CPUs busy`,
        ),
      );
    } finally {
      await model.dispose();
    }
  }, 60_000);
});
