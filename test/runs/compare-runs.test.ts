import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/benchmarking/environment.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { messages } from '../../src/messages.js';
import { compareRuns } from '../../src/runs/compare-runs.js';

/** A saved run of `tiny` whose one prefill cell takes about `ms` per call, measured at 1-minute load `load`. */
function savedRun(dir: string, name: string, ms: number, load: number): string {
  const samplesMs = Array.from({ length: 9 }, (_, i) => ms * (0.99 + (i % 3) * 0.01));
  const report = new SuiteReport({
    runId: name,
    modelMeta: { model: 'tiny', dtype: 'fp32', threads: 1 },
    environment: {
      logicalCpus: 2,
      loadAverage: { start: [load, 0, 0], end: [load, 0, 0] },
    } as unknown as Environment,
    results: [
      {
        task: 'throughput',
        metrics: { tps_seq8: 8000 / ms },
        cells: [
          {
            task: 'throughput',
            cell: 'seq=8,batch=1',
            phase: 'prefill',
            batch: 1,
            seqLen: 8,
            status: 'completed',
            metrics: { tps: 8000 / ms, mean_ms: ms },
            samplesMs,
          },
        ],
      },
    ],
  });
  report.save(join(dir, name, 'results.json'));
  return name;
}

describe('compareRuns: noise warnings', () => {
  it("names each side's runs measured on a busy machine, never the difference between the sides", () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-compare-'));
    const base = savedRun(cwd, 'base', 1, 0.2);
    const head = savedRun(cwd, 'head', 2, 1.5); // twice as slow, and busy
    const { warnings, comparisons } = compareRuns([[base], [head]], { cwd });
    expect(comparisons).toHaveLength(1);
    expect(warnings).toEqual([{ kind: 'busy', variant: 'head', message: messages.busyMachine(1.5, 2) }]);
  });
});
