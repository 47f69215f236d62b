/**
 * `matrix.json`: what a matrix run (or one shard of it, or a merge) is — the whole matrix, the benchmark
 * config and tasks, the shard, and the variants assigned to it — so `--resume` and `dantinox merge` can check
 * that folders belong to the same matrix.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { makeDirectory } from '../../make-directory.js';
import { messages } from '../../messages.js';
import type { MatrixAxisValues, MatrixExclude, MatrixVariant } from './expand-matrix.js';
import type { ShardSpec } from './shard.js';

/** File name of the manifest in a matrix run directory. */
export const MATRIX_MANIFEST = 'matrix.json';

/** What defines a matrix: two runs with the same definition measure the same variants the same way. */
export interface MatrixDefinition {
  /**
   * The command whose matrix it is: absent for `dantinox bench` (variants are model runs), `load` for
   * `dantinox load` (variants are its sweep points, with no axes of their own).
   */
  readonly command?: 'load';
  /** The axes, in canonical order. */
  readonly axes: readonly MatrixAxisValues[];
  /** The `exclude` entries. */
  readonly exclude: readonly MatrixExclude[];
  /**
   * The benchmark config shared by every variant (snake_case; the threads axis overrides `threads`); for a load, its
   * settings keyed by their `dantinox load` flag (`--requests`, `--concurrency`, …).
   */
  readonly benchConfig: Readonly<Record<string, unknown>>;
  /** Task names, in run order. */
  readonly tasks: readonly string[];
}

/** The content of `matrix.json`. */
export interface MatrixManifest extends MatrixDefinition {
  /** Format tag. */
  readonly format: 'dantinox-matrix';
  /** Format version. */
  readonly version: 1;
  /** Hash of the {@link MatrixDefinition}: equal keys, same matrix. */
  readonly key: string;
  /** Every variant of the matrix, in canonical order (not only this shard's). */
  readonly variants: readonly MatrixVariant[];
  /** The shard this folder holds; `null` for a whole (unsharded or merged) matrix. */
  readonly shard: ShardSpec | null;
  /** Ids of the variants this folder is responsible for, in canonical order. */
  readonly assigned: readonly string[];
  /** Folders a merged matrix was combined from. */
  readonly mergedFrom?: readonly string[];
}

/** Canonical JSON: object keys sorted, so equal definitions hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The key of a matrix definition: 16 hex digits of the SHA-256 of its canonical JSON. */
export function matrixKey(definition: MatrixDefinition): string {
  const { command, axes, exclude, benchConfig, tasks } = definition;
  return createHash('sha256')
    .update(canonicalJson({ command, axes, exclude, benchConfig, tasks }))
    .digest('hex')
    .slice(0, 16);
}

/** Builds the manifest of a matrix folder. */
export function createMatrixManifest(
  definition: MatrixDefinition,
  variants: readonly MatrixVariant[],
  shard: ShardSpec | null,
  assigned: readonly MatrixVariant[],
  mergedFrom?: readonly string[],
): MatrixManifest {
  return {
    format: 'dantinox-matrix',
    version: 1,
    key: matrixKey(definition),
    ...(definition.command === undefined ? {} : { command: definition.command }),
    axes: definition.axes,
    exclude: definition.exclude,
    benchConfig: definition.benchConfig,
    tasks: definition.tasks,
    variants,
    shard,
    assigned: assigned.map((v) => v.id),
    ...(mergedFrom === undefined ? {} : { mergedFrom }),
  };
}

/**
 * Writes `dir/matrix.json`.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it cannot be written.
 */
export function writeMatrixManifest(dir: string, manifest: MatrixManifest): string {
  const path = join(dir, MATRIX_MANIFEST);
  try {
    makeDirectory(dirname(path));
    writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (cause) {
    throw new DantinoxError('IO', messages.benchWriteFailed(path, 'the matrix manifest', cause), { cause });
  }
  return path;
}

/** Whether `dir` holds a `matrix.json`. */
export function isMatrixDirectory(dir: string): boolean {
  return existsSync(join(dir, MATRIX_MANIFEST));
}

/**
 * Reads `dir/matrix.json`.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it is missing, unreadable or not a matrix manifest.
 */
export function readMatrixManifest(dir: string): MatrixManifest {
  const path = join(dir, MATRIX_MANIFEST);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new DantinoxError('IO', messages.notAMatrixFolder(dir), { cause });
  }
  const m = raw as Partial<MatrixManifest> | null;
  if (
    m?.format !== 'dantinox-matrix' ||
    !Array.isArray(m.variants) ||
    !Array.isArray(m.assigned) ||
    typeof m.key !== 'string'
  )
    throw new DantinoxError('IO', messages.notAMatrixFolder(dir));
  return m as MatrixManifest;
}
