/**
 * `dantinox/runs`' merge: `planMergeRun` + `mergeRuns` from a plain Node script (one import of the package, as a
 * user's project) merge the shard folders of a matrix into the folder `dantinox merge` writes for them, file for
 * file; hooks see every variant in canonical order; a signal stops the merge before the next variant and leaves a
 * partial merge listing only what it took; a missing shard is refused, or listed with `allowPartial`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readMatrixManifest } from '../../src/benchmarking/matrix/matrix-manifest.js';
import { ExitCode, runCli as runCliInProcess } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { mergeRuns, planMergeRun } from '../../src/runs/merge-runs.js';
import { writeShard } from '../benchmarking/matrix/shard-folders.js';
import { ensureBuilt, ROOT, runProcess } from '../cli/built-cli.js';
import { captureIo } from '../cli/capture-io.js';

/** Every file under `dir`, relative to it, sorted. */
const tree = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();

const SCRIPT = `
import { mergeRuns, planMergeRun } from 'dantinox/runs';

const events = [];
const plan = planMergeRun({ inputs: ['study'], out: 'lib-merged', charts: false });
const result = await mergeRuns(plan, {
  hooks: { onVariantMerged: (v) => events.push(\`\${v.id} \${v.index + 1}/\${v.total} \${v.from.split('/').at(-1)}\`) },
});
console.log(JSON.stringify({ ...result, sources: result.sources.map((s) => s.split('/').at(-1)), events }));
`;

describe('planMergeRun and mergeRuns', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'dantinox-merge-runs-'));
    for (const index of [0, 1]) writeShard(join(tmp, `study/shard-${index}-of-2`), { index, count: 2 });
  });

  it('a plain Node script merges shard folders with one import, as dantinox merge does', async () => {
    ensureBuilt();
    mkdirSync(join(tmp, 'node_modules'));
    symlinkSync(ROOT, join(tmp, 'node_modules/dantinox'), 'dir');
    writeFileSync(join(tmp, 'merge.mjs'), SCRIPT);
    const lib = await runProcess(process.execPath, ['merge.mjs'], { cwd: tmp });
    expect(lib.stderr).toBe('');
    expect(lib.code).toBe(0);
    const out = JSON.parse(lib.stdout.trim()) as Record<string, unknown>;
    expect(out).toMatchObject({
      status: 'completed',
      kind: 'matrix',
      merged: ['fp32', 'fp16', 'q8', 'q4'],
      total: 4,
      sources: ['shard-0-of-2', 'shard-1-of-2'],
      missing: [],
      failedCharts: [],
      files: ['results.csv', 'results.json', 'matrix.json'],
    });
    // Canonical order whatever the shard: fp32 and q8 from shard 0, fp16 and q4 from shard 1.
    expect(out['events']).toEqual([
      'fp32 1/4 shard-0-of-2',
      'fp16 2/4 shard-1-of-2',
      'q8 3/4 shard-0-of-2',
      'q4 4/4 shard-1-of-2',
    ]);
    const io = captureIo(tmp);
    expect(await runCliInProcess(['merge', 'study', '--out', 'cli-merged', '--no-charts'], io)).toBe(
      ExitCode.ok,
    );
    expect(io.out.join('')).toBe(
      'Merged 4 of 4 variant(s) from 2 folder(s) into cli-merged\n  results.csv\n  results.json\n  matrix.json\n',
    );
    expect(tree(join(tmp, 'lib-merged'))).toEqual(tree(join(tmp, 'cli-merged')));
    for (const file of ['results.csv', 'fp16/results.json'])
      expect(readFileSync(join(tmp, 'lib-merged', file), 'utf8')).toBe(
        readFileSync(join(tmp, 'cli-merged', file), 'utf8'),
      );
  }, 120_000);

  it('a signal stops before the next variant: the variants taken are a partial merge, without charts', async () => {
    const stop = new AbortController();
    const plan = planMergeRun({ inputs: ['study'], out: 'stopped', cwd: tmp });
    const result = await mergeRuns(plan, {
      signal: stop.signal,
      hooks: { onVariantMerged: ({ index }) => (index === 1 ? stop.abort() : undefined) },
    });
    expect(result.status).toBe('stopped');
    expect(result.merged).toEqual(['fp32', 'fp16']);
    expect(result.files).toEqual(['results.csv', 'results.json', 'matrix.json']);
    expect(readMatrixManifest(join(tmp, 'stopped')).assigned).toEqual(['fp32', 'fp16']);
    expect(readdirSync(join(tmp, 'stopped')).sort()).toEqual(
      ['fp16', 'fp32', 'matrix.json', 'results.csv', 'results.json'].sort(),
    );
    // The lock was released: the folder can be merged into again (with force).
    const again = await mergeRuns(
      planMergeRun({ inputs: ['study'], out: 'stopped', cwd: tmp, force: true, charts: false }),
    );
    expect(again.merged).toHaveLength(4);
  });

  it('a missing shard is refused before anything is written, or listed with allowPartial', async () => {
    const only = join('study', 'shard-1-of-2');
    expect(() => planMergeRun({ inputs: [only], out: 'partial', cwd: tmp })).toThrow(
      messages.mergeIncomplete([messages.shardsMissing(['fp32', 'q8'], ['shard-0-of-2'], 'variant')]),
    );
    expect(readdirSync(tmp)).not.toContain('partial');
    const result = await mergeRuns(
      planMergeRun({ inputs: [only], out: 'partial', cwd: tmp, allowPartial: true, charts: false }),
    );
    expect(result).toMatchObject({ status: 'completed', merged: ['fp16', 'q4'], total: 4 });
    expect(result.missing).toEqual([messages.shardsMissing(['fp32', 'q8'], ['shard-0-of-2'], 'variant')]);
  });
});
