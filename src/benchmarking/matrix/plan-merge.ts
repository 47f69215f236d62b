/**
 * `planMerge`: which folder each variant of a sharded matrix comes from, with missing and duplicated shards
 * found before anything is written.
 *
 * @packageDocumentation
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { MatrixVariant } from './expand-matrix.js';
import { isMatrixDirectory, type MatrixManifest, readMatrixManifest } from './matrix-manifest.js';
import { type VariantState, variantState } from './matrix-report.js';
import { shardFolderName } from './shard.js';

/** A matrix folder taking part in a merge. */
export interface MergeSource {
  /** The folder. */
  readonly dir: string;
  /** Its manifest. */
  readonly manifest: MatrixManifest;
}

/** Which folder each variant of a sharded matrix comes from, and what is missing (what `planMerge` decided). */
export interface MergePlan {
  /** The manifest every source shares (the first one's). */
  readonly manifest: MatrixManifest;
  /** The folders merged, in the order given. */
  readonly sources: readonly MergeSource[];
  /** Variants with results, in canonical order, and the folder each comes from. */
  readonly variants: readonly {
    /** The variant. */
    readonly variant: MatrixVariant;
    /** The shard folder that holds it. */
    readonly dir: string;
    /** How far it got there: `completed`, `failed`, or `unfinished` (with `allowPartial` only). */
    readonly state: VariantState;
  }[];
  /** Why variants are absent (one line each); empty for a complete merge. */
  readonly missing: readonly string[];
}

/**
 * The matrix folders behind `paths`: each path that holds a `matrix.json`, or else every immediate sub-folder
 * holding a shard's `matrix.json` (a shared output directory with `shard-<i>-of-<n>` folders; a merged run
 * written beside them is not a shard and is left out).
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a path that is neither.
 */
export function findMatrixFolders(paths: readonly string[]): string[] {
  return paths.flatMap((path) => {
    if (isMatrixDirectory(path)) return [path];
    const children =
      existsSync(path) && statSync(path).isDirectory()
        ? readdirSync(path, { withFileTypes: true })
            .filter((e) => e.isDirectory())
            .map((e) => join(path, e.name))
            .filter((dir) => isMatrixDirectory(dir) && readMatrixManifest(dir).shard !== null)
            .sort()
        : [];
    if (children.length === 0) throw new DantinoxError('IO', messages.notAMatrixFolder(path));
    return children;
  });
}

/**
 * Plans the merge of matrix folders (shards of one matrix): every variant must come from exactly one folder
 * that finished it. A duplicated shard and folders of different matrices are always errors; missing shards or
 * unfinished variants are errors unless `allowPartial`, in which case they are listed in `missing`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for different matrices, a variant in two folders, or (without
 * `allowPartial`) a missing or unfinished variant; `IO` for a folder without a readable `matrix.json`.
 */
export function planMerge(dirs: readonly string[], options: { readonly allowPartial: boolean }): MergePlan {
  const sources = dirs.map((dir) => ({ dir, manifest: readMatrixManifest(dir) }));
  const first = sources[0];
  if (first === undefined) throw new DantinoxError('INVALID_INPUT', messages.notAMatrixFolder('(none)'));
  for (const s of sources.slice(1)) {
    if (s.manifest.key !== first.manifest.key) throw mismatch(first, s);
  }
  const noun = first.manifest.command === 'load' ? 'sweep point' : 'variant';
  const owner = new Map<string, string>();
  for (const s of sources) {
    for (const id of s.manifest.assigned) {
      const other = owner.get(id);
      if (other !== undefined)
        throw new DantinoxError('INVALID_INPUT', messages.duplicateShard(id, [other, s.dir]));
      owner.set(id, s.dir);
    }
  }
  const variants: MergePlan['variants'][number][] = [];
  const missing: string[] = [];
  const unowned: MatrixVariant[] = [];
  for (const variant of first.manifest.variants) {
    const dir = owner.get(variant.id);
    if (dir === undefined) {
      unowned.push(variant);
      continue;
    }
    const state = variantState(dir, variant.id);
    if (state === 'missing' || state === 'unfinished')
      missing.push(messages.variantNotFinished(variant.id, dir, state, noun));
    if (state !== 'missing') variants.push({ variant, dir, state });
  }
  if (unowned.length > 0)
    missing.unshift(
      messages.shardsMissing(
        unowned.map((v) => v.id),
        shardsOf(unowned, sources),
        noun,
      ),
    );
  if (missing.length > 0 && !options.allowPartial)
    throw new DantinoxError('INVALID_INPUT', messages.mergeIncomplete(missing));
  return { manifest: first.manifest, sources, variants, missing };
}

/**
 * The error for folders of different matrices; for two shards of `dantinox load`, it names the first setting
 * (flag) whose values differ.
 */
function mismatch(a: MergeSource, b: MergeSource): DantinoxError {
  const differs =
    a.manifest.command === 'load' && b.manifest.command === 'load'
      ? settingsDifference(a.manifest.benchConfig, b.manifest.benchConfig)
      : undefined;
  return new DantinoxError(
    'INVALID_INPUT',
    differs === undefined
      ? messages.matrixMismatch(a.dir, b.dir)
      : messages.loadShardsDiffer(a.dir, b.dir, differs.flag, differs.there, differs.here),
  );
}

/** The first setting (a load's flag) whose values differ in two loads' settings, each value as a message shows it. */
export function settingsDifference(
  there: Readonly<Record<string, unknown>>,
  here: Readonly<Record<string, unknown>>,
): { readonly flag: string; readonly there: string; readonly here: string } | undefined {
  const flags = [...new Set([...Object.keys(there), ...Object.keys(here)])];
  const shown = (v: unknown): string => (v === undefined || v === null ? 'not set' : JSON.stringify(v));
  const flag = flags.find((f) => shown(there[f]) !== shown(here[f]));
  return flag === undefined ? undefined : { flag, there: shown(there[flag]), here: shown(here[flag]) };
}

/** `shard-2-of-4, shard-3-of-4`: the shard folders that would have held `variants`, when the count is known. */
function shardsOf(variants: readonly MatrixVariant[], sources: readonly MergeSource[]): string[] {
  const count = sources.find((s) => s.manifest.shard !== null)?.manifest.shard?.count;
  if (count === undefined) return [];
  return [...new Set(variants.map((v) => v.index % count))].map((index) => shardFolderName({ index, count }));
}
