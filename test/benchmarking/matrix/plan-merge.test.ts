/**
 * `planMerge` and `findMatrixFolders` on folders written by hand (a manifest and results files per variant, no model
 * runs): which folder each variant comes from, in canonical order whatever order the folders are given in; missing
 * shards named from the variants' indices (the variant at index = count belongs to shard 0); unfinished and
 * never-run variants; duplicated shards; folders of other matrices and loads of other settings.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MatrixVariant } from '../../../src/benchmarking/matrix/expand-matrix.js';
import {
  type MatrixDefinition,
  readMatrixManifest,
} from '../../../src/benchmarking/matrix/matrix-manifest.js';
import { findMatrixFolders, planMerge } from '../../../src/benchmarking/matrix/plan-merge.js';
import { messages } from '../../../src/messages.js';
import { thrown } from '../../thrown.js';
import { BENCH, type Outcome, tmp, VARIANTS, writeShard } from './shard-folders.js';

const variant = (i: number): MatrixVariant => VARIANTS[i] as MatrixVariant;

describe('planMerge', () => {
  it('takes every variant from the folder that owns it, in canonical order, whatever order the folders come in', () => {
    const root = tmp();
    // Three shards of four variants: shard 0 holds indices 0 and 3, shard 1 index 1, shard 2 index 2.
    const s0 = writeShard(join(root, 's0'), { index: 0, count: 3 });
    const s1 = writeShard(join(root, 's1'), { index: 1, count: 3 }, { fp16: 'failed' });
    const s2 = writeShard(join(root, 's2'), { index: 2, count: 3 });
    const plan = planMerge([s2, s0, s1], { allowPartial: false });
    expect(plan.variants).toEqual([
      { variant: variant(0), dir: s0, state: 'completed' },
      // A variant whose task failed is a result: kept, and not missing.
      { variant: variant(1), dir: s1, state: 'failed' },
      { variant: variant(2), dir: s2, state: 'completed' },
      { variant: variant(3), dir: s0, state: 'completed' },
    ]);
    expect(plan.missing).toEqual([]);
    expect(plan.sources.map((s) => s.dir)).toEqual([s2, s0, s1]);
    expect(plan.sources.map((s) => s.manifest.assigned)).toEqual([['q8'], ['fp32', 'q4'], ['fp16']]);
    // The manifest is the first folder's.
    expect(plan.manifest).toEqual(readMatrixManifest(s2));
  });

  it('names the missing shard folders from the variants it lacks (the variant at index = count is in shard 0)', () => {
    const root = tmp();
    const s1 = writeShard(join(root, 's1'), { index: 1, count: 3 });
    const problem = messages.shardsMissing(['fp32', 'q8', 'q4'], ['shard-0-of-3', 'shard-2-of-3']);
    const error = thrown(() => planMerge([s1], { allowPartial: false }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(messages.mergeIncomplete([problem]));
    const plan = planMerge([s1], { allowPartial: true });
    expect(plan.missing).toEqual([problem]);
    expect(plan.variants).toEqual([{ variant: variant(1), dir: s1, state: 'completed' }]);
  });

  it('lists missing shards first, then unfinished and never-run variants in canonical order; keeps the unfinished', () => {
    const root = tmp();
    // No shard 1 (fp16); in shard 0, fp32 has only its stream and q4 never ran; in shard 2, q8 was cut short.
    const s0 = writeShard(join(root, 's0'), { index: 0, count: 3 }, { fp32: 'stream', q4: 'none' });
    const s2 = writeShard(join(root, 's2'), { index: 2, count: 3 }, { q8: 'interrupted' });
    const missing = [
      messages.shardsMissing(['fp16'], ['shard-1-of-3']),
      messages.variantNotFinished('fp32', s0, 'unfinished'),
      messages.variantNotFinished('q8', s2, 'unfinished'),
      messages.variantNotFinished('q4', s0, 'missing'),
    ];
    expect(thrown(() => planMerge([s0, s2], { allowPartial: false })).message).toBe(
      messages.mergeIncomplete(missing),
    );
    const plan = planMerge([s0, s2], { allowPartial: true });
    expect(plan.missing).toEqual(missing);
    expect(plan.variants).toEqual([
      { variant: variant(0), dir: s0, state: 'unfinished' },
      { variant: variant(2), dir: s2, state: 'unfinished' },
    ]);
  });

  it('takes the shard count from any sharded folder: a partial merge given first has none', () => {
    const root = tmp();
    // A merge written with --allow-partial: the whole matrix (no shard), fp32 and q4 only.
    const partial = writeShard(join(root, 'partial'), null, {}, { assigned: ['fp32', 'q4'] });
    const s2 = writeShard(join(root, 's2'), { index: 2, count: 3 });
    expect(planMerge([partial, s2], { allowPartial: true }).missing).toEqual([
      messages.shardsMissing(['fp16'], ['shard-1-of-3']),
    ]);
    // Without a sharded folder the count is unknown: the variants are named, not the shards.
    expect(planMerge([partial], { allowPartial: true }).missing).toEqual([
      messages.shardsMissing(['fp16', 'q8'], []),
    ]);
  });

  it('refuses a variant that two folders hold, naming both', () => {
    const root = tmp();
    const s0 = writeShard(join(root, 's0'), { index: 0, count: 2 });
    const s1 = writeShard(join(root, 's1'), { index: 1, count: 2 });
    const copy = writeShard(join(root, 'copy'), { index: 1, count: 2 });
    const error = thrown(() => planMerge([s0, s1, copy], { allowPartial: true }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(messages.duplicateShard('fp16', [s1, copy]));
  });

  it('refuses folders of different matrices, and no folder at all', () => {
    const root = tmp();
    const s0 = writeShard(join(root, 's0'), { index: 0, count: 2 });
    const other = writeShard(
      join(root, 'other'),
      { index: 1, count: 2 },
      {},
      {
        definition: { ...BENCH, tasks: ['latency'] },
      },
    );
    const error = thrown(() => planMerge([s0, other], { allowPartial: true }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(messages.matrixMismatch(s0, other));
    const none = thrown(() => planMerge([], { allowPartial: true }));
    expect(none.code).toBe('INVALID_INPUT');
    expect(none.message).toBe(messages.notAMatrixFolder('(none)'));
  });
});

describe('planMerge of load shards', () => {
  /** Three sweep points of a load. */
  const POINTS: readonly MatrixVariant[] = ['c1', 'c2', 'c4'].map((id, index) => ({ id, index, axes: {} }));
  const load = (benchConfig: Record<string, unknown>, tasks = ['load']): MatrixDefinition => ({
    command: 'load',
    axes: [],
    exclude: [],
    benchConfig,
    tasks,
  });
  const SETTINGS = { 'base-url': 'http://a/v1/completions', '--model': null, '--requests': 100 };
  /** Shard `index` of 2 of a load with `settings` in a new folder. */
  const loadShard = (
    index: number,
    settings: Record<string, unknown>,
    outcomes: Readonly<Record<string, Outcome>> = {},
    tasks?: string[],
  ) =>
    writeShard(join(tmp(), `shard-${index}-of-2`), { index, count: 2 }, outcomes, {
      definition: load(settings, tasks),
      variants: POINTS,
    });

  it('speaks of sweep points: missing shards and unfinished points', () => {
    const s0 = loadShard(0, SETTINGS, { c1: 'stream' });
    expect(planMerge([s0], { allowPartial: true }).missing).toEqual([
      messages.shardsMissing(['c2'], ['shard-1-of-2'], 'sweep point'),
      messages.variantNotFinished('c1', s0, 'unfinished', 'sweep point'),
    ]);
  });

  it('names the first setting that differs between two loads, in the first folder’s order, unset and null alike', () => {
    const differs = (there: Record<string, unknown>, here: Record<string, unknown>) => {
      const a = loadShard(0, there);
      const b = loadShard(1, here);
      const error = thrown(() => planMerge([a, b], { allowPartial: true }));
      expect(error.code).toBe('INVALID_INPUT');
      return { a, b, message: error.message };
    };
    let d = differs(SETTINGS, { ...SETTINGS, 'base-url': 'http://b/v1/completions', '--requests': 200 });
    expect(d.message).toBe(
      messages.loadShardsDiffer(
        d.a,
        d.b,
        'base-url',
        '"http://a/v1/completions"',
        '"http://b/v1/completions"',
      ),
    );
    // `--model` is null in one and absent in the other: both "not set", so `--requests` is the difference.
    const { '--model': _model, ...withoutModel } = SETTINGS;
    d = differs(SETTINGS, { ...withoutModel, '--requests': 200 });
    expect(d.message).toBe(messages.loadShardsDiffer(d.a, d.b, '--requests', '100', '200'));
    // A setting only the second folder has.
    d = differs(SETTINGS, { ...SETTINGS, '--rate': [5, 10] });
    expect(d.message).toBe(messages.loadShardsDiffer(d.a, d.b, '--rate', 'not set', '[5,10]'));
    d = differs({ ...SETTINGS, '--rate': [5, 10] }, SETTINGS);
    expect(d.message).toBe(messages.loadShardsDiffer(d.a, d.b, '--rate', '[5,10]', 'not set'));
  });

  it('refuses loads of the same settings but another task, and a load with a bench matrix either way, as other matrices', () => {
    const a = loadShard(0, SETTINGS);
    const b = loadShard(1, SETTINGS, {}, ['other']);
    expect(thrown(() => planMerge([a, b], { allowPartial: true })).message).toBe(
      messages.matrixMismatch(a, b),
    );
    const bench = writeShard(
      join(tmp(), 'bench'),
      { index: 1, count: 2 },
      {},
      {
        definition: { ...BENCH, benchConfig: { '--requests': 200 } },
      },
    );
    expect(thrown(() => planMerge([a, bench], { allowPartial: true })).message).toBe(
      messages.matrixMismatch(a, bench),
    );
    expect(thrown(() => planMerge([bench, a], { allowPartial: true })).message).toBe(
      messages.matrixMismatch(bench, a),
    );
  });
});

describe('findMatrixFolders', () => {
  it('takes a matrix folder as it is, and the shard folders under a shared output folder, sorted', () => {
    const root = tmp();
    const shared = join(root, 'study');
    // Written out of order; a merged run beside them (no shard) and a folder without matrix.json are left out.
    for (const i of [2, 0, 1]) writeShard(join(shared, `shard-${i}-of-3`), { index: i, count: 3 });
    writeShard(join(shared, 'merged'), null);
    mkdirSync(join(shared, 'charts'));
    writeFileSync(join(shared, 'notes.txt'), 'not a folder');
    const whole = writeShard(join(root, 'whole'), null);
    expect(findMatrixFolders([whole, shared])).toEqual([
      whole,
      join(shared, 'shard-0-of-3'),
      join(shared, 'shard-1-of-3'),
      join(shared, 'shard-2-of-3'),
    ]);
    // A shard folder given by itself is a matrix folder.
    expect(findMatrixFolders([join(shared, 'shard-1-of-3')])).toEqual([join(shared, 'shard-1-of-3')]);
  });

  it('refuses a path that is missing, a file, or a folder with no shard folder in it', () => {
    const root = tmp();
    const file = join(root, 'file.txt');
    writeFileSync(file, 'text');
    const onlyMerged = join(root, 'only-merged');
    writeShard(join(onlyMerged, 'merged'), null);
    for (const path of [join(root, 'absent'), file, onlyMerged, root]) {
      const error = thrown(() => findMatrixFolders([path]));
      expect(error.code).toBe('IO');
      expect(error.message).toBe(messages.notAMatrixFolder(path));
    }
  });
});
