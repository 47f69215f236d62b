/**
 * Where a load writes and which part of it this process sends: the whole sweep, one shard of its points
 * (`--shard i/n`, a Kubernetes Indexed Job or a Slurm array) or one client's share of one point (`--client i/n`).
 *
 * @packageDocumentation
 */
import { join } from 'node:path';
import { resolveShard, type ShardSpec, shardFolderName } from '../benchmarking/matrix/shard.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { CLIENT_FLAGS, type IndexFlags, SHARD_FLAGS } from '../scheduler-index.js';
import { clientFolderName } from './load-client-manifest.js';
import { timestampName } from './output-dir.js';

/** What {@link resolveLoadTarget} reads: the flags as given and the process's environment and clock. */
export interface LoadTargetInput {
  /** `--out`: the run folder, or the folder every shard or client shares. @default `results/<timestamp>` */
  readonly out?: string | undefined;
  /** `--shard i/n`. */
  readonly shard?: string | undefined;
  /** `--shards n` (with `JOB_COMPLETION_INDEX`). */
  readonly shards?: number | undefined;
  /** `--client i/n`. */
  readonly client?: string | undefined;
  /** `--clients n` (with `JOB_COMPLETION_INDEX` or a Slurm array). */
  readonly clients?: number | undefined;
  /** The process environment (scheduler indices). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Now, for the default folder's name. */
  readonly now: Date;
}

/** The folder a load writes, and the shard or client share it sends (at most one of the two). */
export interface LoadTarget {
  /** The run folder: `out`, or `out/shard-<i>-of-<n>`, or `out/client-<i>-of-<n>`. */
  readonly dir: string;
  /** The shard of the sweep points this process measures. */
  readonly shard?: ShardSpec;
  /** The client share of the one sweep point this process sends. */
  readonly client?: ShardSpec;
}

/**
 * The folder and the part of the load this process runs: a client share when `client`/`clients` are given (or
 * their scheduler variables), else a shard when `shard`/`shards` or a scheduler says so, else the whole sweep into
 * `out`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when a client share and a shard are both asked, when a
 *   shard or client has no `out` (every process must write under one shared folder), or for what
 *   `resolveShard` refuses.
 */
export function resolveLoadTarget(input: LoadTargetInput): LoadTarget {
  const split = input.client !== undefined || input.clients !== undefined;
  const dealt = input.shard !== undefined || input.shards !== undefined;
  if (split && dealt)
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.loadClientWithShard(
        input.client === undefined ? '--clients' : '--client',
        input.shard === undefined ? '--shards' : '--shard',
      ),
    );
  const index = (one: string | undefined, count: number | undefined, flags: IndexFlags) =>
    resolveShard({
      ...(one === undefined ? {} : { shard: one }),
      ...(count === undefined ? {} : { shards: count }),
      env: input.env,
      flags,
    });
  const client = split ? index(input.client, input.clients, CLIENT_FLAGS) : undefined;
  const shard = split ? undefined : index(input.shard, input.shards, SHARD_FLAGS);
  if ((shard !== undefined || client !== undefined) && input.out === undefined)
    throw new DantinoxError(
      'INVALID_OPTION',
      shard === undefined ? messages.clientWithoutOut() : messages.shardWithoutOut(),
    );
  const out = input.out ?? join('results', timestampName(input.now));
  if (shard !== undefined) return { dir: join(out, shardFolderName(shard)), shard };
  if (client !== undefined) return { dir: join(out, clientFolderName(client)), client };
  return { dir: out };
}
