/**
 * Shard folders of a four-variant bench matrix written by hand — a manifest and a results file per variant, no
 * model run — for the tests of the merge: `planMerge` and `mergeRuns`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MatrixVariant } from '../../../src/benchmarking/matrix/expand-matrix.js';
import {
  createMatrixManifest,
  type MatrixDefinition,
  writeMatrixManifest,
} from '../../../src/benchmarking/matrix/matrix-manifest.js';
import { SuiteReport } from '../../../src/benchmarking/report.js';
import type { BenchmarkResult } from '../../../src/benchmarking/task.js';

/** A one-axis bench matrix: four dtypes, the throughput task. */
export const BENCH: MatrixDefinition = {
  axes: [{ name: 'dtype', values: ['fp32', 'fp16', 'q8', 'q4'] }],
  exclude: [],
  benchConfig: { seed: 0 },
  tasks: ['throughput'],
};

/** The four variants of {@link BENCH}, in canonical order. */
export const VARIANTS: readonly MatrixVariant[] = ['fp32', 'fp16', 'q8', 'q4'].map((dtype, index) => ({
  id: dtype,
  index,
  axes: { dtype },
}));

/** What a variant's folder holds. */
export type Outcome = 'completed' | 'failed' | 'interrupted' | 'stream' | 'none';

export const tmp = (): string => mkdtempSync(join(tmpdir(), 'dantinox-plan-merge-'));

/** Writes the results of variant `id` into matrix folder `dir` as `outcome` says. */
function writeVariant(dir: string, id: string, outcome: Outcome): void {
  const folder = join(dir, id);
  if (outcome === 'none') return;
  if (outcome === 'stream') {
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'results.jsonl'),
      `${JSON.stringify({ type: 'run', runId: id, tasks: ['throughput'] })}\n`,
    );
    return;
  }
  const result: BenchmarkResult =
    outcome === 'failed'
      ? { task: 'throughput', status: 'failed', error: 'out of memory', metrics: {} }
      : outcome === 'interrupted'
        ? { task: 'throughput', metrics: { tps: 1 }, meta: { interrupted: 'stopped after 1 of 2 cells' } }
        : { task: 'throughput', metrics: { tps: 1 } };
  new SuiteReport({ results: [result], runId: id }).save(join(folder, 'results.json'));
}

/**
 * Writes shard `index` of `count` (`null`: the whole matrix, or only `assigned` of it) into `dir`: its manifest,
 * and each assigned variant's results (completed unless `outcomes` says otherwise).
 */
export function writeShard(
  dir: string,
  shard: { index: number; count: number } | null,
  outcomes: Readonly<Record<string, Outcome>> = {},
  options: {
    definition?: MatrixDefinition;
    variants?: readonly MatrixVariant[];
    assigned?: readonly string[];
  } = {},
): string {
  const variants = options.variants ?? VARIANTS;
  const assigned = variants.filter((v) =>
    options.assigned !== undefined
      ? options.assigned.includes(v.id)
      : shard === null || v.index % shard.count === shard.index,
  );
  const spec = shard === null ? null : { ...shard, source: '--shard' };
  writeMatrixManifest(dir, createMatrixManifest(options.definition ?? BENCH, variants, spec, assigned));
  for (const v of assigned) writeVariant(dir, v.id, outcomes[v.id] ?? 'completed');
  return dir;
}
