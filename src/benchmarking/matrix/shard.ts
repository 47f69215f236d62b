/**
 * The shard contract: which variants of a matrix one process runs, from `--shard i/n` or from the environment
 * a scheduler sets (a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`, a Slurm job array's
 * `SLURM_ARRAY_TASK_ID` / `SLURM_ARRAY_TASK_COUNT` / `SLURM_ARRAY_TASK_MIN` / `SLURM_ARRAY_TASK_STEP` /
 * `SLURM_ARRAY_TASK_MAX`).
 *
 * Variants are dealt round-robin: shard `i` of `n` runs the variants whose 0-based index in the canonical
 * order of the matrix is ≡ i (mod n). Every process computes the same expansion, so no coordination is needed.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { type IndexFlags, SHARD_FLAGS } from '../../scheduler-index.js';

/** One shard of a matrix run: 0-based `index` < `count`, and where it came from. */
export interface ShardSpec {
  /** 0-based shard index, `0 ≤ index < count`. */
  readonly index: number;
  /** Number of shards. */
  readonly count: number;
  /** What set it: `--shard`, `JOB_COMPLETION_INDEX` or `SLURM_ARRAY_TASK_ID`. */
  readonly source: string;
}
const INTEGER = /^\s*\d+\s*$/;

/**
 * Parses `i/n` (0-based index, shard count), e.g. `0/4`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` unless `0 ≤ i < n`.
 */
export function parseShard(text: string, flags: IndexFlags = SHARD_FLAGS): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (m === null || !Number.isSafeInteger(count) || count < 1 || index >= count)
    throw new DantinoxError('INVALID_OPTION', messages.badShard(text, flags));
  return { index, count, source: flags.one };
}

function variable(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  flags: IndexFlags,
): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!INTEGER.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new DantinoxError('INVALID_OPTION', messages.badShardVariable(name, raw, flags));
  return Number(raw);
}

/** Options of {@link resolveShard}. */
export interface ResolveShardOptions {
  /** `--shard i/n`, which wins over the environment. */
  readonly shard?: string;
  /** `--shards n`: the shard count (needed with `JOB_COMPLETION_INDEX`; overrides `SLURM_ARRAY_TASK_COUNT`). */
  readonly shards?: number;
  /** The process environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Which flags `shard` and `shards` are, for messages and the spec's `source`. @default the shard flags */
  readonly flags?: IndexFlags;
}

/**
 * The shard this process runs, or `undefined` for the whole matrix. `--shard` wins; otherwise a Slurm array
 * (`index = (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP`, `count = SLURM_ARRAY_TASK_COUNT`:
 * `--array=1-5:2` runs ids 1, 3, 5 as shards 0, 1, 2 of 3), otherwise a Kubernetes Indexed Job
 * (`index = JOB_COMPLETION_INDEX`, `count = --shards`).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a malformed `--shard`, a variable that is not a
 * non-negative integer, a missing count, an index outside `0…count−1`, a Slurm array that is not evenly spaced
 * (a list such as `--array=1,2,7`: `SLURM_ARRAY_TASK_MAX` ≠ min + step × (count − 1), or an id off the step), or
 * `--shards` with no index.
 */
export function resolveShard(options: ResolveShardOptions): ShardSpec | undefined {
  const flags = options.flags ?? SHARD_FLAGS;
  if (options.shard !== undefined) return parseShard(options.shard, flags);
  const { env, shards } = options;
  const slurmId = variable(env, 'SLURM_ARRAY_TASK_ID', flags);
  if (slurmId !== undefined) {
    const min = variable(env, 'SLURM_ARRAY_TASK_MIN', flags) ?? 0;
    const max = variable(env, 'SLURM_ARRAY_TASK_MAX', flags);
    const step = variable(env, 'SLURM_ARRAY_TASK_STEP', flags) ?? 1;
    const arrayCount = variable(env, 'SLURM_ARRAY_TASK_COUNT', flags);
    const count = shards ?? arrayCount;
    if (count === undefined)
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.shardCountMissing('SLURM_ARRAY_TASK_ID', slurmId, flags),
      );
    const offset = slurmId - min;
    // Ids min, min + step, …, max are shards 0, 1, …: only an evenly spaced array says which shard an id is.
    const spaced =
      step >= 1 &&
      offset % step === 0 &&
      (max === undefined || arrayCount === undefined || max === min + step * (arrayCount - 1));
    if (offset >= 0 && !spaced)
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.slurmArrayUneven(slurmId, { min, max, step, count: arrayCount }, flags),
      );
    const index = offset / step;
    if (offset < 0 || index >= count || count < 1)
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.slurmIndexOutOfRange(slurmId, min, count, step, flags),
      );
    return { index, count, source: 'SLURM_ARRAY_TASK_ID' };
  }
  const k8sIndex = variable(env, 'JOB_COMPLETION_INDEX', flags);
  if (k8sIndex !== undefined) {
    if (shards === undefined)
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.shardCountMissing('JOB_COMPLETION_INDEX', k8sIndex, flags),
      );
    if (k8sIndex >= shards)
      throw new DantinoxError('INVALID_OPTION', messages.badShard(`${k8sIndex}/${shards}`, flags));
    return { index: k8sIndex, count: shards, source: 'JOB_COMPLETION_INDEX' };
  }
  if (shards !== undefined)
    throw new DantinoxError('INVALID_OPTION', messages.shardsWithoutIndex(shards, flags));
  return undefined;
}

/** The items (with their canonical `index`) that shard `shard` runs; all of them without a shard. */
export function shardVariants<T extends { readonly index: number }>(
  variants: readonly T[],
  shard: ShardSpec | undefined,
): T[] {
  return shard === undefined ? [...variants] : variants.filter((v) => v.index % shard.count === shard.index);
}

/** The folder a shard writes under the shared output directory: `shard-<i>-of-<n>`. */
export function shardFolderName(shard: Pick<ShardSpec, 'index' | 'count'>): string {
  return `shard-${shard.index}-of-${shard.count}`;
}
